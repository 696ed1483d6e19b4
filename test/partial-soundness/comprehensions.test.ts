// Partial evaluation of array and object comprehensions whose body splits into
// several residual alternatives (a known iteration under an unknown condition): as
// OPA does, the whole comprehension is saved in the residual with its outer
// bindings appended (compiler/partial/comprehension.ts), so order and duplicates
// survive. Each case is checked for soundness as the conformance-suite check does
// (soundness.ts): partially evaluate with `input` unknown, evaluate the residual
// queries (and support modules) with each input, and compare the rows with a
// normal evaluation of the query.
import { describe, expect, it } from 'vitest';
import { compile, partialEval, type CompiledPolicy } from '../../compiler/index.js';
import { fromJS, toJSONText, RObject, type Value } from '../../runtime/value/index.js';
import { residualText, supportText } from './soundness.js';

interface Case {
  name: string;
  module?: string;
  /** Base data for partial and normal evaluation; the residual runs without it. */
  data?: Record<string, unknown>;
  query: string;
  inputs: unknown[];
}

const CASES: Case[] = [
  { name: 'array over a known collection, filtered by the input', query: 'y := [v | some v in [3, 1, 2, 1]; v > input.min]', inputs: [{ min: 0 }, { min: 1 }, { min: 2 }, { min: 5 }, {}] },
  { name: 'object over a known object, filtered by the input', query: 'y := {k: v | some k, v in {"a": 1, "b": 2, "c": 3}; v != input.skip}', inputs: [{ skip: 2 }, { skip: 9 }, { skip: 'x' }] },
  { name: 'array rule with duplicates, inlined', module: 'package t\n\nlow := [x | some x in [3, 1, 2, 1]; x < input.n]\n', query: 'y := data.t.low', inputs: [{ n: 0 }, { n: 2 }, { n: 3 }, { n: 10 }] },
  { name: 'a known outer binding', query: 'z := 2; y := [v | some v in [1, 2, 3]; v * z > input.n]', inputs: [{ n: 1 }, { n: 3 }, { n: 7 }] },
  { name: 'a residual outer binding', query: 'z := input.k; y := [v | some v in [1, 2, 3]; v > z]', inputs: [{ k: 0 }, { k: 2 }, {}] },
  { name: 'object comprehension with a computed value', query: 'z := input.f; y := {v: w | some v in [1, 2, 3]; w := v * z; v > input.a}', inputs: [{ f: 2, a: 1 }, { f: 10, a: 0 }, { f: 1, a: 3 }] },
  { name: 'nested comprehensions', query: 'y := [[w | some w in [1, 2]; w != v] | some v in [1, 2, 3]; v != input.a]', inputs: [{ a: 1 }, { a: 3 }, { a: 'x' }] },
  { name: 'counted in a test', query: 'count([v | some v in ["a", "b", "a"]; v != input.s]) == 2', inputs: [{ s: 'b' }, { s: 'a' }, { s: 'c' }] },
  { name: 'a known rule, plugged as its value', module: 'package t\n\nnums := [3, 1, 2, 1]\n\nlow := [x | some x in nums; x < input.n]\n', query: 'y := data.t.low', inputs: [{ n: 0 }, { n: 2 }, { n: 3 }] },
  { name: 'known base data with a variable key, plugged', data: { limits: { a: [5, 1, 5], b: [2] } }, query: 'y := [v | some k in ["a", "b"]; some v in data.limits[k]; v >= input.min]', inputs: [{ min: 0 }, { min: 2 }, { min: 6 }] },
  { name: 'wildcards and a helper var inside', query: 'y := [x | some i, _ in ["p", "q", "r"]; x := i * 10; i != input.i]', inputs: [{ i: 0 }, { i: 2 }, {}] },
];

/** Rows whose expressions are all defined and not false (partial evaluation treats false as failure). */
function rows(policy: CompiledPolicy, query: string, input: Value | undefined, data: Value): string[] {
  const out = policy
    .prepare(query)
    .eval({ ...(input !== undefined ? { input } : {}), data })
    .filter((r) => r.expressions.every((x) => x.value !== undefined && x.value !== false))
    .map((r) => {
      const o = new RObject();
      for (const [k, v] of Object.entries(r.bindings)) if (!k.startsWith('__pe')) o.set(k, v);
      return toJSONText(o);
    });
  return [...new Set(out)].sort();
}

describe('partial evaluation saves array/object comprehensions with several residual alternatives', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const policy = compile(c.module ? [{ file: 't.rego', text: c.module }] : []);
      const data = fromJS((c.data ?? {}) as never);
      const pe = partialEval(policy, c.query, { unknowns: ['input'], data });
      expect(pe.queries.length).toBeGreaterThan(0);
      const support = pe.support.map((m, i) => ({ file: `support${i}.rego`, text: supportText(m) }));
      const residualPolicy = compile(support.length > 0 ? support : [{ file: 'empty.rego', text: 'package __empty' }]);
      const texts = pe.queries.map(residualText);
      // The residual keeps a comprehension (not one alternative per element).
      expect(texts.join('\n'), 'a saved comprehension').toMatch(/[[{][^|]*\|/);
      for (const raw of c.inputs) {
        const input = fromJS(raw as never);
        const want = rows(policy, c.query, input, data);
        const got = [...new Set(texts.flatMap((t) => rows(residualPolicy, t, input, new RObject())))].sort();
        expect(got, `input ${JSON.stringify(raw)}; residual: ${texts.join(' OR ')}`).toEqual(want);
      }
    });
  }

  it('still refuses a comprehension that calls a policy function (the residual would need the policy)', () => {
    const p2 = compile([{ file: 't.rego', text: 'package t\n\nok(x) if x != 2\n\nlow := [x | some x in [3, 1, 2]; ok(x); x < input.n]\n' }]);
    expect(() => partialEval(p2, 'y := data.t.low', { unknowns: ['input'] })).toThrow(/refers to data/);
  });
});
