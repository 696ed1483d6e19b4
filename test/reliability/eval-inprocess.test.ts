// Evaluation limits without worker threads (`--workers 0`, the in-process
// fallback) and at the engine level: the collection cap stops comprehensions,
// query rows, objects and sets with eval_cancel_error naming the limit (and 0 turns
// it off), the deadline stops long loops in-process too, and the errors reach the
// API as a clean 500 `{code, message}`.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../compiler/index.js';
import { getHeapStatistics } from 'node:v8';
import { DEFAULT_HEAP_FRACTION, DEFAULT_MAX_COLLECTION_SIZE, EvalError, RObject, RSet, limits, setEvalLimits } from '../../runtime/index.js';
import { Engine } from '../../server/engine/engine.js';
import { call, startTestServer, type TestServer } from '../server/helpers.js';

const CAP_MESSAGE = /^caller cancelled query execution: collection size limit exceeded \(more than 1000 members; --max-collection-size\)$/;

function evalQuery(query: string, deadline?: number): unknown {
  return compile([], {}).prepare(query).eval(deadline === undefined ? {} : { deadline });
}

function cancelled(fn: () => unknown): EvalError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(EvalError);
    expect((e as EvalError).code).toBe('eval_cancel_error');
    return e as EvalError;
  }
  throw new Error('expected eval_cancel_error');
}

describe('collection cap', () => {
  beforeAll(() => setEvalLimits({ maxCollectionSize: 1000 }));
  afterAll(() => setEvalLimits({ maxCollectionSize: DEFAULT_MAX_COLLECTION_SIZE }));

  it('stops array, set and object comprehensions past the cap', () => {
    expect(cancelled(() => evalQuery('x := [i | numbers.range(1, 2000)[i]]')).message).toMatch(CAP_MESSAGE);
    expect(cancelled(() => evalQuery('x := {i | numbers.range(1, 2000)[i]}')).message).toMatch(CAP_MESSAGE);
    expect(cancelled(() => evalQuery('x := {i: 1 | numbers.range(1, 2000)[i]}')).message).toMatch(CAP_MESSAGE);
  });

  it('stops query rows and builtins past the cap', () => {
    expect(cancelled(() => evalQuery('numbers.range(1, 2000)[x]')).message).toMatch(CAP_MESSAGE);
    expect(cancelled(() => evalQuery('x := array.concat(numbers.range(1, 600), numbers.range(1, 600))')).message).toMatch(CAP_MESSAGE);
  });

  it('allows collections up to the cap', () => {
    expect(evalQuery('x := count([i | numbers.range(1, 1000)[i]])')).toMatchObject([{ bindings: { x: 1000 } }]);
  });

  it('applies to objects and sets built directly', () => {
    const o = new RObject();
    expect(() => {
      for (let i = 0; i <= 1000; i++) o.set(`k${i}`, i);
    }).toThrow(CAP_MESSAGE);
    const s = new RSet();
    expect(() => {
      for (let i = 0; i <= 1000; i++) s.add(i);
    }).toThrow(CAP_MESSAGE);
  });

  it('is off with 0', () => {
    setEvalLimits({ maxCollectionSize: 0 });
    try {
      expect(limits.maxCollectionSize).toBe(Infinity);
      expect(evalQuery('x := count([i | numbers.range(1, 2000)[i]])')).toMatchObject([{ bindings: { x: 2000 } }]);
    } finally {
      setEvalLimits({ maxCollectionSize: 1000 });
    }
  });
});

describe('deadline in-process', () => {
  const LOOP = 'x := count([1 | numbers.range(1, 5000)[a]; numbers.range(1, 5000)[b]; a == b + 100000])';

  it('stops a long loop with eval_cancel_error', () => {
    const started = Date.now();
    const e = cancelled(() => evalQuery(LOOP, Date.now() + 100));
    expect(e.message).toBe('caller cancelled query execution: evaluation deadline exceeded');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('is on by default in the engine (10 s) and can be set or turned off', async () => {
    const engines = [new Engine(), new Engine({ evalTimeoutMs: 50 }), new Engine({ evalTimeoutMs: 0 })];
    try {
      expect(engines.map((e) => e.evalTimeoutMs)).toEqual([10_000, 50, 0]);
      const outcome = await engines[1]!.evaluate({ query: LOOP, mode: 'bindings', strictBuiltinErrors: false, pretty: false });
      expect(outcome.error).toMatchObject({ code: 'eval_cancel_error', message: 'caller cancelled query execution: evaluation deadline exceeded' });
    } finally {
      await Promise.all(engines.map((e) => e.close()));
    }
  });
});

describe('--workers 0 server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ workers: 0, evalTimeoutMs: 1500 });
  });
  afterAll(() => server.close());
  afterEach(() => setEvalLimits({ maxCollectionSize: DEFAULT_MAX_COLLECTION_SIZE }));

  it('answers the item 1 query with a 500 naming the collection cap', async () => {
    // A cap of one million (this server evaluates in this process), so the cap and not
    // the 1.5 s deadline stops the query on a loaded machine too.
    setEvalLimits({ maxCollectionSize: 1_000_000 });
    const r = await call(server, 'POST', '/v1/query', { query: 'x := count([1 | numbers.range(1,20000)[_]; numbers.range(1,10000)[_]])' });
    expect(r.status).toBe(500);
    expect(r.json()).toEqual({
      code: 'internal_error',
      message: 'error(s) occurred while evaluating query',
      errors: [{ code: 'eval_cancel_error', message: 'caller cancelled query execution: collection size limit exceeded (more than 1000000 members; --max-collection-size)' }],
    });
    expect((await call(server, 'POST', '/v1/query', { query: 'x := 1 + 1' })).json()).toEqual({ result: [{ x: 2 }] });
  });

  it('answers a long loop with a 500 at the deadline', async () => {
    const started = Date.now();
    const r = await call(server, 'POST', '/v1/query', { query: 'x := count([1 | numbers.range(1, 20000)[a]; numbers.range(1, 20000)[b]; a == b + 100000])' });
    expect(r.status).toBe(500);
    expect(r.json()).toMatchObject({ code: 'internal_error', errors: [{ code: 'eval_cancel_error', message: 'caller cancelled query execution: evaluation deadline exceeded' }] });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('regent run flags', () => {
  const parse = async (argv: string[]): Promise<Record<string, unknown>> => {
    const { runOptions, RUN_FLAGS } = await import('../../cli/run.js');
    const { parseArgs } = await import('../../cli/args.js');
    return runOptions(parseArgs(argv, RUN_FLAGS)) as unknown as Record<string, unknown>;
  };

  it('have the documented defaults', async () => {
    expect(await parse(['--server'])).toMatchObject({ evalTimeoutMs: 10_000, maxCollectionSize: 10_000_000, workerHeapMb: 2048 });
  });

  it('take Go durations or milliseconds for --eval-timeout', async () => {
    expect((await parse(['--eval-timeout', '1.5s'])).evalTimeoutMs).toBe(1500);
    expect((await parse(['--eval-timeout', '250'])).evalTimeoutMs).toBe(250);
    expect((await parse(['--eval-timeout', '0'])).evalTimeoutMs).toBe(0);
    await expect(parse(['--eval-timeout', 'soon'])).rejects.toThrow(/--eval-timeout/);
    await expect(parse(['--worker-heap-mb', '0'])).rejects.toThrow(/--worker-heap-mb/);
  });
});

describe('heap room check before builtin calls', () => {
  it('refuses json.unmarshal of a 2 MB string when 8 bytes a character would not fit under the ceiling', () => {
    const used = getHeapStatistics().used_heap_size;
    setEvalLimits({ heapLimitMb: (used + 8 * 2 ** 20) / DEFAULT_HEAP_FRACTION / 2 ** 20 });
    try {
      const input = '"' + 'a'.repeat(2 << 20) + '"';
      const e = cancelled(() => compile([], {}).prepare('x := json.unmarshal(input)').eval({ input }));
      expect(e.message).toMatch(/^caller cancelled query execution: memory limit exceeded \(json\.unmarshal on a 2 MB string could exceed \d+ MB of heap; --worker-heap-mb\)$/);
    } finally {
      setEvalLimits({ heapLimitMb: 0 });
    }
  });
});

describe('V8 size limits inside builtins', () => {
  it('cancel like the collection cap (a 1 GB concat)', () => {
    const e = cancelled(() =>
      evalQuery('t := concat("", [x | numbers.range(1, 100000)[_]; x := "abcdefghij"]); u := concat("", [t | numbers.range(1, 1000)[_]])'),
    );
    expect(e.message).toBe('caller cancelled query execution: concat: Invalid string length');
  });
});
