// User-function results are memoized per evaluation context (compiler/codegen/js/
// program.ts callFunction, runtime/eval/context.ts fnMemos), as OPA memoizes function
// outputs: a second call with the same arguments reuses the first result. The memo
// must not leak across `with` (input, data, function mocks), must tell apart
// arguments that differ (composites by identity, 1 and "1"), and remember undefined
// results only in policies without `print` (OPA keeps only defined ones: with a
// `print`, an undefined call must run, and print, again). Checked against the reference interpreter and expected values.
import { describe, expect, it } from 'vitest';
import { compile } from '../../compiler/index.js';
import { prepareInterpreted } from '../../compiler/interp/index.js';
import { fromJS, toJS, type Value } from '../../runtime/index.js';

const POLICY = `package p

f(x) := input.k[x]
from_data(x) := data.d[x]
g(x) := h(x) + 1
h(x) := x * 10
obj_a(o) := o.a
only_big(x) := x if x > 5
kind(x) := "string" if is_string(x)
kind(x) := "number" if is_number(x)
two(a, b) := concat("/", [a, b])

with_input := [a, b, c] if {
  a := f("a")
  b := f("a") with input.k as {"a": 2}
  c := f("a")
}
with_data := [a, b, c] if {
  a := from_data("a")
  b := from_data("a") with data.d as {"a": "mocked"}
  c := from_data("a")
}
mocks := [a, b, c, d] if {
  a := g(1)
  b := g(1) with h as 5
  c := g(1) with g as 0
  d := g(1)
}
composites := [obj_a({"a": 1}), obj_a({"a": input.n}), obj_a({"a": 1})]
undefined_twice := [x | some x in [1, 9, 1, 9]; only_big(x)]
kinds := [kind(1), kind("1"), kind(1), kind("1")]
pairs := [two("a", "b"), two("a", "c"), two("b", "a"), two("a", "b")]
zero := n if {
  n := count([x | some x in numbers.range(1, 50); g(x % 3) > 0])
}
`;

const EXPECTED: Record<string, unknown> = {
  with_input: [1, 2, 1],
  with_data: ['data', 'mocked', 'data'],
  mocks: [11, 6, 0, 11],
  composites: [1, 7, 1],
  undefined_twice: [9, 9],
  kinds: ['number', 'string', 'number', 'string'],
  pairs: ['a/b', 'a/c', 'b/a', 'a/b'],
  zero: 50,
};

const PRINTING = `package p

big(x) := x if {
  print("big", x)
  x > 5
}
r := [y | some y in [1, 1, 9, 9]; big(y)]
`;
// A defined call prints once even when it is the function's first call.
const PRINTING_FIRST = `package p

big(x) := x if {
  print("big", x)
  x > 5
}
r := [y | some y in [9, 9, 1, 1]; big(y)]
`;

describe('function result memo', () => {
  it('with print in the policy, keeps defined results only, as OPA', () => {
    for (const backend of ['js', 'closures'] as const) {
      const lines: string[] = [];
      const v = compile([{ file: 'p.rego', text: PRINTING }], { backend }).prepareDecision(['p', 'r'])({ data: fromJS({}), print: (m: string) => lines.push(m) });
      expect(v === undefined ? undefined : toJS(v)).toEqual([9, 9]);
      expect(lines.map((l) => l.replace(/^.*?: /, ''))).toEqual(['big 1', 'big 1', 'big 9']);
      const first: string[] = [];
      compile([{ file: 'p.rego', text: PRINTING_FIRST }], { backend }).prepareDecision(['p', 'r'])({ data: fromJS({}), print: (m: string) => first.push(m) });
      expect(first.map((l) => l.replace(/^.*?: /, ''))).toEqual(['big 9', 'big 1', 'big 1']);
    }
  });

  const input = fromJS({ k: { a: 1 }, n: 7 });
  const data = fromJS({ d: { a: 'data' } });
  for (const backend of ['js', 'closures'] as const) {
    const policy = compile([{ file: 'p.rego', text: POLICY }], { backend });
    for (const [rule, want] of Object.entries(EXPECTED)) {
      it(`${rule} (${backend})`, () => {
        const v = policy.prepareDecision(['p', rule])({ input, data });
        expect(v === undefined ? undefined : toJS(v)).toEqual(want);
        const q = (p: { eval: (o: { input?: Value; data: Value }) => { expressions: { value: Value }[] }[] }) => p.eval({ input, data }).map((r) => toJS(r.expressions[0]!.value));
        expect(q(policy.prepare(`data.p.${rule}`))).toEqual(q(prepareInterpreted(policy, `data.p.${rule}`)));
      });
    }
  }
});
