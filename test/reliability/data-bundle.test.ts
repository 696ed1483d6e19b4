// Bundle activation with large data (issue 10, large data writes): the bundle's data
// reaches the worker threads as JSON bytes written in slices and built by each worker
// in slices, so decisions keep answering while a bundle with 50 MB of data activates,
// and the data is visible to every decision once the activation returns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDocumentText } from '../../bench/memory-data.js';
import { RObject, parseJSON, type Bundle } from '../../runtime/index.js';
import { call, putPolicy, startTestServer, type TestServer } from '../server/helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ workers: 1 });
  expect((await putPolicy(server, 'probe.rego', 'package probe\n\nallow if input.user == "alice"\n')).status).toBe(200);
});
afterAll(() => server.close());

/** Probe a decision every 50 ms while `action` runs; the worst latency in ms. */
async function probing(action: () => Promise<void>): Promise<{ worst: number; count: number }> {
  let done = false;
  const latencies: number[] = [];
  const loop = (async () => {
    while (!done) {
      const t = performance.now();
      const r = await call(server, 'POST', '/v1/data/probe/allow', { input: { user: 'alice' } });
      expect(r.json()).toEqual({ result: true });
      latencies.push(performance.now() - t);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    await action();
  } finally {
    done = true;
    await loop;
  }
  return { worst: Math.round(Math.max(...latencies)), count: latencies.length };
}

describe('bundle activation with 50 MB of data', () => {
  it('keeps decisions answering and makes the data visible', async () => {
    const text = generateDocumentText(50e6);
    const data = RObject.fromEntries([['big', parseJSON(text)]]);
    const bundle: Bundle = { manifest: { roots: ['big'], revision: 'r1' }, modules: [{ path: 'big/p.rego', text: 'package big\n\ncount_users := count(data.big.users)\n' }] as Bundle['modules'], data };
    const probe = await probing(() => server.app.regent.host.activateBundle('large', bundle));
    console.log(`[reliability] 50 MB bundle activation: worst probe ${probe.worst} ms over ${probe.count} decisions`);
    expect(probe.worst).toBeLessThan(2000);
    const users = Object.keys((JSON.parse(text) as { users: object }).users).length;
    expect((await call(server, 'GET', '/v1/data/big/count_users')).json()).toEqual({ result: users });
    expect((await call(server, 'GET', '/v1/data/big/users/user-0000001/department')).json()).toEqual({ result: (JSON.parse(text) as { users: Record<string, { department: string }> }).users['user-0000001']!.department });
  }, 180_000);
});
