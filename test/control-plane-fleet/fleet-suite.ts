// Black-box HTTP tests of the fleet extensions (status reports, /v1/fleet,
// /v1/fleet/bundles, rebuild, stacks preview), run against a real listening
// control plane on SQLite (fleet.sqlite.test.ts) and PostgreSQL
// (fleet.postgres.test.ts). Reports are posted as OPA's status plugin posts
// them. Build status records come from the store's addStatus, the builder's own
// entry point, because this suite runs with the recording scheduler; real builds
// and a real engine are in engine.test.ts.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../server/control-plane/config/load.js';
import { sharedFixture } from '../control-plane/fixture.js';
import { KEYS, type Backend, type TestServer } from '../control-plane/helpers.js';
import { ENGINE_KEYS, opaReport, sleep, startFleetServer } from './helpers.js';

const CONFIG = `
bundles:
  app: {labels: {env: prod, team: a}}
  lib: {labels: {env: dev, team: a}}
  tools: {labels: {env: prod, team: b}}
`;

export function fleetSuite(backend: Backend): void {
  describe(`fleet API (${backend})`, () => {
    let s: TestServer;
    sharedFixture(
      async () => {
        s = await startFleetServer(backend, CONFIG, { bodyLimit: 256 * 1024 });
      },
      async () => s?.close(),
    );
    const post = (path: string, body: unknown, key: string = ENGINE_KEYS.engine) => s.req('POST', path, { key, body });

    it('accepts OPA reports at /status, /status/ (OPA without partition), /status/{partition} and under /v1', async () => {
      for (const [i, path] of ['/status', '/status/', '/status/east', '/v1/status', '/v1/status/', '/v1/status/west'].entries()) {
        const r = await post(path, opaReport(`paths-${i}`, { app: { revision: 'r1' } }));
        expect(r.status, path).toBe(200);
        expect(r.json).toEqual({});
      }
      const ids = (await s.req('GET', '/v1/fleet')).json.result.map((e: { id: string }) => e.id);
      expect(ids.filter((id: string) => id.startsWith('paths-'))).toEqual(['paths-0', 'paths-1', 'paths-2', 'paths-3', 'paths-4', 'paths-5']);
    });

    it('lists engines sorted by id with labels, times, revisions, plugins and errors', async () => {
      await post('/status', opaReport('list-b', { app: { revision: 'r1' }, lib: { revision: 'l1' } }, undefined, { region: 'eu' }));
      await post('/status', opaReport('list-a', { app: { revision: 'r0' } }));
      const list = (await s.req('GET', '/v1/fleet')).json.result as Record<string, any>[];
      const ids = list.map((e) => e.id);
      expect(ids).toEqual([...ids].sort());
      const b = list.find((e) => e.id === 'list-b')!;
      expect(b.labels).toEqual({ id: 'list-b', version: '1.4.2', region: 'eu' });
      expect(b.stale).toBe(false);
      expect(Date.parse(b.first_seen)).toBeGreaterThan(Date.now() - 60_000);
      expect(b.first_seen).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      expect(b.bundles.app.active_revision).toBe('r1');
      expect(b.bundles.lib.active_revision).toBe('l1');
      expect(b.bundles.app.last_successful_activation).not.toBe('');
      expect(b.plugins).toEqual({ bundle: { state: 'OK' }, status: { state: 'OK' } });
      expect(b.errors).toEqual([]);
      expect(b.report).toBeUndefined();
    });

    it('keeps first_seen, moves last_seen, replaces the report', async () => {
      await post('/status', opaReport('seen', { app: { revision: 'r1' } }));
      const first = (await s.req('GET', '/v1/fleet/seen')).json.result;
      await sleep(20);
      await post('/status', opaReport('seen', { app: { revision: 'r2' } }));
      const second = (await s.req('GET', '/v1/fleet/seen')).json.result;
      expect(second.first_seen).toBe(first.first_seen);
      expect(Date.parse(second.last_seen)).toBeGreaterThan(Date.parse(first.last_seen));
      expect(second.bundles.app.active_revision).toBe('r2');
      expect(second.report.bundles.app.active_revision).toBe('r2');
    });

    it('summarises bundle, plugin and decision-log errors', async () => {
      const report = opaReport(
        'broken',
        { app: { revision: 'r1', code: 'bundle_error', message: 'server replied with Not Found', errors: ['policy.rego:3: rego_parse_error: unexpected eof'] }, lib: { activated: false } },
        { bundle: { state: 'NOT_READY' }, decision_logs: { state: 'ERROR', message: 'upload failed' } },
      );
      report.decision_logs = { code: 'decision_logs_error', message: 'server replied with 500' };
      // OPA's activation errors are ast.Error objects.
      (report.bundles as any).lib.code = 'bundle_error';
      (report.bundles as any).lib.message = '1 error occurred during compilation';
      (report.bundles as any).lib.errors = [{ code: 'rego_type_error', message: 'undefined function foo', location: { file: '/lib/x.rego', row: 7, col: 3 } }];
      expect((await post('/status', report)).status).toBe(200);
      const e = (await s.req('GET', '/v1/fleet/broken')).json.result;
      expect(e.errors).toEqual([
        'bundle app: bundle_error: server replied with Not Found',
        'bundle app: policy.rego:3: rego_parse_error: unexpected eof',
        'bundle lib: bundle_error: 1 error occurred during compilation',
        'bundle lib: /lib/x.rego:7:3: rego_type_error: undefined function foo',
        'decision_logs: decision_logs_error: server replied with 500',
        'plugin decision_logs: ERROR: upload failed',
      ]);
      expect(e.bundles.app).toMatchObject({ active_revision: 'r1', code: 'bundle_error', errors: ['policy.rego:3: rego_parse_error: unexpected eof'] });
      expect(e.bundles.lib).toMatchObject({ active_revision: '', last_successful_activation: '', code: 'bundle_error' });
      expect(e.report).toEqual(JSON.parse(JSON.stringify(report)));
    });

    it('returns 404 not_found for an unknown engine id', async () => {
      const r = await s.req('GET', '/v1/fleet/no-such-engine');
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ code: 'not_found', message: 'engine "no-such-engine" not found' });
    });

    it('rejects bad report bodies with 400 invalid_parameter', async () => {
      const bad: [string, string | undefined][] = [
        ['{not json', undefined],
        ['[]', 'body must be a JSON object'],
        ['{}', 'labels must be an object'],
        ['{"labels": {"version": "1"}}', 'labels.id must be a non-empty string'],
        ['{"labels": {"id": ""}}', 'labels.id must be a non-empty string'],
        ['{"labels": {"id": "x", "n": 1}}', 'labels.n must be a string'],
        ['{"labels": {"id": "x"}, "bundles": []}', 'bundles must be an object'],
        ['{"labels": {"id": "x"}, "bundles": {"a": {"active_revision": 7}}}', 'bundles.a.active_revision must be a string'],
        ['{"labels": {"id": "x"}, "plugins": {"p": {}}}', 'plugins.p must be an object with a string state'],
        [`{"labels": {"id": "x"}, "metrics": ${'['.repeat(100)}${']'.repeat(100)}}`, 'nested deeper than 64 levels'],
      ];
      for (const [raw, message] of bad) {
        const r = await s.req('POST', '/status', { key: ENGINE_KEYS.engine, raw });
        expect(r.status, raw.slice(0, 40)).toBe(400);
        expect(r.json.code).toBe('invalid_parameter');
        if (message) expect(r.json.message).toContain(message);
      }
      const big = opaReport('big', { app: { revision: 'r' } });
      big.metrics = { pad: 'x'.repeat(300 * 1024) };
      const r = await post('/status', big);
      expect(r.status).toBe(413);
      expect(r.json.code).toBe('invalid_parameter');
      expect((await s.req('GET', '/v1/fleet/x')).status).toBe(404);
    });

    it('applies the roles: engine only reports, viewer reads, owners get 403, no key gets 401', async () => {
      expect((await post('/status', opaReport('role-admin', {}), KEYS.admin)).status).toBe(200);
      for (const key of [KEYS.viewer, KEYS.owner1, KEYS.stacker]) {
        const r = await post('/status', opaReport('role-x', {}), key);
        expect(r.status).toBe(403);
        expect(r.json.code).toBe('not_authorized');
      }
      for (const path of ['/v1/fleet', '/v1/fleet/bundles', '/v1/fleet/role-admin']) {
        expect((await s.req('GET', path, { key: KEYS.viewer })).status, path).toBe(200);
        for (const key of [KEYS.owner1, KEYS.stacker, ENGINE_KEYS.engine]) {
          const r = await s.req('GET', path, { key });
          expect(r.status, `${path} ${key}`).toBe(403);
          expect(r.json.code).toBe('not_authorized');
        }
      }
      for (const [method, path] of [['GET', '/v1/bundles'], ['GET', '/v1/bundles/app'], ['GET', '/v1/sources'], ['PUT', '/v1/secrets/s'], ['POST', '/v1/bundles/app/rebuild'], ['POST', '/v1/stacks-preview']] as const) {
        const r = await s.req(method, path, { key: ENGINE_KEYS.engine, ...(method === 'GET' ? {} : { body: {} }) });
        expect(r.status, `${method} ${path}`).toBe(403);
      }
      for (const path of ['/status', '/v1/status', '/v1/fleet']) {
        const r = path === '/v1/fleet' ? await s.req('GET', path, { key: null }) : await s.req('POST', path, { key: null, body: opaReport('anon', {}) });
        expect(r.status).toBe(401);
        expect(r.contentType).toMatch(/^text\/plain/);
        expect(r.text).toBe('Unauthorized');
      }
      expect((await s.req('GET', '/v1/fleet/anon')).status).toBe(404);
    });

    it('rebuild queues a build (202) for writers; viewer 403; unknown bundle 404', async () => {
      const before = s.scheduler.calls.length;
      const r = await s.req('POST', '/v1/bundles/app/rebuild');
      expect(r.status).toBe(202);
      expect(r.json).toEqual({});
      expect(s.scheduler.calls.slice(before)).toEqual([['app']]);
      const v = await s.req('POST', '/v1/bundles/app/rebuild', { key: KEYS.viewer });
      expect(v.status).toBe(403);
      expect(v.json.code).toBe('not_authorized');
      expect((await s.req('POST', '/v1/bundles/app/rebuild', { key: KEYS.owner1 })).status).toBe(403);
      expect((await s.req('POST', '/v1/bundles/nope/rebuild', { key: KEYS.viewer })).status).toBe(403);
      const missing = await s.req('POST', '/v1/bundles/nope/rebuild');
      expect(missing.status).toBe(404);
      expect(missing.json.code).toBe('not_found');
      // An owner may rebuild the bundle it created.
      expect((await s.req('PUT', '/v1/bundles/owned', { key: KEYS.owner1, body: { labels: { env: 'prod' } } })).status).toBe(200);
      expect((await s.req('POST', '/v1/bundles/owned/rebuild', { key: KEYS.owner1 })).status).toBe(202);
      expect(s.scheduler.calls.at(-1)).toEqual(['owned']);
      expect(s.scheduler.calls.slice(before)).not.toContainEqual(['nope']);
    });

    it('stacks-preview matches bundles with the builder selector rules', async () => {
      const preview = async (body: unknown, key: string = KEYS.admin) => s.req('POST', '/v1/stacks-preview', { key, body });
      const names = async (body: unknown, key?: string) => (await preview(body, key)).json.result.bundles as string[];
      const all = ['app', 'lib', 'tools', ...((await s.req('GET', '/v1/bundles/owned')).status === 200 ? ['owned'] : [])].sort();
      expect(await names({ selector: { env: ['prod'] } })).toEqual(all.filter((n) => n !== 'lib'));
      expect(await names({ selector: { env: ['prod'], team: ['a'] } })).toEqual(['app']);
      expect(await names({ selector: { env: ['p*'] }, exclude_selector: { team: ['b'] } })).toEqual(all.filter((n) => n !== 'lib' && n !== 'tools'));
      expect(await names({ selector: { team: [] } })).toEqual(['app', 'lib', 'tools']);
      expect(await names({})).toEqual(all);
      expect(await names({ selector: {}, exclude_selector: {} })).toEqual([]);
      expect(await names({ selector: { env: ['prod'] } }, KEYS.viewer)).toEqual(all.filter((n) => n !== 'lib'));
      expect(await names({ selector: {} }, KEYS.owner2)).toEqual([]);
      for (const body of [{ selector: { env: 'prod' } }, { selector: [] }, []]) {
        const r = await preview(body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.json.code).toBe('invalid_parameter');
      }
    });

    it('fleet/bundles: latest build, engines serving it, behind, time to first serve', async () => {
      const builtAt = new Date(Date.now() - 5000).toISOString();
      await s.store.addStatus({ bundle_name: 'tools', revision: 't1', phase: 'PUSH', status: 'SUCCESS', created_at: new Date(Date.now() - 9000).toISOString() });
      await s.store.addStatus({ bundle_name: 'tools', revision: 't2', phase: 'PUSH', status: 'SUCCESS', created_at: builtAt });
      await s.store.addStatus({ bundle_name: 'tools', revision: 't3', phase: 'BUILD', status: 'BUILD_FAILED', error_message: 'x.rego:1: rego_parse_error', created_at: new Date().toISOString() });
      await post('/status', opaReport('tools-old', { tools: { revision: 't1' } }));
      await post('/status', opaReport('tools-new', { tools: { revision: 't2' } }));
      await post('/status', opaReport('tools-never', { tools: { activated: false } }));
      await post('/status', opaReport('tools-new2', { tools: { revision: 't2' } }));
      const result = (await s.req('GET', '/v1/fleet/bundles')).json.result as Record<string, any>[];
      expect(result.map((b) => b.bundle)).toEqual([...result.map((b) => b.bundle)].sort());
      const tools = result.find((b) => b.bundle === 'tools')!;
      expect(tools).toMatchObject({ latest_revision: 't2', built_at: builtAt, engines: 4, serving_latest: 2 });
      expect(tools.behind.sort()).toEqual(['tools-never', 'tools-old']);
      const firstServe = (await s.req('GET', '/v1/fleet/tools-new')).json.result.first_seen;
      expect(tools.first_served_at).toBe(firstServe);
      expect(tools.seconds_to_first_serve).toBeCloseTo((Date.parse(firstServe) - Date.parse(builtAt)) / 1000, 3);
      expect(tools.seconds_to_first_serve).toBeGreaterThanOrEqual(5);
      expect(tools).toMatchObject({ stale: [], stale_behind: [] });
      const lib = result.find((b) => b.bundle === 'lib')!;
      expect(lib).toMatchObject({ latest_revision: null, built_at: null });
      expect(lib.first_served_at).toBeUndefined();
      // Never built: the engines serving it (list-b reports lib l1) are counted, none is behind.
      expect(lib.engines).toBeGreaterThan(0);
      expect(lib).toMatchObject({ serving_latest: 0, behind: [], stale_behind: [] });
    });

    it('rejects invalid fleet durations in the configuration', () => {
      expect(parseConfigText('fleet: {stale_after: 90s}').fleet).toEqual({ staleAfterMs: 90_000, forgetAfterMs: 168 * 3_600_000 });
      expect(() => parseConfigText('fleet: {stale_after: soon}')).toThrow(/fleet.stale_after: "soon" is not a positive duration/);
      expect(() => parseConfigText('fleet: {stale_after: 10m, forget_after: 5m}')).toThrow(/forget_after must be longer/);
      expect(() => parseConfigText('fleet: {stale: 1s}')).toThrow(/configuration validation error/);
      expect(parseConfigText('tokens: {e: {api_key: k, scopes: [{role: engine}]}}').tokens[0]!.role).toBe('engine');
    });
  });

  describe(`fleet under service.api_prefix (${backend})`, () => {
    let s: TestServer;
    sharedFixture(
      async () => {
        s = await startFleetServer(backend, `${CONFIG}service: {api_prefix: /cp}\n`);
      },
      async () => s?.close(),
    );

    it('takes reports at <prefix>/status and <prefix>/v1/status; the engine role still reads nothing', async () => {
      for (const [i, path] of ['/cp/status/', '/cp/status', '/cp/v1/status/p'].entries()) {
        expect((await s.req('POST', path, { key: ENGINE_KEYS.engine, body: opaReport(`pfx-${i}`, {}) })).status, path).toBe(200);
      }
      expect((await s.req('POST', '/status', { key: ENGINE_KEYS.engine, body: opaReport('nopfx', {}) })).status).toBe(404);
      expect((await s.req('GET', '/cp/v1/fleet', { key: ENGINE_KEYS.engine })).status).toBe(403);
      const r = await s.req('GET', '/cp/v1/fleet?pretty', { key: KEYS.viewer });
      expect(r.text).toContain('\n  "result": [');
      expect(r.json.result.map((e: { id: string }) => e.id)).toEqual(['pfx-0', 'pfx-1', 'pfx-2']);
    });
  });

  describe(`fleet staleness (${backend})`, () => {
    let s: TestServer;
    sharedFixture(
      async () => {
        s = await startFleetServer(backend, `${CONFIG}fleet: {stale_after: 1500ms, forget_after: 4s}\n`);
      },
      async () => s?.close(),
    );

    it('marks engines stale after stale_after, lists them apart in rollouts, forgets them after forget_after', async () => {
      await s.store.addStatus({ bundle_name: 'app', revision: 'a1', phase: 'PUSH', status: 'SUCCESS', created_at: new Date().toISOString() });
      const report = (id: string) => s.req('POST', '/status', { key: ENGINE_KEYS.engine2, body: opaReport(id, { app: { revision: 'a0' } }) });
      await report('quiet');
      const fresh = (await s.req('GET', '/v1/fleet/quiet')).json.result;
      expect(fresh.stale).toBe(false);
      expect((await s.req('GET', '/v1/fleet/bundles')).json.result.find((b: any) => b.bundle === 'app').behind).toEqual(['quiet']);
      await sleep(1700);
      await report('chatty');
      const list = (await s.req('GET', '/v1/fleet')).json.result as { id: string; stale: boolean }[];
      expect(list.map((e) => [e.id, e.stale])).toEqual([['chatty', false], ['quiet', true]]);
      expect((await s.req('GET', '/v1/fleet/quiet')).json.result.stale).toBe(true);
      const app = (await s.req('GET', '/v1/fleet/bundles')).json.result.find((b: any) => b.bundle === 'app');
      // A stale engine on an old revision is not counted, but listed: stale and behind.
      expect(app).toMatchObject({ engines: 1, serving_latest: 0, behind: ['chatty'], stale: ['quiet'], stale_behind: ['quiet'] });
      const gauge = (await s.req('GET', '/metrics', { key: null })).text;
      expect(gauge).toContain('# TYPE regent_fleet_engines gauge');
      expect(gauge).toMatch(/^regent_fleet_engines\{state="live"\} 1$/m);
      expect(gauge).toMatch(/^regent_fleet_engines\{state="stale"\} 1$/m);
      await sleep(2600);
      await report('chatty');
      expect((await s.req('GET', '/v1/fleet/quiet')).status).toBe(404);
      expect((await s.req('GET', '/v1/fleet')).json.result.map((e: { id: string }) => e.id)).toEqual(['chatty']);
      expect((await s.req('GET', '/metrics', { key: null })).text).toMatch(/^regent_fleet_engines\{state="stale"\} 0$/m);
    });
  });
}
