// The worker pool with ONE worker (the default on 2 cores), through the pool's own
// message path (server/engine/pool-threads.ts: one port per worker; the tasks that
// arrive while a batch runs are posted together as the worker's next batch, and the
// ones after that wait and leave together). A stuck evaluation is stopped by the
// watchdog and only it fails: the tasks that shared its batch or were posted behind it
// are answered by the replacement worker, each with its own result; a write made while
// a batch is in flight is seen by every later read.
import { MessagePort } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, putPolicy, startTestServer, type TestServer } from '../server/helpers.js';

// About a second of re2js work in one builtin call that never looks at the deadline
// (the same policy as test/server/pool.test.ts): only terminating the worker stops it.
const SLOW = `package slow
s := replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace("ab", "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "ab")
n := count(regex.split("a", s))
`;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ workers: 1, evalTimeoutMs: 300, evalGraceMs: 100 });
  await putPolicy(server, 'echo.rego', 'package echo\ndouble := input.n * 2\n');
  await putPolicy(server, 'slow.rego', SLOW);
});
afterAll(() => server.close());

const double = (n: number) => call(server, 'POST', '/v1/data/echo/double', { input: { n } });

describe('one worker', () => {
  it('answers a burst of 300 concurrent decisions, each with its own result', async () => {
    const ns = Array.from({ length: 300 }, (_, i) => i);
    const replies = await Promise.all(ns.map(double));
    expect(replies.map((r) => r.json())).toEqual(ns.map((n) => ({ result: n * 2 })));
  });

  it('stops a stuck evaluation; the decisions sent with it and behind it are answered by the new worker', async () => {
    const before = server.app.regent.engine.workerThreadIds();
    expect(before).toHaveLength(1);
    const slow = call(server, 'GET', '/v1/data/slow/n');
    const ns = Array.from({ length: 20 }, (_, i) => i);
    const same = ns.map(double); // the same turn: likely the same batch as the slow one
    await new Promise((res) => setTimeout(res, 100));
    const later = ns.map((n) => double(n + 100)); // while the worker is stuck: queued behind it
    const r = await slow;
    expect(r.status).toBe(500);
    expect(r.json()).toMatchObject({ code: 'internal_error', errors: [{ code: 'eval_cancel_error' }] });
    expect((await Promise.all(same)).map((x) => x.json())).toEqual(ns.map((n) => ({ result: n * 2 })));
    expect((await Promise.all(later)).map((x) => x.json())).toEqual(ns.map((n) => ({ result: (n + 100) * 2 })));
    const after = server.app.regent.engine.workerThreadIds();
    expect(after).toHaveLength(1);
    expect(after).not.toEqual(before);
  });

  it('posts the decisions that arrive while a batch runs as the worker\'s next batch, and answers them in order', async () => {
    const posts = vi.spyOn(MessagePort.prototype, 'postMessage');
    try {
      // A batch travels as one flat array (wire-batch.ts); nothing else this thread posts on a port is an array.
      const batches = () => posts.mock.calls.filter(([m]) => Array.isArray(m)).length;
      let slowDone = false;
      const slow = call(server, 'GET', '/v1/data/slow/n').then((r) => ((slowDone = true), r));
      await vi.waitFor(() => expect(batches()).toBe(1));
      const ns = Array.from({ length: 10 }, (_, i) => i);
      const during = ns.map(double);
      // Posted while the slow evaluation still runs (the watchdog stops it after 400 ms).
      await vi.waitFor(() => expect(batches()).toBe(2), { timeout: 300 });
      expect(slowDone).toBe(false);
      expect((await slow).status).toBe(500);
      // Its worker was stopped with them in its queue: they run again on the new worker.
      expect((await Promise.all(during)).map((x) => x.json())).toEqual(ns.map((n) => ({ result: n * 2 })));
    } finally {
      posts.mockRestore();
    }
  });

  it('makes a write made while decisions are in flight visible to every later read', async () => {
    for (let i = 0; i < 10; i++) {
      const inFlight = Array.from({ length: 10 }, (_, n) => double(n));
      expect((await call(server, 'PUT', '/v1/data/counter', i)).status).toBe(204);
      const reads = await Promise.all(Array.from({ length: 5 }, () => call(server, 'GET', '/v1/data/counter')));
      expect(reads.map((x) => x.json())).toEqual(Array.from({ length: 5 }, () => ({ result: i })));
      expect((await Promise.all(inFlight)).map((x) => x.json())).toEqual(Array.from({ length: 10 }, (_, n) => ({ result: n * 2 })));
    }
  });
});
