// Function definitions whose slots fit in locals take their argument list directly
// (compiler/codegen/js rule-compiler.ts `runArgs`, emit.ts parameters matched into
// locals): no frame array and no parameter closures per call. Against the closure back
// end and the reference interpreter: variable, constant, array and object parameters, a
// repeated variable, a parameter compared after the body (a ref), `else` chains (a
// parameter mismatch is no solution, and the else cannot match either), conflicting
// outputs (an error on every back end), and calls from comprehensions and other functions.
import { describe, expect, it } from 'vitest';
import { compile } from '../../compiler/index.js';
import { prepareInterpreted } from '../../compiler/interp/index.js';
import { fromJS, toJS, type Value } from '../../runtime/index.js';
import { rows } from './first-values.js';

const POLICY = `package p

kind("string", v) := "s" if is_string(v)
kind("number", v) := "n" if is_number(v)
kind(_, v) := "any" if v == null

pair([a, b]) := a + b

named({"name": n, "age": a}) := sprintf("%s:%d", [n, a])

same(x, x) := true

late(input.want) := "hit"

sign(x) := "pos" if {
	x > 0
} else := "zero" if {
	x == 0
} else := "neg"

only_two(2) := "two" if true else := "other"

clash(x) := 1 if x > 0
clash(x) := 2 if x > 1

twice(xs) := [y | some x in xs; y := pair([x, x])]

results := {
	"kind": [kind("string", "a"), kind("number", 1), kind("string", null)],
	"pair": pair([1, 2]),
	"named": named({"name": "ann", "age": 3}),
	"same": [r | some x in [1, 2]; some y in [1, 2]; r := same(x, y)],
	"late": late("w"),
	"sign": [sign(3), sign(0), sign(-1)],
	"twice": twice([1, 2]),
}

mismatch := [only_two(2), only_two(3)]

miss := kind("bool", true)

conflict := clash(2)

one := clash(1)
`;

const EXPECTED: Record<string, unknown> = {
  results: { kind: ['s', 'n', 'any'], pair: 3, named: 'ann:3', same: [true, true], late: 'hit', sign: ['pos', 'zero', 'neg'], twice: [2, 4] },
  one: 1,
};

describe('functions called with their argument list', () => {
  const js = compile([{ file: 'p.rego', text: POLICY }]);
  const closures = compile([{ file: 'p.rego', text: POLICY }], { backend: 'closures' });
  const input = fromJS({ want: 'w' });
  const data = fromJS({});

  it('take the argument list in generated code where their slots fit in locals (made on first call)', () => {
    rows(js.prepare('data.p.results'), input, data);
    const defs = (js.program as unknown as { defs: { runArgs?: unknown }[][] }).defs;
    const group = (name: string) => js.ir.groups.findIndex((g) => g.path.join('.') === `p.${name}`);
    // `same(x, x) := true` is a small one-constant leaf function: its calls run in place
    // (compiler/codegen/js/emit-inline-call.ts, test/unit/codegen/inline-functions.test.ts),
    // so its argument-list body is never generated (it stays the lazy stub).
    expect(String(defs[group('same')]![0]!.runArgs)).not.toMatch(/^function \(f, c, sink\)/);
    for (const name of ['kind', 'pair', 'named', 'sign', 'twice']) expect(String(defs[group(name)]![0]!.runArgs), name).toMatch(/^function \(f, c, sink\)/);
  });

  for (const rule of ['results', 'mismatch', 'miss', 'conflict', 'one']) {
    it(`${rule}: the closure back end's and the interpreter's result`, () => {
      const q = `data.p.${rule}`;
      const a = rows(js.prepare(q), input, data);
      expect(a).toEqual(rows(closures.prepare(q), input, data));
      expect(a).toEqual(rows(prepareInterpreted(js, q), input, data));
      if (rule in EXPECTED) expect(a).toEqual([EXPECTED[rule]]);
    });
  }

  it('give an else chain no solution when the parameters do not match', () => {
    expect(rows(js.prepare('data.p.mismatch'), input, data)).toEqual([]);
    expect(rows(js.prepare('data.p.miss'), input, data)).toEqual([]);
    expect(String(rows(js.prepare('data.p.conflict'), input, data))).toMatch(/^error: .*functions must not produce multiple outputs/);
  });
});
