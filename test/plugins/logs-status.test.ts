// Decision log upload (gzip JSON arrays POSTed to /logs in size-limited
// chunks, requeued on failure, masked/dropped by policy) and status reporting
// (POST /status on bundle and plugin changes), against real local servers.
import { afterEach, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { writeBundle } from '../../runtime/bundles/index.js';
import { RObject, RSet, fromJS, type Value } from '../../runtime/value/index.js';
import { startPlugins, type RunningPlugins } from '../../server/plugins/index.js';
import type { DecisionEvent } from '../../server/plugins/contract.js';
import { encodeChunks } from '../../server/plugins/decision-logs.js';
import { FakeHost, startServer, waitFor, type TestServer } from './helpers.js';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups) await c();
  cleanups = [];
});

const event = (i: number, extra: Partial<DecisionEvent> = {}): DecisionEvent => ({
  labels: { id: 'test-id', version: '0.0.0' },
  decision_id: `d-${i}`,
  path: 'app/allow',
  input: fromJS({ user: `user-${i}`, password: 'hunter2', pad: 'x'.repeat(40 + (i % 7)) }),
  result: true,
  timestamp: '2024-05-01T10:00:00.123456789Z',
  ...extra,
});

async function logServer(fail: () => boolean): Promise<{ server: TestServer; batches: unknown[][] }> {
  const batches: unknown[][] = [];
  const server = await startServer((req, body, res) => {
    if (fail()) {
      res.statusCode = 500;
      return void res.end();
    }
    if (req.url?.startsWith('/logs')) batches.push(JSON.parse(gunzipSync(body).toString('utf8')) as unknown[]);
    res.statusCode = 204;
    res.end();
  });
  cleanups.push(() => server.close());
  return { server, batches };
}

async function start(config: Record<string, unknown>, host = new FakeHost()): Promise<RunningPlugins> {
  const p = await startPlugins(config, host);
  cleanups.unshift(() => p.stop());
  return p;
}

describe('decision logs', () => {
  it('uploads gzip JSON arrays in chunks under the size limit, in order', async () => {
    const { server, batches } = await logServer(() => false);
    const p = await start({ services: { s: { url: server.url } }, decision_logs: { service: 's', reporting: { upload_size_limit_bytes: 300, min_delay_seconds: 3600, max_delay_seconds: 7200 } } });
    expect(p.decisionLogsEnabled).toBe(true);
    for (let i = 0; i < 40; i++) await p.logDecision(event(i));
    expect(await p.flushDecisionLogs()).toBe(true);
    expect(batches.length).toBeGreaterThan(1);
    const r = server.requests[0]!;
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/logs');
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers['content-type']).toBe('application/json');
    for (const req of server.requests) expect(req.body.length).toBeLessThanOrEqual(300);
    const ids = batches.flat().map((e) => (e as { decision_id: string }).decision_id);
    expect(ids).toEqual(Array.from({ length: 40 }, (_, i) => `d-${i}`));
    const first = batches[0]![0] as Record<string, unknown>;
    expect(Object.keys(first)).toEqual(['labels', 'decision_id', 'path', 'input', 'result', 'timestamp']);
  });

  it('keeps events after a failed upload and sends them on the next one', async () => {
    let failing = true;
    const { server, batches } = await logServer(() => failing);
    const p = await start({ services: { s: { url: server.url } }, decision_logs: { reporting: { min_delay_seconds: 3600, max_delay_seconds: 7200 }, partition_name: 'p1' } });
    for (let i = 0; i < 5; i++) await p.logDecision(event(i));
    expect(await p.flushDecisionLogs()).toBe(false);
    expect((await p.status()).decision_logs).toMatchObject({ code: 'decision_logs_error', http_code: 500 });
    failing = false;
    await p.logDecision(event(5));
    expect(await p.flushDecisionLogs()).toBe(true);
    expect(batches.flat().map((e) => (e as { decision_id: string }).decision_id)).toEqual(['d-0', 'd-1', 'd-2', 'd-3', 'd-4', 'd-5']);
    expect(server.requests[server.requests.length - 1]!.url).toBe('/logs/p1');
    expect((await p.status()).decision_logs).toBeUndefined();
  });

  it('uploads periodically, masks and drops by policy, and bounds the buffer', async () => {
    const { server, batches } = await logServer(() => false);
    const host = new FakeHost();
    host.evaluate = async (path: string, input: Value): Promise<Value | undefined> => {
      const id = (input as RObject).get('decision_id');
      if (path === '/system/log/drop') return id === 'd-1';
      if (path === '/system/log/mask') return new RSet().add('/input/password').add(fromJS({ op: 'upsert', path: '/input/user', value: '***' }));
      return undefined;
    };
    const p = await start({ services: { s: { url: server.url } }, decision_logs: { reporting: { min_delay_seconds: 0.02, max_delay_seconds: 0.05 } } }, host);
    for (let i = 0; i < 3; i++) await p.logDecision(event(i));
    await waitFor(() => batches.flat().length === 2, 5000, 'periodic upload');
    const [e0] = batches.flat() as Record<string, unknown>[];
    expect(e0).toMatchObject({ decision_id: 'd-0', input: { user: '***' }, erased: ['/input/password'], masked: ['/input/user'] });
    expect((e0!.input as Record<string, unknown>).password).toBeUndefined();

    const small = await start({ services: { s: { url: server.url } }, decision_logs: { reporting: { buffer_type: 'event', buffer_size_limit_events: 2, min_delay_seconds: 3600, max_delay_seconds: 7200 } } });
    for (let i = 10; i < 15; i++) await small.logDecision(event(i));
    const before = batches.flat().length;
    await small.flushDecisionLogs();
    expect(batches.flat().slice(before).map((e) => (e as { decision_id: string }).decision_id)).toEqual(['d-13', 'd-14']);
  });

  it('drops single events larger than the upload limit', async () => {
    const { chunks, dropped } = await encodeChunks(['{"a":1}', JSON.stringify({ big: Array.from({ length: 500 }, (_, i) => i * 7919) }), '{"b":2}'], 120);
    expect(dropped).toBe(1);
    expect(chunks.flatMap((c) => JSON.parse(gunzipSync(c.body).toString()) as unknown[])).toEqual([{ a: 1 }, { b: 2 }]);
  });
});

describe('status plugin', () => {
  it('posts the status document on bundle activation and plugin state changes', async () => {
    const docs: Record<string, unknown>[] = [];
    const bundleBody = await writeBundle({ manifest: { revision: 'v9', roots: ['x'] }, modules: [], data: fromJS({ x: 1 }) });
    const server = await startServer((req, body, res) => {
      if (req.url === '/status') {
        docs.push(JSON.parse(body.toString('utf8')) as Record<string, unknown>);
        res.statusCode = 200;
        return void res.end();
      }
      res.writeHead(200, { etag: '"v9"' });
      res.end(bundleBody);
    });
    cleanups.push(() => server.close());
    await start({
      services: { s: { url: server.url } },
      bundles: { b: { polling: { min_delay_seconds: 5, max_delay_seconds: 10 } } },
      status: { service: 's' },
    });
    await waitFor(() => docs.some((d) => (d.bundles as Record<string, { active_revision?: string }> | undefined)?.b?.active_revision === 'v9'), 5000, 'status with bundle');
    await waitFor(() => docs.some((d) => (d.plugins as Record<string, { state: string }> | undefined)?.bundle?.state === 'OK'), 5000, 'bundle OK');
    const last = docs[docs.length - 1]!;
    expect(last.labels).toEqual({ id: 'test-id', version: '0.0.0' });
    expect(last.plugins).toMatchObject({ bundle: { state: 'OK' }, status: { state: 'OK' } });
    expect((last.bundles as Record<string, Record<string, unknown>>).b).toMatchObject({ name: 'b', active_revision: 'v9', size: bundleBody.length, type: 'snapshot' });
    expect(server.requests.find((r) => r.url === '/status')!.headers['content-type']).toBe('application/json');
  });
});
