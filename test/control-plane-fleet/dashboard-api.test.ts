// Black-box HTTP tests of the Regent extensions the dashboard reads besides the
// fleet (server/control-plane/README.md, "Regent extensions"), on SQLite and
// PostgreSQL (which fails, never skips, when not reachable):
//   GET /v1/whoami                            id and role of any authenticated key
//   GET /v1/bundles-summary                   a page of bundles with their latest
//                                             status record, one request
//   GET /v1/bundles/{b}/status/latest/errors  the latest record with located
//                                             errors {file,row,col,code,message,source?}
//   GET /v1/bundles/{b}/stacks                the stacks whose selectors match it
// and, with the real build scheduler, a policy with a syntax error whose status
// record keeps OPA's `file:row: code: message` text while the errors route
// gives the same error with its column.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workDir } from '../control-plane-builder/blackbox.js';
import { sharedFixture } from '../control-plane/fixture.js';
import { KEYS, type Backend, type TestServer } from '../control-plane/helpers.js';
import { ENGINE_KEYS, startFleetServer, waitFor } from './helpers.js';

const CONFIG = `
bundles:
  app: {labels: {env: prod}}
  lib: {labels: {env: dev}}
  tools: {labels: {env: prod}}
stacks:
  guard: {selector: {env: [prod]}}
  everything: {selector: {env: ["*"]}, exclude_selector: {env: [dev]}}
`;

const BROKEN = `package app

import rego.v1

default allow := false

allow if input.user == "alice")
`;

for (const backend of ['sqlite', 'postgres'] as Backend[]) {
  describe(`dashboard API extensions (${backend})`, () => {
    let s: TestServer;
    sharedFixture(
      async () => {
        s = await startFleetServer(backend, CONFIG);
      },
      async () => s?.close(),
    );

    it('GET /v1/whoami names the key and its role, for every role; no key is 401', async () => {
      const cases: [string, string, string][] = [
        [KEYS.admin, 'admin', 'administrator'],
        [KEYS.viewer, 'viewer', 'viewer'],
        [KEYS.owner1, 'owner1', 'owner'],
        [KEYS.stacker, 'stacker', 'stack_owner'],
        [ENGINE_KEYS.engine, 'engine', 'engine'],
      ];
      for (const [key, id, role] of cases) {
        const r = await s.req('GET', '/v1/whoami', { key });
        expect(r.status, role).toBe(200);
        expect(r.json).toEqual({ result: { id, role } });
      }
      // The engine role still reads nothing else.
      expect((await s.req('GET', '/v1/bundles', { key: ENGINE_KEYS.engine })).status).toBe(403);
      const anon = await s.req('GET', '/v1/whoami', { key: null });
      expect(anon.status).toBe(401);
      expect(anon.text).toBe('Unauthorized');
      expect((await s.req('GET', '/v1/whoami?pretty', { key: KEYS.viewer })).text).toBe('{\n  "result": {\n    "id": "viewer",\n    "role": "viewer"\n  }\n}\n');
    });

    it('GET /v1/bundles-summary: every bundle with its latest status record in one request', async () => {
      const t = new Date().toISOString();
      await s.store.addStatus({ bundle_name: 'app', revision: 'a1', phase: 'PUSH', status: 'SUCCESS', created_at: t });
      await s.store.addStatus({ bundle_name: 'app', revision: 'a2', phase: 'BUILD', status: 'BUILD_FAILED', error_message: 'x.rego:1: rego_parse_error: bad', created_at: t });
      await s.store.addStatus({ bundle_name: 'tools', revision: 't1', phase: 'PUSH', status: 'SUCCESS', created_at: t });
      const r = await s.req('GET', '/v1/bundles-summary', { key: KEYS.viewer });
      expect(r.status).toBe(200);
      const items = r.json.result as Record<string, any>[];
      expect(items.map((b) => b.name)).toEqual(['app', 'lib', 'tools']);
      expect(items[0]).toMatchObject({ name: 'app', labels: { env: 'prod' }, latest_status: { revision: 'a2', status: 'BUILD_FAILED', error_message: 'x.rego:1: rego_parse_error: bad' } });
      // The same record as the spec'd route.
      expect(items[0]!.latest_status).toEqual((await s.req('GET', '/v1/bundles/app/status/latest')).json.result);
      expect(items[1]).toEqual({ name: 'lib', labels: { env: 'dev' }, latest_status: null });
      expect(items[2]!.latest_status.revision).toBe('t1');
      // Paged as GET /v1/bundles.
      const first = await s.req('GET', '/v1/bundles-summary?limit=2');
      expect(first.json.result.map((b: { name: string }) => b.name)).toEqual(['app', 'lib']);
      const rest = await s.req('GET', `/v1/bundles-summary?limit=2&cursor=${encodeURIComponent(first.json.next_cursor)}`);
      expect(rest.json.result.map((b: { name: string }) => b.name)).toEqual(['tools']);
      expect(rest.json.next_cursor).toBeUndefined();
      // An owner sees its own bundles, without statuses (it may not read them).
      expect((await s.req('PUT', '/v1/bundles/mine', { key: KEYS.owner1, body: { labels: { env: 'x' } } })).status).toBe(200);
      const owned = await s.req('GET', '/v1/bundles-summary', { key: KEYS.owner1 });
      expect(owned.json).toEqual({ result: [{ name: 'mine', labels: { env: 'x' } }] });
      expect((await s.req('GET', '/v1/bundles-summary', { key: KEYS.owner2 })).json).toEqual({ result: [] });
      expect((await s.req('GET', '/v1/bundles-summary', { key: ENGINE_KEYS.engine })).status).toBe(403);
    });

    it('GET /v1/bundles/{b}/stacks: the matching stacks, as the builder matches them', async () => {
      const stacksOf = async (bundle: string, key: string = KEYS.viewer) => s.req('GET', `/v1/bundles/${bundle}/stacks`, { key });
      expect((await stacksOf('app')).json).toEqual({ result: { stacks: ['everything', 'guard'] } });
      expect((await stacksOf('tools', KEYS.admin)).json.result.stacks).toEqual(['everything', 'guard']);
      expect((await stacksOf('lib')).json).toEqual({ result: { stacks: [] } });
      // The same answer as a preview of each stack's selectors.
      const preview = await s.req('POST', '/v1/stacks-preview', { body: { selector: { env: ['*'] }, exclude_selector: { env: ['dev'] } } });
      expect(preview.json.result.bundles).toEqual(expect.arrayContaining(['app', 'tools']));
      expect(preview.json.result.bundles).not.toContain('lib');
      const missing = await stacksOf('nothing');
      expect(missing.status).toBe(404);
      expect(missing.json.code).toBe('not_found');
      // Keys that cannot see the bundle get 404, as GET /v1/bundles/{b}.
      expect((await stacksOf('app', KEYS.owner2)).status).toBe(404);
      expect((await stacksOf('app', ENGINE_KEYS.engine)).status).toBe(403);
    });

    it('GET /v1/bundles/{b}/status/latest/errors: located errors stored beside the record; spec routes unchanged', async () => {
      const errors = [
        { file: 'rules/a.rego', row: 3, col: 7, code: 'rego_parse_error', message: 'unexpected eof token', source: 'src' },
        { file: '/src/rules/b.rego', row: 9, col: 1, code: 'rego_type_error', message: 'undefined function f' },
      ];
      const text = '2 errors occurred:\nrules/a.rego:3: rego_parse_error: unexpected eof token\n/src/rules/b.rego:9: rego_type_error: undefined function f';
      await s.store.addStatus({ bundle_name: 'lib', revision: 'l1', phase: 'BUILD', status: 'BUILD_FAILED', error_message: text, created_at: new Date().toISOString(), errors });
      const r = await s.req('GET', '/v1/bundles/lib/status/latest/errors', { key: KEYS.viewer });
      expect(r.status).toBe(200);
      expect(r.json.result).toMatchObject({ bundle_name: 'lib', revision: 'l1', status: 'BUILD_FAILED', error_message: text, errors });
      // The spec'd record has exactly its fields, in its order.
      const latest = await s.req('GET', '/v1/bundles/lib/status/latest');
      expect(Object.keys(latest.json.result)).toEqual(['bundle_name', 'revision', 'phase', 'status', 'error_message', 'created_at', 'updated_at']);
      expect((await s.req('GET', '/v1/bundles/lib/status')).text).not.toContain('"errors"');
      // A later success has no errors.
      await s.store.addStatus({ bundle_name: 'lib', revision: 'l2', phase: 'PUSH', status: 'SUCCESS', created_at: new Date().toISOString() });
      expect((await s.req('GET', '/v1/bundles/lib/status/latest/errors')).json.result).toMatchObject({ revision: 'l2', status: 'SUCCESS', errors: [] });
      const none = await s.req('GET', '/v1/bundles/nothing/status/latest/errors');
      expect(none.status).toBe(404);
      expect(none.json.code).toBe('not_found');
      expect((await s.req('GET', '/v1/bundles/lib/status/latest/errors', { key: KEYS.owner1 })).status).toBe(403);
    });
  });

  describe(`build errors with columns, real builds (${backend})`, () => {
    let s: TestServer;
    let cleanup: () => Promise<void>;
    sharedFixture(
      async () => {
        const work = await workDir('regent-build-errors-');
        cleanup = work.cleanup;
        s = await startFleetServer(backend, '', { scheduler: undefined, dataDir: join(work.dir, 'cp-data') });
      },
      async () => {
        await s?.close();
        await cleanup?.();
      },
    );

    it('a syntax error: OPA text in the status record, file:row:col in the errors route', async () => {
      const files = { 'app/authz.rego': Buffer.from(BROKEN).toString('base64') };
      expect((await s.req('PUT', '/v1/sources/app-policy', { body: { files } })).status).toBe(200);
      expect((await s.req('PUT', '/v1/bundles/app', { body: { requirements: [{ source: 'app-policy' }] } })).status).toBe(200);
      const failed = await waitFor('the failed build', 60_000, async () => {
        const r = await s.req('GET', '/v1/bundles/app/status/latest/errors');
        return r.status === 200 && r.json.result.status !== 'SUCCESS' ? r.json.result : undefined;
      });
      expect(failed.status).toBe('BUILD_FAILED');
      expect(failed.error_message).toMatch(/^source app-policy find roots: 1 error occurred: app\/authz\.rego:7: rego_parse_error: /);
      const col = BROKEN.split('\n')[6]!.indexOf(')') + 1;
      expect(failed.errors).toHaveLength(1);
      expect(failed.errors[0]).toMatchObject({ file: 'app/authz.rego', row: 7, col, code: 'rego_parse_error', source: 'app-policy' });
      expect(failed.error_message).toContain(failed.errors[0].message);
      const spec = (await s.req('GET', '/v1/bundles/app/status/latest')).json.result;
      expect(spec.error_message).toBe(failed.error_message);
      expect(spec.errors).toBeUndefined();
    }, 90_000);

    it('a type error found by the compile step: the file is the path in the bundle', async () => {
      const text = 'package app\n\nimport rego.v1\n\nallow if nosuch.fn(input.x)\n';
      const files = { 'app/authz.rego': Buffer.from(text).toString('base64') };
      expect((await s.req('PUT', '/v1/sources/app-policy', { body: { files } })).status).toBe(200);
      const failed = await waitFor('the failed compile', 60_000, async () => {
        const r = await s.req('GET', '/v1/bundles/app/status/latest/errors');
        return r.status === 200 && r.json.result.error_message.startsWith('build: ') ? r.json.result : undefined;
      });
      expect(failed.errors.length).toBeGreaterThan(0);
      expect(failed.errors[0]).toMatchObject({ file: '/app-policy/app/authz.rego', row: 5 });
      expect(failed.errors[0].col).toBeGreaterThan(0);
      expect(failed.errors[0].source).toBeUndefined();
      expect(failed.error_message).toContain(`/app-policy/app/authz.rego:5: ${failed.errors[0].code}: `);
    }, 90_000);
  });
}
