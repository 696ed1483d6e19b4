// The engine's status heartbeat (`status.heartbeat_seconds`, a Regent
// extension so a control plane can mark silent engines stale): with it, the
// unchanged status document is re-sent to the service; without it, as in OPA,
// a document is sent only on changes. Both run side by side against a local
// HTTP server, so the comparison is within one run.
import { afterEach, describe, expect, it } from 'vitest';
import { startPlugins, type RunningPlugins } from '../../server/plugins/index.js';
import { FakeHost, startServer, waitFor, type TestServer } from '../plugins/helpers.js';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups) await c();
  cleanups = [];
});

async function statusServer(): Promise<TestServer> {
  const server = await startServer((_req, _body, res) => {
    res.statusCode = 200;
    res.end('{}');
  });
  cleanups.push(() => server.close());
  return server;
}

async function start(config: Record<string, unknown>): Promise<RunningPlugins> {
  const p = await startPlugins(config, new FakeHost());
  cleanups.unshift(() => p.stop());
  return p;
}

describe('status heartbeat_seconds', () => {
  it('re-sends the unchanged document every heartbeat; without it only changes are sent', async () => {
    const beating = await statusServer();
    const quiet = await statusServer();
    await start({ services: { cp: { url: beating.url } }, status: { service: 'cp', heartbeat_seconds: 0.2 } });
    await start({ services: { cp: { url: quiet.url } }, status: { service: 'cp' } });
    await waitFor(() => beating.requests.length >= 4, 10_000, 'four heartbeats');
    const quietCount = quiet.requests.length;
    expect(quietCount).toBeGreaterThanOrEqual(1);
    expect(quietCount).toBeLessThan(beating.requests.length);
    const docs = beating.requests.map((r) => JSON.parse(r.body.toString('utf8')) as { labels: Record<string, string>; plugins: unknown });
    for (const r of beating.requests) expect([r.method, r.url]).toEqual(['POST', '/status']);
    expect(docs.at(-1)!.labels.id).toBe(docs[0]!.labels.id);
    expect(docs.at(-1)!.plugins).toEqual(docs.at(-2)!.plugins);
  });

  it('rejects a heartbeat that is not a positive number', async () => {
    for (const hb of [0, -1, '10s']) {
      await expect(startPlugins({ services: { cp: { url: 'http://127.0.0.1:1' } }, status: { service: 'cp', heartbeat_seconds: hb } }, new FakeHost())).rejects.toThrow(
        'invalid status config: heartbeat_seconds must be a positive number',
      );
    }
  });
});
