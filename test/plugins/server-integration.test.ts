// One end-to-end check with the real engine server: the bundle plugin downloads
// a bundle from a local HTTP server and activates it through the EngineHost,
// queries see it, /health?bundles turns healthy, a corrupt update keeps the old
// bundle, and decisions are uploaded to the same service's /logs.
import { afterEach, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { writeBundle, type Bundle } from '../../runtime/bundles/index.js';
import { fromJS } from '../../runtime/value/index.js';
import { buildServer } from '../../server/index.js';
import { loadConfig } from '../../server/config/config.js';
import { startPlugins } from '../../server/plugins/index.js';
import { startServer, waitFor } from './helpers.js';

const bundle = (rev: string, admin: string): Bundle => ({
  manifest: { revision: rev, roots: ['app'] },
  modules: [{ path: '/app/authz.rego', text: 'package app\n\ndefault allow := false\n\nallow if input.user == data.app.admin\n' }],
  data: fromJS({ app: { admin } }),
});

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups) await c();
  cleanups = [];
});

describe('plugins with the engine server', () => {
  it('downloads, activates, serves and logs decisions', async () => {
    let current = { body: await writeBundle(bundle('one', 'alice')), etag: '"1"' };
    const logs: unknown[] = [];
    const remote = await startServer((req, body, res) => {
      if (req.url === '/logs') {
        logs.push(...(JSON.parse(gunzipSync(body).toString('utf8')) as unknown[]));
        res.statusCode = 204;
        return void res.end();
      }
      if (req.headers['if-none-match'] === current.etag) {
        res.statusCode = 304;
        return void res.end();
      }
      res.writeHead(200, { etag: current.etag, 'content-type': 'application/gzip' });
      res.end(current.body);
    });
    cleanups.push(() => remote.close());

    const config = loadConfig({
      text: JSON.stringify({
        services: { cp: { url: remote.url } },
        bundles: { authz: { service: 'cp', polling: { min_delay_seconds: 0.02, max_delay_seconds: 0.05 } } },
        decision_logs: { service: 'cp', reporting: { min_delay_seconds: 3600, max_delay_seconds: 7200 } },
      }),
      version: 'test',
    });
    const app = await buildServer({ config });
    const plugins = await startPlugins(config.document, app.regent.host);
    app.regent.attachPlugins(plugins);
    cleanups.unshift(() => app.close());

    const allow = async (user: string): Promise<unknown> => {
      const r = await app.inject({ method: 'POST', url: '/v1/data/app/allow', payload: { input: { user } } });
      return (JSON.parse(r.body) as { result?: unknown }).result;
    };
    await waitFor(() => app.regent.host.activeBundles().length === 1, 10000, 'activation');
    expect(await allow('alice')).toBe(true);
    expect(await allow('bob')).toBe(false);
    expect((await app.inject({ method: 'GET', url: '/health?bundles' })).statusCode).toBe(200);

    current = { body: Buffer.from('garbage'), etag: '"2"' };
    await waitFor(() => plugins.downloaders.get('authz')!.status().code === 'bundle_error', 5000, 'error status');
    expect(await allow('alice')).toBe(true);

    current = { body: await writeBundle(bundle('three', 'bob')), etag: '"3"' };
    await waitFor(() => plugins.downloaders.get('authz')!.status().active_revision === 'three', 5000, 'revision three');
    expect(await allow('bob')).toBe(true);

    expect(await plugins.flushDecisionLogs()).toBe(true);
    const paths = logs.map((e) => (e as { path?: string }).path);
    expect(paths.length).toBeGreaterThanOrEqual(4);
    expect(paths.every((p) => p === 'app/allow' || p === '/app/allow')).toBe(true);
    expect((logs[0] as { bundles?: unknown }).bundles).toEqual({ authz: { revision: 'one' } });

    // The reply carries the decision id of the logged event, fields in OPA's order.
    const r = await app.inject({ method: 'POST', url: '/v1/data/app/allow', payload: { input: { user: 'bob' } } });
    expect(r.body).toMatch(/^\{"result":true,"decision_id":"[0-9a-f-]{36}"\}\n$/);
    const undefinedDoc = await app.inject({ method: 'POST', url: '/v1/data/app/nothing', payload: { input: {} } });
    expect(undefinedDoc.body).toMatch(/^\{"decision_id":"[0-9a-f-]{36}"\}\n$/);
    expect(await plugins.flushDecisionLogs()).toBe(true);
    const ids = logs.map((e) => (e as { decision_id: string }).decision_id);
    expect(ids).toContain((JSON.parse(r.body) as { decision_id: string }).decision_id);
    expect(ids).toContain((JSON.parse(undefinedDoc.body) as { decision_id: string }).decision_id);
  });
});
