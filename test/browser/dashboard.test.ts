// The control-plane dashboard in a real browser (issue 15): Chromium drives the
// pages served under /ui against a real control plane and two real engines
// that pull the bundles it builds and report their status to it. Covers sign-in
// with administrator and viewer keys (a viewer sees no write controls and the
// API refuses a forced write with 403), creating a source and a bundle through
// the UI up to both engines serving the new revision in the Fleet view, a broken
// policy whose build error shows its location and its fix, the stack selector
// preview, and a secret whose value never comes back. Screenshots of each page
// land in test/browser/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { call, KEYS, screenshot, signIn, startWorld, until, type World } from './harness.js';

const POLICY = `package app

import rego.v1

default allow := false

allow if input.user == "alice"
`;
const BROKEN = `package app

import rego.v1

default allow := false

allow if input.user == "alice")
`;
const FIXED = `package app

import rego.v1

default allow := false

allow if input.user in {"alice", "bob"}
`;
const SECRET_VALUE = 'tok-3f9a1c-never-shown-7d2e';

let world: World;
let admin: Page;

/** The revision of the latest status record of a bundle, once it is SUCCESS with a revision other than `not`. */
async function newRevision(bundle: string, not?: string): Promise<string> {
  let rev = '';
  await until(`a successful build of ${bundle}`, async () => {
    const r = await call(world.cpUrl, KEYS.admin, 'GET', `/v1/bundles/${bundle}/status/latest`);
    if (r.status !== 200) return false;
    const s = r.json().result;
    rev = s.revision;
    return s.status === 'SUCCESS' && rev !== not;
  }, 30_000);
  return rev;
}

/** Wait until the Fleet page shows both engines serving `revision` of bundle `app`. */
async function fleetServes(page: Page, revision: string): Promise<void> {
  await page.goto(`${world.cpUrl}/ui/#/fleet`);
  const row = page.locator('tr[data-fleet-bundle="app"]');
  await row.locator('code', { hasText: revision }).waitFor({ timeout: 30_000 });
  await row.locator('.serving', { hasText: '2 of 2' }).waitFor({ timeout: 30_000 });
  for (const e of await page.locator('tr[data-engine]').all()) {
    await e.locator('td[data-bundle="app"] code', { hasText: revision }).waitFor({ timeout: 30_000 });
  }
  expect(await page.locator('tr[data-engine]').count()).toBe(2);
  await page.locator('tr[data-engine] td', { hasText: /^all \d+ OK$/ }).first().waitFor();
}

beforeAll(async () => {
  world = await startWorld();
}, 180_000);

afterAll(async () => {
  await world?.close();
}, 60_000);

describe('dashboard in Chromium', () => {
  it('is served under /ui without a key, with content types and revalidation', async () => {
    const redirect = await fetch(`${world.cpUrl}/ui`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/ui/');
    const index = await fetch(`${world.cpUrl}/ui/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
    const js = await fetch(`${world.cpUrl}/ui/app.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const etag = js.headers.get('etag')!;
    expect((await fetch(`${world.cpUrl}/ui/app.js`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await fetch(`${world.cpUrl}/ui/app.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    // The API itself still needs a key.
    expect((await fetch(`${world.cpUrl}/v1/bundles`)).status).toBe(401);
  });

  it('signs in with an administrator key; a wrong key is refused', async () => {
    const page = await world.browser.newPage();
    await page.goto(`${world.cpUrl}/ui/`);
    await page.getByLabel('API key', { exact: true }).fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Unauthorized' }).waitFor();
    await screenshot(page, 'signin');
    // An engine key authenticates (whoami answers) but is no dashboard key.
    await page.getByLabel('API key', { exact: true }).fill(KEYS.engine);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Not allowed' }).waitFor();
    expect(await page.getByTestId('role').count()).toBe(0);
    await page.close();
    // The role comes from GET /v1/whoami: sign-in sends no write of any kind.
    const sent: string[] = [];
    admin = await world.browser.newPage();
    admin.on('request', (r) => void sent.push(`${r.method()} ${new URL(r.url()).pathname}`));
    await admin.goto(`${world.cpUrl}/ui/`);
    await admin.getByLabel('API key').fill(KEYS.admin);
    await admin.getByRole('button', { name: 'Sign in' }).click();
    await admin.getByTestId('role').waitFor();
    expect(await admin.getByTestId('role').textContent()).toBe('administrator');
    expect(await admin.getByTestId('who').textContent()).toBe('admin');
    await admin.getByText('No bundles yet.').waitFor();
    expect(sent).toContain('GET /v1/whoami');
    expect(sent.filter((r) => !r.startsWith('GET '))).toEqual([]);
    admin.removeAllListeners('request');
    expect(await admin.evaluate(() => sessionStorage.getItem('regent.controlPlane.apiKey'))).toBe(KEYS.admin);
  });

  it('creates a source and a bundle; the build succeeds and both engines serve it', async () => {
    // A link changes the hash and the page renders after it: both pages have a `Name`
    // field, so wait for the new page's title before filling one.
    await admin.getByRole('link', { name: 'Sources' }).click();
    await admin.getByRole('heading', { level: 1, name: 'Sources', exact: true }).waitFor();
    await admin.getByLabel('Name', { exact: true }).fill('app-policy');
    await admin.locator('#source-file-path').fill('app/authz.rego');
    await admin.getByLabel('Policy text', { exact: true }).fill(POLICY);
    await admin.getByRole('button', { name: 'Create source' }).click();
    await admin.locator('tr[data-source="app-policy"]').waitFor();
    await screenshot(admin, 'sources');

    await admin.getByRole('link', { name: 'Bundles' }).click();
    await admin.getByRole('heading', { level: 1, name: 'Bundles', exact: true }).waitFor();
    await admin.getByLabel('Name', { exact: true }).fill('app');
    await admin.locator('#bundle-labels').fill('env=prod, team=payments');
    await admin.locator('#bundle-requirements').fill('app-policy');
    await admin.locator('#bundle-storage').fill(JSON.stringify({ filesystem: { path: world.bundlePath('app') } }));
    await admin.locator('#bundle-revision').fill('$"r-{substring(input.bundle.hash, 0, 8)}"');
    await admin.getByRole('button', { name: 'Create bundle' }).click();
    const row = admin.locator('tr[data-bundle="app"]');
    await row.locator('.badge', { hasText: 'SUCCESS' }).waitFor({ timeout: 30_000 });
    const revision = await newRevision('app');
    expect(revision).toMatch(/^r-[0-9a-f]{8}$/);
    await row.locator('code', { hasText: revision }).waitFor();
    await screenshot(admin, 'bundles');
    // One poll of the list is one request, whatever the number of bundles (GET /v1/bundles-summary).
    const polled: string[] = [];
    const onPoll = (r: { url(): string }) => void polled.push(new URL(r.url()).pathname);
    admin.on('request', onPoll);
    await new Promise((r) => setTimeout(r, 4500));
    admin.off('request', onPoll);
    const api = polled.filter((p) => p.startsWith('/v1/'));
    expect(api.length).toBeGreaterThanOrEqual(2);
    expect([...new Set(api)]).toEqual(['/v1/bundles-summary']);

    await fleetServes(admin, revision);
    await screenshot(admin, 'fleet');
    for (const e of world.engines) {
      const r = await fetch(`${e.url}/v1/data/app/allow`, { method: 'POST', body: JSON.stringify({ input: { user: 'alice' } }) });
      expect(await r.json()).toEqual({ result: true });
    }
  }, 120_000);

  it('shows a broken policy as a failed build with its location, then the fix rolls out', async () => {
    const before = await newRevision('app');
    await admin.goto(`${world.cpUrl}/ui/#/sources/app-policy`);
    await admin.getByLabel('app/authz.rego', { exact: true }).fill(BROKEN);
    await admin.getByRole('button', { name: 'Save file' }).click();
    await admin.getByRole('status').filter({ hasText: 'Saved app/authz.rego' }).waitFor();
    await screenshot(admin, 'source');

    await admin.goto(`${world.cpUrl}/ui/#/bundles/app`);
    const failed = admin.locator('.toolbar .badge', { hasText: /FAILED|USER_ERROR/ });
    await failed.waitFor({ timeout: 30_000 });
    const location = admin.locator('code.location').first();
    await location.waitFor();
    // file:row:col, the column from the located errors the control plane stores beside the status record.
    const col = BROKEN.split('\n')[6]!.indexOf(')') + 1;
    let shown: string | null = null;
    await until('the location with its column', async () => (shown = await location.textContent()) === `app/authz.rego:7:${col}`, 30_000).catch((e: Error) => {
      throw new Error(`${e.message} (the page shows ${JSON.stringify(shown)})`);
    });
    await admin.locator('ul.locations li', { hasText: 'rego_parse_error' }).waitFor();
    console.log(`[browser] build error shown: ${(await admin.locator('pre.error-message').textContent())?.split('\n')[0]}`);
    await screenshot(admin, 'bundle-failed');
    // The location opens the file in the source's editor with that row selected.
    await location.click();
    const editor = admin.getByLabel('app/authz.rego', { exact: true });
    await until('row 7 selected in the editor', async () => (await editor.evaluate((t) => (t as unknown as { selectionStart: number }).selectionStart)) === BROKEN.split('\n').slice(0, 6).join('\n').length + 1, 10_000);

    // Pause engine-b: it keeps serving the old revision and stops reporting.
    const paused = world.engines[1]!;
    paused.child.kill('SIGSTOP');
    await admin.goto(`${world.cpUrl}/ui/#/sources/app-policy`);
    await admin.getByLabel('app/authz.rego', { exact: true }).fill(FIXED);
    await admin.getByRole('button', { name: 'Save file' }).click();
    const after = await newRevision('app', before);
    await admin.goto(`${world.cpUrl}/ui/#/fleet`);
    const row = admin.locator('tr[data-fleet-bundle="app"]');
    // One engine serves the new build (of two, or of one once the paused engine is stale and no longer counted).
    await row.locator('.serving', { hasText: /^1 of [12]$/ }).waitFor({ timeout: 30_000 });
    const behindRow = admin.locator('tr[data-engine].behind');
    await behindRow.locator('.label', { hasText: `engine=${paused.name}` }).waitFor();
    await behindRow.locator('td[data-bundle="app"].old-revision code', { hasText: before }).waitFor();
    await behindRow.locator('.badge', { hasText: 'stale' }).waitFor({ timeout: 20_000 });
    // Stale and on the old revision: not counted as live, but shown behind (not "1 of 1, behind: none").
    const pausedId = (await behindRow.getAttribute('data-engine'))!;
    await row.locator('.serving', { hasText: /^1 of 1$/ }).waitFor({ timeout: 20_000 });
    await row.locator('.stale-count', { hasText: '+ 1 stale' }).waitFor();
    await row.locator(`[data-stale-behind="${pausedId}"]`, { hasText: 'stale' }).waitFor();
    const rollout = (await call(world.cpUrl, KEYS.admin, 'GET', '/v1/fleet/bundles')).json().result.find((b: { bundle: string }) => b.bundle === 'app');
    expect(rollout).toMatchObject({ engines: 1, serving_latest: 1, behind: [], stale: [pausedId], stale_behind: [pausedId] });
    await admin.locator('tr[data-engine]:not(.behind) td[data-bundle="app"] code', { hasText: after }).waitFor();
    await screenshot(admin, 'fleet-behind');
    paused.child.kill('SIGCONT');
    await admin.goto(`${world.cpUrl}/ui/#/bundles/app`);
    await admin.locator('.toolbar .badge', { hasText: 'SUCCESS' }).waitFor({ timeout: 30_000 });
    await expect(admin.locator('code.location').count()).resolves.toBe(0);
    await screenshot(admin, 'bundle');
    await fleetServes(admin, after);
    for (const e of world.engines) {
      const r = await fetch(`${e.url}/v1/data/app/allow`, { method: 'POST', body: JSON.stringify({ input: { user: 'bob' } }) });
      expect(await r.json()).toEqual({ result: true });
    }
  }, 120_000);

  it('edits source data, checking the JSON before it is sent', async () => {
    const puts: string[] = [];
    const onRequest = (r: { method(): string; url(): string }) => {
      if (r.method() === 'PUT' && r.url().includes('/data/')) puts.push(r.url());
    };
    admin.on('request', onRequest);
    await admin.goto(`${world.cpUrl}/ui/#/sources/app-policy`);
    await admin.locator('#data-path').fill('roles/admins');
    await admin.getByRole('button', { name: 'Open' }).click();
    await admin.getByRole('status').filter({ hasText: 'No document at "roles/admins" yet' }).waitFor();
    await admin.locator('#data-text').fill('{"alice": true,\n "bob": }');
    await admin.getByRole('button', { name: 'Save data' }).click();
    await admin.getByRole('alert').filter({ hasText: 'Not sent: the document is not valid JSON' }).waitFor();
    expect(await admin.getByRole('alert').textContent()).toMatch(/line 2/);
    expect(puts).toEqual([]);
    await admin.locator('#data-text').fill('{"alice": true, "bob": false}');
    await admin.getByRole('button', { name: 'Save data' }).click();
    await admin.getByRole('status').filter({ hasText: 'Saved data at "roles/admins"' }).waitFor();
    expect(puts).toHaveLength(1);
    admin.off('request', onRequest);
    const stored = await call(world.cpUrl, KEYS.admin, 'GET', '/v1/sources/app-policy/data/roles/admins');
    expect(stored.json()).toEqual({ result: { alice: true, bob: false } });
    // Reopened from the tab's recent paths, the document reads back as stored.
    await admin.reload();
    await admin.getByRole('button', { name: 'roles/admins', exact: true }).click();
    await until('the document in the editor', async () => JSON.parse(await admin.locator('#data-text').inputValue()).bob === false, 10_000);
  }, 60_000);

  it('previews which bundles a stack selector matches before saving', async () => {
    const other = await call(world.cpUrl, KEYS.admin, 'PUT', '/v1/bundles/staging-app', {
      labels: { env: 'staging' },
      object_storage: { filesystem: { path: world.bundlePath('staging-app') } },
      requirements: [{ source: 'app-policy' }],
    });
    expect(other.status).toBe(200);
    await admin.goto(`${world.cpUrl}/ui/#/stacks`);
    const preview = admin.locator('#stack-preview');
    await admin.locator('#stack-selector').fill('{"env": ["prod"]}');
    await preview.locator('li', { hasText: 'app' }).waitFor();
    expect(await preview.locator('li').allTextContents()).toEqual(['app']);
    await admin.locator('#stack-selector').fill('{"env": ["*"]}');
    await preview.locator('li', { hasText: 'staging-app' }).waitFor();
    expect(await preview.locator('li').allTextContents()).toEqual(['app', 'staging-app']);
    await admin.locator('#stack-exclude').fill('{"team": ["payments"]}');
    await until('the preview without app', async () => (await preview.locator('li').allTextContents()).join() === 'staging-app', 10_000);
    await admin.locator('#stack-exclude').fill('{"env": [');
    await preview.getByRole('alert').filter({ hasText: 'exclude_selector is not valid JSON' }).waitFor();
    await admin.locator('#stack-exclude').fill('{"team": ["payments"]}');
    await preview.locator('li', { hasText: 'staging-app' }).waitFor();
    await admin.getByLabel('Name', { exact: true }).fill('guardrails');
    await admin.getByRole('button', { name: 'Save stack' }).click();
    await admin.locator('tr[data-stack="guardrails"]').waitFor();
    await screenshot(admin, 'stacks');
    const saved = await call(world.cpUrl, KEYS.admin, 'GET', '/v1/stacks/guardrails');
    expect(saved.json().result).toMatchObject({ selector: { env: ['*'] }, exclude_selector: { team: ['payments'] } });
    // The bundle page lists the stacks that match it, as the server matches them.
    await admin.goto(`${world.cpUrl}/ui/#/bundles/staging-app`);
    await admin.locator('dd .label', { hasText: 'guardrails' }).waitFor();
    // A poll of the bundle page is a fixed set of five reads, however many stacks there are.
    const polled: string[] = [];
    const onPoll = (r: { url(): string }) => void polled.push(new URL(r.url()).pathname);
    admin.on('request', onPoll);
    await new Promise((r) => setTimeout(r, 4500));
    admin.off('request', onPoll);
    expect([...new Set(polled)].sort()).toEqual([
      '/v1/bundles/staging-app',
      '/v1/bundles/staging-app/stacks',
      '/v1/bundles/staging-app/status',
      '/v1/bundles/staging-app/status/latest/errors',
      '/v1/fleet/bundles',
    ]);
  }, 60_000);

  it('shows a bundle that never built as "no build" in the Fleet view, not as behind', async () => {
    const files = { 'broken.rego': Buffer.from(BROKEN).toString('base64') };
    expect((await call(world.cpUrl, KEYS.admin, 'PUT', '/v1/sources/broken-src', { files })).status).toBe(200);
    expect((await call(world.cpUrl, KEYS.admin, 'PUT', '/v1/bundles/never-built', { requirements: [{ source: 'broken-src' }] })).status).toBe(200);
    await until('the failed build of never-built', async () => (await call(world.cpUrl, KEYS.admin, 'GET', '/v1/bundles/never-built/status/latest')).status === 200, 30_000);
    const rollout = (await call(world.cpUrl, KEYS.admin, 'GET', '/v1/fleet/bundles')).json().result.find((b: { bundle: string }) => b.bundle === 'never-built');
    expect(rollout).toMatchObject({ latest_revision: null, behind: [], stale_behind: [] });
    await admin.goto(`${world.cpUrl}/ui/#/fleet`);
    const row = admin.locator('tr[data-fleet-bundle="never-built"]');
    await row.locator('.badge', { hasText: 'no build' }).waitFor();
    expect(await row.getAttribute('class')).not.toContain('behind');
    expect(await row.locator('td.behind-list').textContent()).toBe('—');
    // The Bundles list shows the failure; its page names the file with row and column.
    await admin.goto(`${world.cpUrl}/ui/#/bundles/never-built`);
    await admin.locator('code.location', { hasText: /^broken\.rego:7:\d+$/ }).waitFor({ timeout: 10_000 });
    expect((await call(world.cpUrl, KEYS.admin, 'DELETE', '/v1/bundles/never-built')).status).toBe(200);
  }, 60_000);

  it('creates and rotates a secret whose value is never shown nor returned', async () => {
    const seen: string[] = [];
    admin.on('response', (r) => {
      if (r.url().includes('/v1/')) void r.text().then((t) => seen.push(t), () => undefined);
    });
    await admin.goto(`${world.cpUrl}/ui/#/secrets`);
    await admin.getByLabel('Name', { exact: true }).fill('db-token');
    await admin.getByLabel('Type', { exact: true }).selectOption('token_auth');
    expect(await admin.getByLabel('token', { exact: true }).getAttribute('type')).toBe('password');
    await admin.getByLabel('token', { exact: true }).fill(SECRET_VALUE);
    await admin.getByRole('button', { name: 'Create secret' }).click();
    await admin.locator('tr[data-secret="db-token"]').waitFor();
    await admin.locator('tr[data-secret="db-token"]').getByRole('button', { name: 'Rotate' }).click();
    await admin.getByLabel('token', { exact: true }).fill(`${SECRET_VALUE}-2`);
    await admin.getByRole('button', { name: 'Rotate', exact: true }).last().click();
    await admin.getByRole('heading', { name: 'New secret' }).waitFor();
    await admin.reload();
    await admin.locator('tr[data-secret="db-token"]').waitFor();
    await screenshot(admin, 'secrets');
    // Not in the DOM, not in any input, not in any API response the page got.
    expect(await admin.content()).not.toContain(SECRET_VALUE);
    const inputs = await admin.locator('input').evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
    expect(inputs.join('\n')).not.toContain(SECRET_VALUE);
    await new Promise((r) => setTimeout(r, 200));
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.join('\n')).not.toContain(SECRET_VALUE);
    for (const path of ['/v1/secrets', '/v1/secrets/db-token', '/v1/secrets?pretty']) {
      const r = await call(world.cpUrl, KEYS.admin, 'GET', path);
      expect(r.status).toBe(200);
      expect(r.text).toContain('db-token');
      expect(r.text).not.toContain(SECRET_VALUE);
    }
  }, 60_000);

  it('gives a viewer key a read-only dashboard; a forced write gets 403', async () => {
    const viewer = await signIn(world, KEYS.viewer);
    expect(await viewer.getByTestId('role').textContent()).toBe('viewer');
    await viewer.locator('tr[data-bundle="app"] .badge', { hasText: 'SUCCESS' }).waitFor();
    expect(await viewer.getByRole('button', { name: 'Create bundle' }).count()).toBe(0);
    await viewer.goto(`${world.cpUrl}/ui/#/bundles/app`);
    await viewer.getByRole('heading', { name: 'Status history' }).waitFor();
    expect(await viewer.getByRole('button', { name: 'Rebuild now' }).count()).toBe(0);
    await viewer.goto(`${world.cpUrl}/ui/#/sources/app-policy`);
    await viewer.getByRole('heading', { name: 'Policy files' }).waitFor();
    expect(await viewer.getByRole('button', { name: /Save|Delete/ }).count()).toBe(0);
    expect(await viewer.getByLabel('app/authz.rego', { exact: true }).getAttribute('readonly')).not.toBeNull();
    await viewer.goto(`${world.cpUrl}/ui/#/secrets`);
    await viewer.locator('tr[data-secret="db-token"]').waitFor();
    expect(await viewer.getByRole('button', { name: /Rotate|Create/ }).count()).toBe(0);
    await viewer.goto(`${world.cpUrl}/ui/#/stacks`);
    await viewer.locator('#stack-preview li').first().waitFor();
    expect(await viewer.getByRole('button', { name: 'Save stack' }).count()).toBe(0);
    await viewer.goto(`${world.cpUrl}/ui/#/fleet`);
    await viewer.locator('tr[data-engine]').first().waitFor();
    await screenshot(viewer, 'fleet-viewer');
    // Forced from the page, with the viewer's own key: the API refuses.
    const forced = await viewer.evaluate(async () => {
      const key = sessionStorage.getItem('regent.controlPlane.apiKey');
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const put = await fetch('/v1/sources/app-policy', { method: 'PUT', headers, body: '{}' });
      const rebuild = await fetch('/v1/bundles/app/rebuild', { method: 'POST', headers, body: '{}' });
      return [put.status, await put.json(), rebuild.status, await rebuild.json()];
    });
    expect(forced[0]).toBe(403);
    expect(forced[1]).toMatchObject({ code: 'not_authorized' });
    expect(forced[2]).toBe(403);
    expect(forced[3]).toMatchObject({ code: 'not_authorized' });
    await viewer.close();
  }, 60_000);

  it('gives an owner key write controls for its own definitions and no fleet', async () => {
    const owner = await signIn(world, KEYS.owner);
    expect(await owner.getByTestId('role').textContent()).toBe('owner');
    await owner.getByText('No bundles yet.').waitFor();
    expect(await owner.getByRole('button', { name: 'Create bundle' }).count()).toBe(1);
    await owner.goto(`${world.cpUrl}/ui/#/fleet`);
    await owner.getByRole('alert').filter({ hasText: 'Not allowed' }).waitFor();
    // A key that stops working (here: replaced by one the server does not know) sends the tab back to sign-in at the next poll.
    await owner.goto(`${world.cpUrl}/ui/#/bundles`);
    await owner.evaluate(() => sessionStorage.setItem('regent.controlPlane.apiKey', 'revoked-key'));
    await owner.getByLabel('API key', { exact: true }).waitFor({ timeout: 10_000 });
    expect(await owner.evaluate(() => sessionStorage.getItem('regent.controlPlane.apiKey'))).toBeNull();
    await owner.close();
  }, 60_000);

  it('rebuilds on request and is readable at phone width', async () => {
    await admin.setViewportSize({ width: 1280, height: 800 });
    await admin.goto(`${world.cpUrl}/ui/#/bundles/app`);
    await admin.getByRole('button', { name: 'Rebuild now' }).click();
    await admin.getByRole('status').filter({ hasText: 'Rebuild queued' }).waitFor();
    // Keyboard: the navigation links are reachable with Tab and open their page with Enter.
    await admin.goto(`${world.cpUrl}/ui/#/bundles`);
    await admin.locator('tr[data-bundle="app"]').waitFor();
    await admin.locator('a.brand').focus();
    await admin.keyboard.press('Tab');
    await admin.keyboard.press('Tab');
    await admin.keyboard.press('Enter');
    await admin.getByRole('heading', { name: 'Sources' }).waitFor();
    await admin.setViewportSize({ width: 390, height: 844 });
    await admin.goto(`${world.cpUrl}/ui/#/fleet`);
    await admin.locator('tr[data-engine]').first().waitFor();
    const overflow = (await admin.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(admin, 'fleet-phone');
  }, 60_000);
});
