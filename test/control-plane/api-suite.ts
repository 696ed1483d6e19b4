// The control plane HTTP API suite (control-plane-api.md §4, §7, §8), written
// once and run against a real listening server on each storage back end
// (api.sqlite.test.ts, api.postgres.test.ts): CRUD of every kind, envelopes,
// name rules, URL-encoded names, pagination, pretty output, in-use deletes,
// invalid references, source data and bundle status records.
import { describe, expect, it } from 'vitest';
import type { Backend, TestServer } from './helpers.js';
import { sharedServer } from './fixture.js';

const CONFIG = `
secrets:
  cfg-secret: {type: token_auth, token: cfg-token-value}
sources:
  cfg-src: {git: {repo: https://example.com/r.git, reference: main, credentials: cfg-secret}}
bundles:
  cfg-bundle: {labels: {env: prod}, object_storage: {filesystem: {path: out/b.tar.gz}}, requirements: [{source: cfg-src}]}
stacks:
  cfg-stack: {selector: {env: [prod]}, requirements: [{source: cfg-src}]}
`;

const fsStorage = { filesystem: { path: 'out/x.tar.gz' } };

export function apiSuite(backend: Backend): void {
  describe(`control plane API on ${backend}`, () => {
    let s: TestServer;
    sharedServer(backend, CONFIG, (server) => (s = server));

    it('serves /health without authentication', async () => {
      const r = await s.req('GET', '/health', { key: null });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({});
    });

    it('loads configuration definitions into the database', async () => {
      expect((await s.req('GET', '/v1/bundles/cfg-bundle')).json.result).toEqual({
        name: 'cfg-bundle',
        labels: { env: 'prod' },
        object_storage: { filesystem: { path: 'out/b.tar.gz' } },
        requirements: [{ source: 'cfg-src' }],
      });
      expect((await s.req('GET', '/v1/stacks/cfg-stack')).json.result.selector).toEqual({ env: ['prod'] });
      expect((await s.req('GET', '/v1/secrets/cfg-secret')).json).toEqual({ result: 'cfg-secret' });
      expect((await s.req('GET', '/v1/sources/cfg-src')).json.result.git.credentials).toBe('cfg-secret');
    });

    it('creates, reads, replaces and deletes a bundle', async () => {
      const body = { labels: { team: 'a' }, object_storage: fsStorage, excluded_files: ['*_test.rego'] };
      const put = await s.req('PUT', '/v1/bundles/b-crud', { body });
      expect(put.status).toBe(200);
      expect(put.json).toEqual({});
      expect(put.contentType).toMatch(/^application\/json/);
      expect((await s.req('GET', '/v1/bundles/b-crud')).json).toEqual({ result: { name: 'b-crud', ...body } });
      await s.req('PUT', '/v1/bundles/b-crud', { body: { name: 'b-crud', labels: { team: 'b' } } });
      expect((await s.req('GET', '/v1/bundles/b-crud')).json.result).toEqual({ name: 'b-crud', labels: { team: 'b' } });
      const list = await s.req('GET', '/v1/bundles');
      expect(list.json.result.map((b: { name: string }) => b.name)).toEqual(['cfg-bundle', 'b-crud']);
      expect(list.json.next_cursor).toBeUndefined();
      expect((await s.req('DELETE', '/v1/bundles/b-crud')).json).toEqual({});
      const gone = await s.req('GET', '/v1/bundles/b-crud');
      expect(gone.status).toBe(404);
      expect(gone.json).toEqual({ code: 'not_found', message: 'bundle "b-crud" not found' });
      expect((await s.req('DELETE', '/v1/bundles/b-crud')).json.code).toBe('not_found');
    });

    it('creates, reads, replaces and deletes sources, stacks and secrets', async () => {
      const src = { git: { repo: 'https://example.com/x.git', reference: 'main' }, requirements: [{ source: 'cfg-src' }] };
      expect((await s.req('PUT', '/v1/sources/s-crud', { body: src })).status).toBe(200);
      expect((await s.req('GET', '/v1/sources/s-crud')).json.result).toEqual({ name: 's-crud', ...src });
      const stack = { selector: { env: ['dev', 'stag*'] }, exclude_selector: { team: ['x'] }, requirements: [{ source: 's-crud' }] };
      expect((await s.req('PUT', '/v1/stacks/st-crud', { body: stack })).status).toBe(200);
      expect((await s.req('GET', '/v1/stacks/st-crud')).json.result).toEqual({ name: 'st-crud', ...stack });
      expect((await s.req('PUT', '/v1/secrets/sec-crud', { body: { value: { type: 'token_auth', token: 't0p' } } })).status).toBe(200);
      expect((await s.req('GET', '/v1/secrets/sec-crud')).json).toEqual({ result: 'sec-crud' });
      expect((await s.req('GET', '/v1/secrets')).json).toEqual({ result: ['cfg-secret', 'sec-crud'] });
      expect(await s.store.getSecretValue('sec-crud')).toEqual({ type: 'token_auth', token: 't0p' });
      for (const p of ['/v1/stacks/st-crud', '/v1/sources/s-crud', '/v1/secrets/sec-crud']) {
        expect((await s.req('DELETE', p)).status).toBe(200);
        expect((await s.req('GET', p)).status).toBe(404);
      }
    });

    it('rejects a body name that differs from the path name (400 invalid_parameter)', async () => {
      const cases: [string, unknown][] = [
        ['/v1/bundles/n1', { name: 'other' }],
        ['/v1/sources/n1', { name: 'other' }],
        ['/v1/stacks/n1', { name: 'other', selector: {} }],
        ['/v1/secrets/n1', { name: 'other', value: { type: 'token_auth', token: 'x' } }],
      ];
      for (const [path, body] of cases) {
        const r = await s.req('PUT', path, { body });
        expect(r.status, path).toBe(400);
        expect(r.json.code).toBe('invalid_parameter');
        expect(r.json.message).toMatch(/name must match path/);
        expect((await s.req('GET', path)).status).toBe(404);
      }
      expect((await s.req('PUT', '/v1/stacks/n2', { body: { name: 'n2', selector: {} } })).status).toBe(200);
      expect((await s.req('DELETE', '/v1/stacks/n2')).status).toBe(200);
    });

    it('rejects invalid bodies with 400 invalid_parameter', async () => {
      const bad: [string, { raw?: string; body?: unknown }][] = [
        ['/v1/bundles/bad', { raw: '{not json' }],
        ['/v1/bundles/bad', { raw: '' }],
        ['/v1/bundles/bad', { body: [1, 2] }],
        ['/v1/bundles/bad', { body: { labels: { a: 1 } } }],
        ['/v1/bundles/bad', { body: { object_storage: { filesystem: { path: 'a' }, aws: { bucket: 'b', key: 'k', region: 'r' } } } }],
        ['/v1/bundles/bad', { body: { object_storage: { aws: { bucket: 'b', key: 'k' } } } }],
        ['/v1/bundles/bad', { body: { object_storage: {} } }],
        ['/v1/sources/bad', { body: { git: { reference: 'main' } } }],
        ['/v1/stacks/bad', { body: { selector: { a: 'not-a-list' } } }],
        ['/v1/secrets/bad', { body: { value: 'plain' } }],
      ];
      for (const [path, opts] of bad) {
        const r = await s.req('PUT', path, opts);
        expect(r.status, `${path} ${JSON.stringify(opts)}`).toBe(400);
        expect(r.json.code).toBe('invalid_parameter');
        expect(typeof r.json.message).toBe('string');
      }
    });

    it('ignores unknown body fields', async () => {
      expect((await s.req('PUT', '/v1/bundles/extra', { body: { labels: {}, surprise: 1 } })).status).toBe(200);
      expect((await s.req('GET', '/v1/bundles/extra')).json.result).toEqual({ name: 'extra', labels: {} });
      await s.req('DELETE', '/v1/bundles/extra');
    });

    it('handles URL-encoded names of every kind', async () => {
      const name = 'team a/b%c?d#e';
      const enc = encodeURIComponent(name);
      await s.req('PUT', `/v1/secrets/${enc}`, { body: { value: { type: 'token_auth', token: 'x' } } });
      await s.req('PUT', `/v1/sources/${enc}`, { body: { git: { repo: 'https://e/x.git', reference: 'main', credentials: name } } });
      await s.req('PUT', `/v1/stacks/${enc}`, { body: { name, selector: {}, requirements: [{ source: name }] } });
      await s.req('PUT', `/v1/bundles/${enc}`, { body: { name, requirements: [{ source: name }] } });
      for (const kind of ['bundles', 'sources', 'stacks']) {
        expect((await s.req('GET', `/v1/${kind}/${enc}`)).json.result.name).toBe(name);
        expect((await s.req('GET', `/v1/${kind}`)).json.result.map((d: { name: string }) => d.name)).toContain(name);
      }
      expect((await s.req('GET', `/v1/secrets/${enc}`)).json.result).toBe(name);
      expect((await s.req('PUT', `/v1/sources/${enc}/data/x%2Fy/z`, { body: { v: 1 } })).status).toBe(200);
      expect((await s.req('GET', `/v1/sources/${enc}/data/x/y/z`)).json).toEqual({ result: { v: 1 } });
      for (const kind of ['bundles', 'stacks', 'sources', 'secrets']) {
        expect((await s.req('DELETE', `/v1/${kind}/${enc}`)).status, kind).toBe(200);
      }
    });

    it('paginates lists with limit, opaque cursor and next_cursor', async () => {
      for (let i = 0; i < 25; i++) {
        await s.req('PUT', `/v1/stacks/p${String(i).padStart(2, '0')}`, { body: { selector: { k: [String(i)] } } });
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const r = await s.req('GET', `/v1/stacks?limit=10${q}`);
        expect(r.status).toBe(200);
        expect(r.json.result.length).toBeLessThanOrEqual(10);
        seen.push(...r.json.result.map((d: { name: string }) => d.name));
        cursor = r.json.next_cursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual(['cfg-stack', ...Array.from({ length: 25 }, (_, i) => `p${String(i).padStart(2, '0')}`)]);
      const exact = await s.req('GET', '/v1/stacks?limit=26');
      expect(exact.json.result).toHaveLength(26);
      expect(exact.json.next_cursor).toBeUndefined();
      const bad = await s.req('GET', '/v1/stacks?cursor=not-a-cursor!');
      expect(bad.status).toBe(400);
      expect(bad.json.code).toBe('invalid_parameter');
      for (let i = 0; i < 25; i++) await s.req('DELETE', `/v1/stacks/p${String(i).padStart(2, '0')}`);
    });

    it('defaults limit to 100 and never returns more than 100', async () => {
      for (let i = 0; i < 105; i++) await s.req('PUT', `/v1/secrets/many${i}`, { body: { value: { type: 'token_auth', token: 'x' } } });
      for (const q of ['', '?limit=1000', '?limit=abc', '?limit=0', '?limit=-5']) {
        const r = await s.req('GET', `/v1/secrets${q}`);
        expect(r.json.result, q).toHaveLength(100);
        expect(typeof r.json.next_cursor).toBe('string');
        const rest = await s.req('GET', `/v1/secrets?cursor=${r.json.next_cursor}`);
        expect(rest.json.result).toHaveLength(6);
        expect(rest.json.next_cursor).toBeUndefined();
      }
      for (let i = 0; i < 105; i++) await s.req('DELETE', `/v1/secrets/many${i}`);
    });

    it('pretty-prints with ?pretty or ?pretty=true only', async () => {
      for (const q of ['?pretty', '?pretty=', '?pretty=true', '?pretty=TRUE']) {
        const r = await s.req('GET', `/v1/bundles/cfg-bundle${q}`);
        expect(r.text, q).toMatch(/^\{\n {2}"result": \{\n {4}"name": "cfg-bundle"/);
      }
      const compact = await s.req('GET', '/v1/bundles/cfg-bundle?pretty=false');
      expect(compact.text.startsWith('{"result":{"name":"cfg-bundle"')).toBe(true);
      expect((await s.req('GET', '/v1/secrets?pretty')).text).toBe('{\n  "result": [\n    "cfg-secret"\n  ]\n}\n');
    });

    it('refuses to delete sources and secrets that are in use (409 conflict)', async () => {
      await s.req('PUT', '/v1/secrets/use-sec', { body: { value: { type: 'token_auth', token: 'x' } } });
      await s.req('PUT', '/v1/secrets/use-ds', { body: { value: { type: 'token_auth', token: 'x' } } });
      await s.req('PUT', '/v1/sources/base', { body: {} });
      await s.req('PUT', '/v1/sources/mid', {
        body: { requirements: [{ source: 'base' }], datasources: [{ name: 'd', path: 'p', type: 'http', config: { url: 'https://e' }, credentials: 'use-ds' }] },
      });
      await s.req('PUT', '/v1/bundles/user', {
        body: { object_storage: { aws: { bucket: 'b', key: 'k', region: 'r', credentials: 'use-sec' } }, requirements: [{ source: 'mid' }] },
      });
      await s.req('PUT', '/v1/stacks/user', { body: { selector: {}, requirements: [{ source: 'mid' }] } });
      const expectInUse = async (path: string, by: RegExp): Promise<void> => {
        const r = await s.req('DELETE', path);
        expect(r.status, path).toBe(409);
        expect(r.json.code).toBe('conflict');
        expect(r.json.message).toMatch(by);
        expect((await s.req('GET', path)).status).toBe(200);
      };
      await expectInUse('/v1/sources/base', /in use by source "mid"/);
      await expectInUse('/v1/sources/mid', /in use by bundle "user", stack "user"/);
      await expectInUse('/v1/secrets/use-sec', /in use by bundle "user"/);
      await expectInUse('/v1/secrets/use-ds', /in use by source "mid"/);
      await expectInUse('/v1/secrets/cfg-secret', /in use by source "cfg-src"/);
      for (const p of ['/v1/bundles/user', '/v1/secrets/use-sec', '/v1/stacks/user', '/v1/sources/mid', '/v1/secrets/use-ds', '/v1/sources/base']) {
        expect((await s.req('DELETE', p)).status, p).toBe(200);
      }
    });

    it('links a secret created after the source that names it', async () => {
      await s.req('PUT', '/v1/sources/early', { body: { git: { repo: 'https://e/x.git', reference: 'main', credentials: 'late' } } });
      await s.req('PUT', '/v1/secrets/late', { body: { value: { type: 'token_auth', token: 'x' } } });
      expect((await s.req('DELETE', '/v1/secrets/late')).status).toBe(409);
      await s.req('PUT', '/v1/sources/early', { body: { git: { repo: 'https://e/x.git', reference: 'main' } } });
      expect((await s.req('DELETE', '/v1/secrets/late')).status).toBe(200);
      await s.req('DELETE', '/v1/sources/early');
    });

    it('rejects references to missing sources and secrets (422) and requirement cycles (400)', async () => {
      const cases: [string, unknown][] = [
        ['/v1/bundles/r1', { requirements: [{ source: 'nope' }] }],
        ['/v1/bundles/r1', { object_storage: { gcp: { project: 'p', bucket: 'b', object: 'o', credentials: 'nope' } } }],
        ['/v1/sources/r1', { requirements: [{ source: 'nope' }] }],
        ['/v1/stacks/r1', { selector: {}, requirements: [{ source: 'nope' }] }],
      ];
      for (const [path, body] of cases) {
        const r = await s.req('PUT', path, { body });
        expect(r.status, path).toBe(422);
        expect(r.json.code).toBe('invalid_reference');
        expect(r.json.message).toContain('"nope" does not exist');
        expect((await s.req('GET', path)).status).toBe(404);
      }
      await s.req('PUT', '/v1/sources/c1', { body: {} });
      await s.req('PUT', '/v1/sources/c2', { body: { requirements: [{ source: 'c1' }] } });
      const cyc = await s.req('PUT', '/v1/sources/c1', { body: { requirements: [{ source: 'c2' }] } });
      expect(cyc.status).toBe(400);
      expect(cyc.json.message).toMatch(/cycle/);
      expect((await s.req('GET', '/v1/sources/c1')).json.result).toEqual({ name: 'c1' });
      await s.req('DELETE', '/v1/sources/c2');
      await s.req('DELETE', '/v1/sources/c1');
    });

    it('stores source data at any path as <path>/data.json', async () => {
      expect((await s.req('PUT', '/v1/sources/cfg-src/data/users/eu', { body: { alice: { role: 'admin' } } })).status).toBe(200);
      expect((await s.req('POST', '/v1/sources/cfg-src/data/flags', { body: [true, 1, 'x'] })).status).toBe(200);
      expect((await s.req('GET', '/v1/sources/cfg-src/data/users/eu')).json).toEqual({ result: { alice: { role: 'admin' } } });
      expect((await s.req('GET', '/v1/sources/cfg-src/data/users/eu/')).json).toEqual({ result: { alice: { role: 'admin' } } });
      expect((await s.req('GET', '/v1/sources/cfg-src/data/missing')).json).toEqual({});
      expect(await s.store.listSourceData('cfg-src')).toEqual([
        { path: 'flags', value: [true, 1, 'x'] },
        { path: 'users/eu', value: { alice: { role: 'admin' } } },
      ]);
      expect((await s.req('PUT', '/v1/sources/cfg-src/data/a%2F..%2Fb', { body: 1 })).status).toBe(400);
      expect((await s.req('PUT', '/v1/sources/cfg-src/data/x', { raw: '' })).status).toBe(400);
      expect((await s.req('GET', '/v1/sources/nosuch/data/x')).status).toBe(404);
      expect((await s.req('PUT', '/v1/sources/nosuch/data/x', { body: 1 })).json.code).toBe('not_found');
      expect((await s.req('DELETE', '/v1/sources/cfg-src/data/users/eu')).json).toEqual({});
      expect((await s.req('DELETE', '/v1/sources/cfg-src/data/users/eu')).status).toBe(200);
      expect((await s.req('GET', '/v1/sources/cfg-src/data/users/eu')).json).toEqual({});
      await s.req('DELETE', '/v1/sources/cfg-src/data/flags');
    });

    it('notifies the build scheduler after every change that affects bundles', async () => {
      s.scheduler.calls = [];
      await s.req('PUT', '/v1/bundles/nb', { body: {} });
      await s.req('PUT', '/v1/sources/cfg-src/data/n', { body: 1 });
      await s.req('PUT', '/v1/stacks/ns', { body: { selector: {} } });
      await s.req('PUT', '/v1/bundles/nb', { body: { name: 'wrong' } });
      await s.req('DELETE', '/v1/bundles/nb');
      await s.req('DELETE', '/v1/stacks/ns');
      await s.req('DELETE', '/v1/sources/cfg-src/data/n');
      expect(s.scheduler.calls).toEqual([['nb'], undefined, undefined, ['nb'], undefined, undefined]);
    });

    it('serves bundle status records: latest, list, revision filter and limits', async () => {
      await s.req('PUT', '/v1/bundles/st', { body: {} });
      expect((await s.req('GET', '/v1/bundles/st/status/latest')).status).toBe(404);
      const t = '2026-01-01T00:00:00.000Z';
      for (let i = 1; i <= 12; i++) {
        await s.store.addStatus({ bundle_name: 'st', revision: `r${i}`, phase: 'PUSH', status: 'SUCCESS', created_at: t });
      }
      await s.store.addStatus({ bundle_name: 'st', revision: 'r12', phase: 'PUSH', status: 'PUSH_FAILED', error_message: 'boom', created_at: t });
      const latest = await s.req('GET', '/v1/bundles/st/status/latest');
      expect(latest.json.result).toMatchObject({ bundle_name: 'st', revision: 'r12', phase: 'PUSH', status: 'PUSH_FAILED', error_message: 'boom', created_at: t });
      const list = await s.req('GET', '/v1/bundles/st/status');
      expect(list.json.result.map((r: { revision: string }) => r.revision)).toEqual(['r12', 'r11', 'r10', 'r9', 'r8', 'r7', 'r6', 'r5', 'r4', 'r3']);
      expect((await s.req('GET', '/v1/bundles/st/status?limit=50')).json.result).toHaveLength(10);
      expect((await s.req('GET', '/v1/bundles/st/status?limit=0')).json.result).toHaveLength(10);
      expect((await s.req('GET', '/v1/bundles/st/status?limit=2')).json.result).toHaveLength(2);
      expect((await s.req('GET', '/v1/bundles/st/status?revision=r7')).json.result.map((r: { revision: string }) => r.revision)).toEqual(['r7']);
      expect((await s.req('GET', '/v1/bundles/st/status?revision=')).json.result).toHaveLength(10);
      const bad = await s.req('GET', '/v1/bundles/st/status?limit=abc');
      expect(bad.status).toBe(400);
      expect(bad.json.code).toBe('invalid_parameter');
      expect((await s.req('GET', '/v1/bundles/unknown/status')).json).toEqual({ result: [] });
      expect((await s.req('GET', '/v1/bundles/unknown/status/latest')).json.code).toBe('not_found');
      await s.req('DELETE', '/v1/bundles/st');
      expect((await s.req('GET', '/v1/bundles/st/status')).json).toEqual({ result: [] });
    });

    it('answers unknown routes with a JSON 404', async () => {
      const r = await s.req('GET', '/v1/unknown');
      expect(r.status).toBe(404);
      expect(r.json.code).toBe('not_found');
    });
  });
}
