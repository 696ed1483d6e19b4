// The dashboard's static route (server/control-plane/routes/ui.ts) over HTTP,
// without a browser: served under service.api_prefix with no key, the redirect
// from /ui to /ui/ keeping the prefix and query, content types, ETag
// revalidation, security headers, a rebuilt file picked up while running, and a
// JSON 404 naming the build command when the dashboard was never built.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from '../../server/control-plane/index.js';
import { parseConfig } from '../../server/control-plane/config/load.js';
import { dashboardDir, registerUiRoutes } from '../../server/control-plane/routes/ui.js';
import { buildDashboard } from './harness.js';

let dir: string;
let cp: ControlPlane;

beforeAll(async () => {
  buildDashboard();
  dir = await mkdtemp(join(tmpdir(), 'regent-ui-route-'));
  const config = parseConfig({
    service: { api_prefix: '/my/api' },
    tokens: { admin: { api_key: 'k', scopes: [{ role: 'administrator' }] } },
  });
  cp = createControlPlane({ config, dataDir: dir, port: 0, scheduler: null, logLevel: 'silent' });
  await cp.start();
}, 60_000);

afterAll(async () => {
  await cp?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('GET {api_prefix}/ui', () => {
  it('redirects /ui to /ui/ under the prefix, keeping the query', async () => {
    const res = await cp.app.inject({ method: 'GET', url: '/my/api/ui?x=1' });
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('/my/api/ui/?x=1');
    expect((await cp.app.inject({ method: 'GET', url: '/ui/' })).statusCode).toBe(404);
  });

  it('serves the page, script and styles without a key, with types, no-cache, an ETag and a CSP', async () => {
    const cases = [
      ['/my/api/ui/', 'text/html; charset=utf-8', '<script type="module" src="app.js">'],
      ['/my/api/ui/index.html', 'text/html; charset=utf-8', '<div id="app">'],
      ['/my/api/ui/app.js', 'text/javascript; charset=utf-8', 'sessionStorage'],
      ['/my/api/ui/app.css', 'text/css; charset=utf-8', '.nav'],
    ] as const;
    for (const [url, type, text] of cases) {
      const res = await cp.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe(type);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'.*frame-ancestors 'none'/);
      expect(res.body).toContain(text);
      const again = await cp.app.inject({ method: 'GET', url, headers: { 'if-none-match': String(res.headers.etag) } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
    }
    // HEAD works too, and the API beside it still wants a key.
    expect((await cp.app.inject({ method: 'HEAD', url: '/my/api/ui/app.js' })).statusCode).toBe(200);
    expect((await cp.app.inject({ method: 'GET', url: '/my/api/v1/bundles' })).statusCode).toBe(401);
    expect((await cp.app.inject({ method: 'GET', url: '/my/api/ui/other.js' })).json()).toMatchObject({ code: 'not_found' });
  });

  it('finds the bundle beside the sources', () => {
    expect(dashboardDir()).toMatch(/server[/\\]control-plane[/\\]ui[/\\]dist$/);
  });

  it('answers 404 with the build command when the dashboard is not built, and picks up a build while running', async () => {
    const empty = join(dir, 'no-dashboard');
    const app = Fastify();
    registerUiRoutes(app, empty);
    const res = await app.inject({ method: 'GET', url: '/ui/' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 'not_found', message: 'the dashboard is not built: run `node server/control-plane/ui/build.mjs`' });
    await mkdir(empty, { recursive: true });
    await writeFile(join(empty, 'index.html'), '<p>v1</p>');
    const first = await app.inject({ method: 'GET', url: '/ui/' });
    expect(first.body).toBe('<p>v1</p>');
    await new Promise((r) => setTimeout(r, 20));
    await writeFile(join(empty, 'index.html'), '<p>v2</p>');
    const second = await app.inject({ method: 'GET', url: '/ui/', headers: { 'if-none-match': String(first.headers.etag) } });
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe('<p>v2</p>');
    await app.close();
  });
});
