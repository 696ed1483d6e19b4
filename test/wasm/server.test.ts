// A real server on the Wasm back end (`backend: 'wasm'`, two evaluation workers)
// answers POST /v1/data/... exactly as a server on the JS back end does: the RBAC
// example and conformance-style policies (test/wasm/server-cases.ts), data PUT/PATCH
// seen by the next decision (path writes and whole reloads of the module's copy), a
// policy PUT, and the decisions that fall back to JS (aborts, refused constructs,
// ad-hoc queries, explain).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCommand } from '../../cli/build.js';
import type { RunningServer } from '../../server/main.js';
import { capture } from '../unit/cli/helpers.js';
import { DECISIONS, RBAC_DIR, decide, policyDir, start, wasmReady, type TempDir } from './server-cases.js';
import { ensureRuntime } from './sdk-host.js';

let dir: TempDir;
let js: RunningServer;
let wasm: RunningServer;

beforeAll(async () => {
  ensureRuntime();
  dir = policyDir();
  [js, wasm] = await Promise.all([start({ workers: 0, paths: [RBAC_DIR, dir.dir] }), start({ workers: 2, backend: 'wasm', paths: [RBAC_DIR, dir.dir] })]);
  await wasmReady(wasm);
}, 180_000);

afterAll(async () => {
  await Promise.all([js?.close(), wasm?.close()]);
  dir?.cleanup();
});

async function put(url: string, path: string, body: unknown, method = 'PUT', type = 'application/json'): Promise<number> {
  const res = await fetch(`${url}${path}`, { method, headers: { 'content-type': type }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  await res.arrayBuffer();
  return res.status;
}

describe('regent run --server --backend wasm', () => {
  it('answers every decision as the JS back end does, on the module where it can', async () => {
    const via: Record<string, number> = { wasm: 0, fallback: 0, js: 0 };
    for (const [path, input, expected] of DECISIONS) {
      // ask twice: with two workers, both instances answer
      for (let i = 0; i < 2; i++) {
        const [a, b] = await Promise.all([decide(js.url, path, input), decide(wasm.url, path, input)]);
        expect({ status: b.status, body: b.body }, `${path} ${JSON.stringify(input)}`).toEqual({ status: a.status, body: a.body });
        // error bodies carry no metrics, so only answers show where they ran
        if (b.status === 200 && expected !== 'either') expect(b.via, `${path} ${JSON.stringify(input)}`).toBe(expected);
        via[b.via]!++;
      }
    }
    console.log(`wasm server: ${via.wasm} decisions in the module, ${via.fallback} handed to JS after an abort, ${via.js} on JS (no entrypoint)`);
    expect(via.wasm).toBeGreaterThan(30);
  }, 120_000);

  it('a conflict the module aborts on gets the JS back end\'s error, word for word', async () => {
    const [a, b] = await Promise.all([decide(js.url, 'fallback/x', { a: true, b: true }), decide(wasm.url, 'fallback/x', { a: true, b: true })]);
    expect(a.status).toBe(500);
    expect(JSON.stringify(a.body)).toContain('complete rules must not produce multiple outputs');
    expect(b).toEqual(a);
  });

  it('data PUT and PATCH are seen by the next decision in the module', async () => {
    const eve = { user: 'eve', action: 'read', type: 'finance' };
    expect(await decide(wasm.url, 'rbac/allow', eve)).toMatchObject({ body: { result: false }, via: 'wasm' });
    expect(await put(wasm.url, '/v1/data/user_roles/eve', ['billing'])).toBe(204);
    for (let i = 0; i < 2; i++) expect(await decide(wasm.url, 'rbac/allow', eve)).toMatchObject({ body: { result: true }, via: 'wasm' });
    expect(await put(wasm.url, '/v1/data/user_roles', [{ op: 'remove', path: '/eve' }], 'PATCH', 'application/json-patch+json')).toBe(204);
    for (let i = 0; i < 2; i++) expect(await decide(wasm.url, 'rbac/allow', eve)).toMatchObject({ body: { result: false }, via: 'wasm' });
    // an array member: the module's copy is reloaded whole
    expect(await put(wasm.url, '/v1/data/role_grants/customer', [{ op: 'add', path: '/-', value: { action: 'read', type: 'finance' } }], 'PATCH', 'application/json-patch+json')).toBe(204);
    expect(await put(wasm.url, '/v1/data/user_roles/eve', ['customer'])).toBe(204);
    for (let i = 0; i < 2; i++) expect(await decide(wasm.url, 'rbac/allow', eve)).toMatchObject({ body: { result: true }, via: 'wasm' });
    // a whole-document write
    expect(await put(wasm.url, '/v1/data/user_roles', { eve: ['employee'] })).toBe(204);
    for (let i = 0; i < 2; i++) expect(await decide(wasm.url, 'rbac/allow', eve)).toMatchObject({ body: { result: false }, via: 'wasm' });
    expect(await decide(wasm.url, 'rbac/allow', { user: 'eve', action: 'update', type: 'cat' })).toMatchObject({ body: { result: true }, via: 'wasm' });
    // back to the example's data for the other tests
    const original = JSON.parse(readFileSync(join(RBAC_DIR, 'data.json'), 'utf8')) as Record<string, unknown>;
    for (const key of ['user_roles', 'role_grants']) expect(await put(wasm.url, `/v1/data/${key}`, original[key])).toBe(204);
    expect(await decide(wasm.url, 'rbac/allow', eve)).toMatchObject({ body: { result: false }, via: 'wasm' });
  }, 60_000);

  it('a policy PUT answers at once (JS) and moves to the module once it is built', async () => {
    expect(await put(wasm.url, '/v1/policies/extra', 'package extra\n\nanswer := input.q * 2\n', 'PUT', 'text/plain')).toBe(200);
    const now = await decide(wasm.url, 'extra/answer', { q: 21 });
    expect(now.body).toEqual({ result: 42 });
    await wasmReady(wasm);
    for (let i = 0; i < 2; i++) expect(await decide(wasm.url, 'extra/answer', { q: 21 })).toEqual({ status: 200, body: { result: 42 }, via: 'wasm' });
    // the other packages are still served by the new module
    expect(await decide(wasm.url, 'shapes/admins', { users: [{ admin: true }] })).toEqual({ status: 200, body: { result: 1 }, via: 'wasm' });
  }, 120_000);

  it('in-process (workers 0) too; a module abort is counted as a fallback', async () => {
    const local = await start({ workers: 0, backend: 'wasm', paths: [RBAC_DIR, dir.dir] });
    try {
      await wasmReady(local);
      for (const [path, input, expected] of DECISIONS) {
        const [a, b] = [await decide(js.url, path, input), await decide(local.url, path, input)];
        expect({ status: b.status, body: b.body }, path).toEqual({ status: a.status, body: a.body });
        if (b.status === 200 && expected !== 'either') expect(b.via, path).toBe(expected);
      }
      const engine = local.app.regent.engine;
      const before = engine.wasmStats().find((s) => s.source === 'engine')!;
      expect(before.entrypoints).toContain('rbac/allow');
      expect(before.entrypoints).not.toContain('refused/p');
      expect((await decide(local.url, 'fallback/x', { a: true, b: true })).status).toBe(500);
      const after = engine.wasmStats().find((s) => s.source === 'engine')!;
      expect(after.fallback).toBe(before.fallback + 1);
      expect(after.wasm).toBe(before.wasm);
      const report = await engine.wasmReady();
      expect(report?.refused.map((r) => r.path).sort()).toEqual(['refused', 'refused/p']);
      expect(report?.refused[0]?.reason).toMatch(/not supported on wasm/);
    } finally {
      await local.close();
    }
  }, 120_000);

  it('ad-hoc queries, GET reads and explain run on the JS back end with the same data', async () => {
    const q = { query: 'x := data.rbac.allow', input: { user: 'alice', action: 'x', type: 'y' } };
    const [a, b] = await Promise.all([js, wasm].map(async (s) => (await fetch(`${s.url}/v1/query`, { method: 'POST', body: JSON.stringify(q) })).json()));
    expect(b).toEqual(a);
    expect(b).toEqual({ result: [{ x: true }] });
    const g = await (await fetch(`${wasm.url}/v1/data/role_grants/billing/0`)).json();
    expect(g).toEqual({ result: { action: 'read', type: 'finance' } });
    const ex = (await (await fetch(`${wasm.url}/v1/data/rbac/allow?explain=notes`, { method: 'POST', body: JSON.stringify({ input: { user: 'alice' } }) })).json()) as { result?: unknown; explanation?: unknown };
    expect(ex.result).toBe(true);
    expect(ex.explanation).toBeDefined();
  });
});

describe('a wasm bundle with --backend wasm', () => {
  it('the bundle module serves its entrypoints, the engine module the other rules', async () => {
    const out = join(dir.dir, 'rbac-allow.tar.gz');
    const c = capture();
    expect(await buildCommand(['-t', 'wasm', '-e', 'rbac/allow', '-o', out, RBAC_DIR], c.io), c.err).toBe(0);
    const s = await start({ workers: 0, backend: 'wasm', bundles: true, paths: [out] });
    try {
      await wasmReady(s);
      const stats = s.app.regent.engine.wasmStats();
      const bundle = stats.find((x) => x.source.startsWith('bundle:'))!;
      const engine = stats.find((x) => x.source === 'engine')!;
      expect(bundle.entrypoints).toEqual(['rbac/allow']);
      expect(engine.entrypoints).not.toContain('rbac/allow');
      expect(engine.entrypoints).toContain('rbac/user_is_admin');
      const bob = { user: 'bob', action: 'update', type: 'finance' };
      expect(await decide(s.url, 'rbac/allow', bob)).toEqual({ status: 200, body: { result: true }, via: 'wasm' });
      expect(await decide(s.url, 'rbac/user_is_admin', { user: 'alice' })).toEqual({ status: 200, body: { result: true }, via: 'wasm' });
      const after = s.app.regent.engine.wasmStats();
      expect(after.find((x) => x.source.startsWith('bundle:'))!.wasm).toBe(bundle.wasm + 1);
      expect(after.find((x) => x.source === 'engine')!.wasm).toBe(engine.wasm + 1);
    } finally {
      await s.close();
    }
  }, 180_000);
});

describe('a replaced worker', () => {
  // a long host-served builtin (regex.split over 2 MB) that never looks at the deadline:
  // only the watchdog stops it, by replacing the worker (as test/server/pool.test.ts)
  const SLOW = `package slow\n\ns := ${'replace('.repeat(21)}"ab"${', "a", "aa")'.repeat(20)}, "a", "ab")\n\nn := count(regex.split("a", s))\n`;

  it('gets the Wasm module with its start-up snapshot', async () => {
    const slowDir = policyDir({ 'slow.rego': SLOW });
    const s = await start({ workers: 1, backend: 'wasm', evalTimeoutMs: 300, paths: [RBAC_DIR, slowDir.dir] });
    try {
      await wasmReady(s);
      const bob = { user: 'bob', action: 'update', type: 'finance' };
      expect(await decide(s.url, 'rbac/allow', bob)).toEqual({ status: 200, body: { result: true }, via: 'wasm' });
      const before = s.app.regent.engine.workerThreadIds();
      const slow = await decide(s.url, 'slow/n', undefined);
      expect(slow.status).toBe(500);
      let after = s.app.regent.engine.workerThreadIds();
      for (let i = 0; i < 50 && (after.length === 0 || after[0] === before[0]); i++) {
        await new Promise((r) => setTimeout(r, 100));
        after = s.app.regent.engine.workerThreadIds();
      }
      expect(after).toHaveLength(1);
      expect(after).not.toEqual(before);
      expect(await decide(s.url, 'rbac/allow', bob)).toEqual({ status: 200, body: { result: true }, via: 'wasm' });
      expect(await decide(s.url, 'rbac/allow', { user: 'eve', action: 'update', type: 'finance' })).toEqual({ status: 200, body: { result: false }, via: 'wasm' });
    } finally {
      await s.close();
      slowDir.cleanup();
    }
  }, 180_000);
});
