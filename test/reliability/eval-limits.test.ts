// Issue 10 item 1 and the evaluation limits, through a real `regent run --server`
// process: the 90-byte query that used to abort the process (a comprehension of
// 200 million elements) gets a clean 500 naming the collection cap; a long loop
// stops at the deadline; an evaluation that blows the worker heap gets a 500 naming
// the heap limit and only its worker is replaced. The process stays alive and a
// normal decision sent every 0.5 s keeps answering throughout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBody, probeDuring, reportProbe, send, startServer, type RunningServer } from './helpers.js';

const RANGE_QUERY = 'x := count([1 | numbers.range(1,20000)[_]; numbers.range(1,10000)[_]])';
// 400 million iterations that build nothing: only the deadline stops them.
const LONG_LOOP = 'x := count([1 | numbers.range(1,20000)[a]; numbers.range(1,20000)[b]; a == b + 1000000])';
// A 1 MB string, then a thousand 1 MB copies between two heap checks.
const HEAP_HOG =
  's := concat("", [x | numbers.range(1, 100000)[_]; x := "abcdefghij"]); n := count([y | numbers.range(1, 1000)[i]; y := concat("", [s, format_int(i, 10)])])';

function query(srv: RunningServer, q: string): ReturnType<typeof send> {
  return send(srv, { method: 'POST', path: '/v1/query', body: JSON.stringify({ query: q }), headers: { 'content-type': 'application/json' }, timeoutMs: 60_000 });
}

describe('default limits', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer();
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
  });

  it('item 1: a 200-million-element comprehension gets 500 eval_cancel_error naming the collection cap', async () => {
    const { result, probe } = await probeDuring(srv, () => query(srv, RANGE_QUERY));
    expect(result.status, result.text).toBe(500);
    const body = errorBody(result);
    expect(body).toMatchObject({ code: 'internal_error', message: 'error(s) occurred while evaluating query' });
    expect(body.errors).toEqual([{ code: 'eval_cancel_error', message: expect.stringMatching(/collection size limit exceeded \(more than 10000000 members; --max-collection-size\)/) }]);
    expect(srv.alive()).toBe(true);
    reportProbe('item 1: range comprehension', probe);
    expect(probe.failed).toBe(0);
    expect(probe.worstMs).toBeLessThan(2000);
    // Still serving the same kind of request.
    const ok = await query(srv, 'x := count([1 | numbers.range(1,200)[_]; numbers.range(1,100)[_]])');
    expect(ok.json()).toEqual({ result: [{ x: 20000 }] });
  }, 120_000);
});

describe('deadline', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({ args: ['--eval-timeout', '500ms', '--worker-heap-mb', '64'] });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
  });

  it('stops a long loop at the deadline with eval_cancel_error', async () => {
    const { result, probe } = await probeDuring(srv, () => query(srv, LONG_LOOP));
    expect(result.status, result.text).toBe(500);
    expect(errorBody(result).errors).toEqual([{ code: 'eval_cancel_error', message: 'caller cancelled query execution: evaluation deadline exceeded' }]);
    expect(result.ms).toBeLessThan(5000);
    expect(srv.alive()).toBe(true);
    reportProbe('deadline: 400M-iteration loop', probe);
    expect(probe.failed).toBe(0);
    expect(probe.worstMs).toBeLessThan(2000);
  }, 60_000);

});

describe('worker heap limit', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    // Two workers and a longer deadline: on a loaded machine the deadline must not
    // stop these first, and decisions must not queue behind them.
    srv = await startServer({ args: ['--eval-timeout', '5s', '--worker-heap-mb', '64', '--workers', '2'] });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
  });

  it('a 16 MB json.unmarshal on a 64 MB worker: a 500 naming the heap limit, the server keeps serving', async () => {
    const q = 'x := count(json.unmarshal(json.marshal(numbers.range(1, 2000000))))';
    const { result, probe } = await probeDuring(srv, () => query(srv, q));
    expect(result.status, result.text).toBe(500);
    // Refused before the call (heap room check), or the worker is replaced: both name the limit.
    expect(result.text).toMatch(/memory limit exceeded|--worker-heap-mb/);
    expect(srv.alive()).toBe(true);
    reportProbe('json.unmarshal of a 16 MB string', probe);
    expect(probe.worstMs).toBeLessThan(2000);
    expect((await query(srv, 'x := 1 + 1')).json()).toEqual({ result: [{ x: 2 }] });
  }, 60_000);

  it('replaces a worker that runs out of heap; the request gets a 500 naming the limit', async () => {
    const { result, probe } = await probeDuring(srv, () => query(srv, HEAP_HOG));
    expect(result.status, result.text).toBe(500);
    const body = errorBody(result);
    expect(body.message).toMatch(/64 MB, --worker-heap-mb|memory limit exceeded/);
    if (body.code === 'internal_error' && body.errors) expect(body.errors).toEqual([{ code: 'eval_cancel_error', message: expect.stringMatching(/memory limit exceeded/) }]);
    expect(srv.alive()).toBe(true);
    reportProbe('worker heap limit', probe);
    expect(probe.worstMs).toBeLessThan(2000);
    const ok = await query(srv, 'x := 1 + 1');
    expect(ok.json()).toEqual({ result: [{ x: 2 }] });
  }, 60_000);
});
