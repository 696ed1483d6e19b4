// The evaluation deadline inside a policy.wasm (runtime/wasm/assembly/limits.ts, the
// step count in compiler/codegen/wasm/body.ts, WasmPolicy's `deadline` option): long
// loops (comprehensions, nested scans and `every`, walks, including the native walk's own
// traversal) stop with OPA's eval_cancel_error once the
// deadline has passed, the instance answers the next evaluation, and without a deadline
// (or in OPA's SDK, which never turns it on) the same module answers as the JS back end.
import { beforeAll, describe, expect, it } from 'vitest';
import { compile, compileWasm } from '../../compiler/index.js';
import { EvalError } from '../../runtime/eval/errors.js';
import { fromJS, toJS } from '../../runtime/value/json.js';
import { WasmPolicy } from '../../runtime/wasm/host.js';
import { canonical } from './differential.js';
import { ensureRuntime, loadSdkPolicy } from './sdk-host.js';

const text = `package dl
import rego.v1

# input.n * input.n iterations of a set comprehension (the set stays small)
pairs := count({x | some i in numbers.range(1, input.n); some j in numbers.range(1, input.n); x := (i + j) % 7})

# a walk inside a walk over input.tree
walks := count([1 | walk(input.tree, [_, v]); walk(v, [_, w]); is_number(w)])

# every inside every
all_small if every i in numbers.range(1, input.n) { every j in numbers.range(1, input.n) { i + j > 0 } }

small := count({i | some i in numbers.range(1, 10)})
`;

/** A tree `depth` levels deep with `width` children per node (numbers at the leaves). */
function tree(depth: number, width: number): unknown {
  if (depth === 0) return 1;
  return Array.from({ length: width }, () => tree(depth - 1, width));
}

/** Runs `f`, returning the error it throws (or undefined) and the milliseconds it took. */
function timed(f: () => unknown): { error: unknown; ms: number } {
  const t = Date.now();
  try {
    f();
    return { error: undefined, ms: Date.now() - t };
  } catch (e) {
    return { error: e, ms: Date.now() - t };
  }
}

function jsAnswer(path: string[], input: unknown): string {
  const v = compile([{ file: 'dl.rego', text }]).prepareDecision(path)({ input: fromJS(input), data: fromJS({}) });
  return canonical(v === undefined ? [] : [{ result: toJS(v) }]);
}

describe('evaluation deadline on the Wasm back end', () => {
  let wasm: Uint8Array;
  let host: WasmPolicy;
  beforeAll(async () => {
    ensureRuntime();
    wasm = await compileWasm([{ file: 'dl.rego', text }], ['dl/pairs', 'dl/walks', 'dl/all_small', 'dl/small']);
    host = await WasmPolicy.load(wasm);
    host.setData({});
  }, 120_000);

  const long = [
    ['dl/pairs', { n: 20_000 }],
    ['dl/walks', { tree: tree(8, 5) }],
    ['dl/all_small', { n: 20_000 }],
  ] as const;

  for (const [entrypoint, input] of long) {
    it(`stops ${entrypoint} with eval_cancel_error and stays usable`, () => {
      const inputText = JSON.stringify(input);
      const { error, ms } = timed(() => host.evaluateText(inputText, entrypoint, { deadline: Date.now() + 100 }));
      expect(error).toBeInstanceOf(EvalError);
      expect((error as EvalError).code).toBe('eval_cancel_error');
      expect((error as EvalError).message).toBe('caller cancelled query execution: evaluation deadline exceeded');
      // far less than the loop's own time (minutes): the module asks every 1,024 steps
      expect(ms).toBeLessThan(5_000);
      // the instance answers next, with and without a deadline
      expect(host.evaluateText('{}', 'dl/small', { deadline: Date.now() + 60_000 })).toBe('[{"result":10}]');
      expect(host.evaluateText('{"n": 30}', 'dl/pairs')).toBe(jsAnswer(['dl', 'pairs'], { n: 30 }));
    }, 30_000);
  }

  it('answers normally before its deadline, and a loopless decision never asks', () => {
    const small = { n: 40, tree: tree(3, 3) };
    for (const ep of ['pairs', 'walks', 'all_small']) {
      expect(host.evaluateText(JSON.stringify(small), `dl/${ep}`, { deadline: Date.now() + 60_000 }), ep).toBe(jsAnswer(['dl', ep], small));
    }
    // a deadline already passed stops the first loop that reaches its step count...
    const { error } = timed(() => host.evaluateText('{"n": 200}', 'dl/pairs', { deadline: Date.now() - 1 }));
    expect((error as EvalError).code).toBe('eval_cancel_error');
    // ...but a decision with fewer than 1,024 loop steps completes
    expect(host.evaluateText('{}', 'dl/small', { deadline: Date.now() - 1 })).toBe('[{"result":10}]');
  });

  it('is off in OPA\'s SDK: the same module answers there as the JS back end does', async () => {
    const p = await loadSdkPolicy(wasm);
    p.setData({});
    const input = { n: 60, tree: tree(4, 3) };
    for (const ep of ['pairs', 'walks', 'all_small']) expect(canonical(p.evaluate(input, `dl/${ep}`)), ep).toBe(jsAnswer(['dl', ep], input));
  });
});
