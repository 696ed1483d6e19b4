// User functions on the Wasm back end (compiler/codegen/wasm/rules.ts, index-dispatch.ts):
// results memoized per evaluation from a function's second call on, keyed by Rego
// equality of the arguments (undefined results too; `with` and a new evaluation start
// afresh), and definitions indexed on a constant argument. Memoization is observed by
// counting the calls of a host-served builtin (sprintf, replaced by a custom builtin in
// Regent's host); every answer must equal the JS back end's.
import { describe, expect, it } from 'vitest';
import { compile, compileWasm } from '../../compiler/index.js';
import { functionIndex } from '../../compiler/codegen/wasm/index-dispatch.js';
import { fromJS, toJS } from '../../runtime/value/json.js';
import { WasmPolicy } from '../../runtime/wasm/host.js';
import { canonical } from './differential.js';
import { ensureRuntime } from './sdk-host.js';

const head = 'package fm\nimport rego.v1\n';

/** The JS back end's result set for `path`, as canonical text. */
function jsAnswer(text: string, path: string[], input: unknown): string {
  const v = compile([{ file: 'fm.rego', text }]).prepareDecision(path)({ input: fromJS(input), data: fromJS({}) });
  return canonical(v === undefined ? [] : [{ result: toJS(v) }]);
}

/** A Wasm instance whose sprintf counts its calls (and formats like `%v` of its arguments' JSON). */
async function counting(text: string, entrypoints: string[]): Promise<{ host: WasmPolicy; calls: () => number }> {
  ensureRuntime();
  let n = 0;
  const sprintf = (fmt: unknown, args: unknown) => {
    n++;
    return `${String(fmt)}${JSON.stringify(args)}`;
  };
  const host = await WasmPolicy.load(await compileWasm([{ file: 'fm.rego', text }], entrypoints), { customBuiltins: { sprintf } });
  host.setData({});
  return { host, calls: () => n };
}

describe('function memoization on the Wasm back end', () => {
  it('runs a function once per distinct argument after its first call; equal composites are one key', async () => {
    const text = `${head}
f(x) := sprintf("f", [x])
out := [f(1), f(1), f(1), f(2), f(2), f({"a": [1, input.one]}), f({"a": [input.one, 1]}), f({"a": [1, 2]})]
`;
    const { host, calls } = await counting(text, ['fm/out']);
    const got = host.evaluate({ one: 1 });
    expect(got).toEqual([{ result: ['f[1]', 'f[1]', 'f[1]', 'f[2]', 'f[2]', 'f[{"a":[1,1]}]', 'f[{"a":[1,1]}]', 'f[{"a":[1,2]}]'] }]);
    // 8 calls, 4 distinct arguments: the first call is not kept, then one run per argument
    expect(calls()).toBe(5);
    // a new evaluation starts with an empty memo (different input, different answers)
    expect(host.evaluate({ one: 3 })[0]!.result).toEqual(['f[1]', 'f[1]', 'f[1]', 'f[2]', 'f[2]', 'f[{"a":[1,3]}]', 'f[{"a":[3,1]}]', 'f[{"a":[1,2]}]']);
    expect(calls()).toBe(11);
  });

  it('keys several arguments together, and keeps undefined results', async () => {
    const text = `${head}
g(x, y) := s if {
  s := sprintf("g", [x, y])
  x > 0
}
out := [v | some p in [[1, "a"], [1, "a"], [1, "b"], [-1, "a"], [-1, "a"], [-1, "a"], [1, "b"]]; v := g(p[0], p[1])]
`;
    const { host, calls } = await counting(text, ['fm/out']);
    expect(host.evaluate({})).toEqual([{ result: ['g[1,"a"]', 'g[1,"a"]', 'g[1,"b"]', 'g[1,"b"]'] }]);
    // distinct (x, y): (1,a), (1,b), (-1,a), plus the first call of the evaluation
    expect(calls()).toBe(4);
  });

  it('grows its table past many keys, tells apart values that hash alike, and keys five arguments', async () => {
    const text = `${head}
f(x) := sprintf("f", [x])
five(a, b, c, d, e) := sprintf("five", [a, b, c, d, e])
# 200 distinct numbers twice each; arrays equal in their first 8 members (hashed alike)
nums := count({v | some i in numbers.range(1, 200); some _ in [1, 2]; v := f(i)})
long := [f(array.concat([1, 2, 3, 4, 5, 6, 7, 8], [i])) | some i in [9, 10, 9, 10]]
deep := [f({"a": {"b": {"c": {"d": i}}}}) | some i in [1, 2, 1, 2]]
fives := [five(1, 2, 3, 4, i) | some i in [5, 6, 5, 6, 5]]
`;
    const { host, calls } = await counting(text, ['fm/nums', 'fm/long', 'fm/deep', 'fm/fives']);
    expect(host.evaluate({}, 'fm/nums')).toEqual([{ result: 200 }]);
    expect(calls()).toBe(201);
    expect(host.evaluate({}, 'fm/long')[0]!.result).toEqual(['f[[1,2,3,4,5,6,7,8,9]]', 'f[[1,2,3,4,5,6,7,8,10]]', 'f[[1,2,3,4,5,6,7,8,9]]', 'f[[1,2,3,4,5,6,7,8,10]]']);
    expect(calls()).toBe(201 + 3);
    expect(host.evaluate({}, 'fm/deep')[0]!.result).toEqual(['f[{"a":{"b":{"c":{"d":1}}}}]', 'f[{"a":{"b":{"c":{"d":2}}}}]', 'f[{"a":{"b":{"c":{"d":1}}}}]', 'f[{"a":{"b":{"c":{"d":2}}}}]']);
    expect(calls()).toBe(204 + 3);
    expect(host.evaluate({}, 'fm/fives')[0]!.result).toEqual(['five[1,2,3,4,5]', 'five[1,2,3,4,6]', 'five[1,2,3,4,5]', 'five[1,2,3,4,6]', 'five[1,2,3,4,5]']);
    expect(calls()).toBe(207 + 3);
  });

  it('computes afresh under `with` and after it, as the JS back end answers', async () => {
    const text = `${head}
f(x) := [x, input.k, sprintf("f", [x])]
inner := v if { v := f(1) with input.k as "w" }
out := [f(1), inner, f(1), f(1)]
`;
    const { host, calls } = await counting(text, ['fm/out']);
    expect(host.evaluate({ k: 'outer' })[0]!.result).toEqual([[1, 'outer', 'f[1]'], [1, 'w', 'f[1]'], [1, 'outer', 'f[1]'], [1, 'outer', 'f[1]']]);
    // the `with` body has its own generation, and the outer memo starts over when it
    // returns: f(1) runs outside, inside, then twice more outside (first call, then kept)
    expect(calls()).toBe(4);
    // the same shape without the custom sprintf agrees with the JS back end
    const plain = text.replace('sprintf("f", [x])', 'x + 1');
    const p = await WasmPolicy.load(await compileWasm([{ file: 'fm.rego', text: plain }], ['fm/out']));
    expect(canonical(p.evaluate({ k: 'outer' }))).toBe(jsAnswer(plain, ['fm', 'out'], { k: 'outer' }));
  });

  it('gives the JS back end\'s answers for functions returning composites, conflicts and mocks', async () => {
    ensureRuntime();
    const text = `${head}
double(x) := x * 2
pair(x) := {"x": x, "d": double(x)}
conflict(x) := 1 if x > 0
conflict(x) := 2 if x > 1
mocked(x) := x + 100
outs := [pair(1), pair(1), pair(2), double(3), double(3)]
mock := [v | v := pair(1) with double as mocked]
after := [pair(1), double(1)]
bad := conflict(input.n)
`;
    const host = await WasmPolicy.load(await compileWasm([{ file: 'fm.rego', text }], ['fm/outs', 'fm/mock', 'fm/after', 'fm/bad']));
    host.setData({});
    for (const [ep, path] of [['fm/outs', ['fm', 'outs']], ['fm/mock', ['fm', 'mock']], ['fm/after', ['fm', 'after']]] as const) {
      expect(canonical(host.evaluate({}, ep)), ep).toBe(jsAnswer(text, [...path], {}));
    }
    expect(canonical(host.evaluate({ n: 1 }, 'fm/bad'))).toBe(jsAnswer(text, ['fm', 'bad'], { n: 1 }));
    expect(() => host.evaluate({ n: 2 }, 'fm/bad')).toThrow(/multiple outputs/);
    // the instance answers again after the conflict
    expect(canonical(host.evaluate({ n: 1 }, 'fm/bad'))).toBe(canonical([{ result: 1 }]));
  });
});

describe('function definitions indexed on a constant argument', () => {
  const text = `${head}
mult("k") := 1000
mult("M") := 1000000
mult("") := 1
mult(1) := "one"
mult(true) := "true"
mult(null) := "null"
mult(x) := "short" if { is_string(x); count(x) == 1; x != "k"; x != "M" }
mult("M") := 1000000
mult("q") := "queue"
two(x, "a") := x
two(x, "b") := -1
two(x, y) := 0 if y == "c"
pick(a, b) := a if a == b
out := [v | some x in ["k", "M", "", "z", 1, 1.0, true, null, [1], {"k": 1}, "Mi"]; v := mult(x)]
out2 := [two(5, "a"), two(5, "b"), two(5, "c")]
miss := two(5, "d")
conflict := mult(input.x)
`;

  it('indexes the argument position most definitions test, keeping the others for every call', () => {
    const policy = compile([{ file: 'fm.rego', text }]);
    const group = (name: string) => policy.ir.groups.find((g) => g.path.join('.') === `fm.${name}`)!;
    const mult = functionIndex(group('mult'))!;
    expect(mult.entries.map((e) => e.key)).toEqual(['k', 'M', '', 1, true, null, 'q']);
    expect(mult.entries.find((e) => e.key === 'M')!.defs).toEqual([1, 7]);
    expect(mult.always).toEqual([6]);
    expect((functionIndex(group('two'))!.ref as unknown as { local: number }).local).toBe(1);
    // no two definitions with a constant at one position: no index
    expect(functionIndex(group('pick'))).toBeUndefined();
  });

  it('answers as the JS back end does (hits, misses, composites, several definitions per key, conflicts)', async () => {
    ensureRuntime();
    const host = await WasmPolicy.load(await compileWasm([{ file: 'fm.rego', text }], ['fm/out', 'fm/out2', 'fm/miss', 'fm/conflict']));
    host.setData({});
    for (const ep of ['out', 'out2', 'miss']) expect(canonical(host.evaluate({}, `fm/${ep}`)), ep).toBe(jsAnswer(text, ['fm', ep], {}));
    expect(host.evaluate({}, 'fm/out')[0]!.result).toEqual([1000, 1000000, 1, 'short', 'one', 'one', 'true', 'null']);
    for (const x of ['k', 'M', 'z', 'zz']) expect(canonical(host.evaluate({ x }, 'fm/conflict')), x).toBe(jsAnswer(text, ['fm', 'conflict'], { x }));
    // "queue" and "short" (the unindexed definition runs for every key): a conflict on both back ends
    expect(() => host.evaluate({ x: 'q' }, 'fm/conflict')).toThrow(/multiple outputs/);
    expect(() => jsAnswer(text, ['fm', 'conflict'], { x: 'q' })).toThrow();
  });
});
