// The worker-pool evaluation path: writes reach every worker before they return,
// concurrent writes and reads never show a torn state, a stuck worker is aborted
// and replaced without hurting other requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, putPolicy, startTestServer, type TestServer } from './helpers.js';

let server: TestServer;

// Doubling a string 21 times, then splitting it with a regular expression (about a
// second in re2js): a long-running builtin call that never looks at the deadline, so
// only recycling the worker stops it.
const SLOW = `package slow
s := replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace("ab", "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "aa"), "a", "ab")
n := count(regex.split("a", s))
`;

beforeAll(async () => {
  server = await startTestServer({ workers: 2, evalTimeoutMs: 300, evalGraceMs: 100 });
  await putPolicy(server, 'pair.rego', 'package view\nsame := data.pair.a == data.pair.b\n');
});
afterAll(() => server.close());

describe('worker pool', () => {
  it('evaluates in worker threads', () => {
    expect(server.app.regent.engine.workerThreadIds()).toHaveLength(2);
  });

  it('makes every write visible to all workers before the write returns', async () => {
    for (let i = 0; i < 15; i++) {
      expect((await call(server, 'PUT', '/v1/data/counter', i)).status).toBe(204);
      const reads = await Promise.all(Array.from({ length: 6 }, () => call(server, 'GET', '/v1/data/counter')));
      expect(reads.map((r) => r.json())).toEqual(Array.from({ length: 6 }, () => ({ result: i })));
    }
  });

  it('keeps the old policy active in every worker after a failed compile', async () => {
    await putPolicy(server, 'v.rego', 'package v\nx := 1\n');
    expect((await putPolicy(server, 'v.rego', 'package v\nx := y\n')).status).toBe(400);
    const reads = await Promise.all(Array.from({ length: 6 }, () => call(server, 'GET', '/v1/data/v/x')));
    expect(new Set(reads.map((r) => r.text))).toEqual(new Set(['{"result":1}\n']));
  });

  it("keeps OPA's error details when the workers compiled the candidate", async () => {
    const parse = await putPolicy(server, 'v.rego', 'package v\nx := (\n');
    expect((parse.json() as { errors: unknown[] }).errors[0]).toMatchObject({ code: 'rego_parse_error', details: { line: 'x := (', idx: 5 } });
    const typed = await putPolicy(server, 'v.rego', 'package v\nx := upper(1)\n');
    expect((typed.json() as { errors: unknown[] }).errors[0]).toEqual({
      code: 'rego_type_error',
      message: 'upper: invalid argument(s)',
      location: { file: 'v.rego', row: 2, col: 6 },
      details: { have: [{ type: 'number' }, null], want: { args: [{ type: 'string', name: 'x' }] } },
    });
    // An ad-hoc query's parse error, from the worker that parsed it.
    const query = await call(server, 'POST', '/v1/query', { query: 'x := [1,' });
    expect(query.status).toBe(400);
    expect((query.json() as { errors: unknown[] }).errors[0]).toMatchObject({ code: 'rego_parse_error', details: { line: 'x := [1,', idx: 7 } });
  });

  it('never shows a torn state under concurrent writes and reads', async () => {
    await call(server, 'PUT', '/v1/data/pair', { a: 0, b: 0 });
    const writers = (async () => {
      for (let i = 1; i <= 30; i++) {
        const r = await call(server, 'PATCH', '/v1/data/pair', [
          { op: 'replace', path: '/a', value: i },
          { op: 'replace', path: '/b', value: i },
        ]);
        expect(r.status).toBe(204);
      }
    })();
    const readers = Array.from({ length: 4 }, async () => {
      const seen: unknown[] = [];
      for (let i = 0; i < 30; i++) {
        const [pair, same] = await Promise.all([call(server, 'GET', '/v1/data/pair'), call(server, 'GET', '/v1/data/view/same')]);
        const value = (pair.json() as { result: { a: number; b: number } }).result;
        expect(value.a).toBe(value.b);
        seen.push((same.json() as { result: boolean }).result);
      }
      return seen;
    });
    await writers;
    for (const seen of await Promise.all(readers)) expect(new Set(seen)).toEqual(new Set([true]));
    expect((await call(server, 'GET', '/v1/data/pair')).json()).toEqual({ result: { a: 30, b: 30 } });
  });

  it('aborts a stuck evaluation, replaces its worker and keeps serving others', async () => {
    await putPolicy(server, 'slow.rego', SLOW);
    const before = server.app.regent.engine.workerThreadIds();
    const started = Date.now();
    const slow = call(server, 'GET', '/v1/data/slow/n');
    const fast = await call(server, 'GET', '/v1/data/counter');
    expect(fast.json()).toEqual({ result: 14 });
    const r = await slow;
    expect(Date.now() - started).toBeLessThan(1500);
    expect(r.status).toBe(500);
    expect(r.json()).toMatchObject({ code: 'internal_error', message: 'error(s) occurred while evaluating query', errors: [{ code: 'eval_cancel_error' }] });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = server.app.regent.engine.workerThreadIds();
    expect(after).toHaveLength(2);
    expect(after).not.toEqual(before);
    const reads = await Promise.all(Array.from({ length: 6 }, () => call(server, 'GET', '/v1/data/counter')));
    expect(reads.map((x) => x.text)).toEqual(Array.from({ length: 6 }, () => '{"result":14}\n'));
  });
});

describe('worker pool without a time limit (batched tasks)', () => {
  let batched: TestServer;
  beforeAll(async () => {
    batched = await startTestServer({ workers: 2 });
    await putPolicy(batched, 'echo.rego', 'package echo\ndouble := input.n * 2\n');
  });
  afterAll(() => batched.close());

  it('answers every one of many concurrent requests with its own result', async () => {
    const ns = Array.from({ length: 200 }, (_, i) => i);
    const replies = await Promise.all(ns.map((n) => call(batched, 'POST', '/v1/data/echo/double', { input: { n } })));
    expect(replies.map((r) => r.json())).toEqual(ns.map((n) => ({ result: n * 2 })));
  });

  it('sees a write made just before a burst of reads', async () => {
    await putPolicy(batched, 'echo.rego', 'package echo\ndouble := input.n * 3\n');
    const replies = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => call(batched, 'POST', '/v1/data/echo/double', { input: { n } })));
    expect(replies.map((r) => r.json())).toEqual([3, 6, 9, 12, 15, 18].map((result) => ({ result })));
  });
});
