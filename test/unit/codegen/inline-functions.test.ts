// Calls of small one-constant leaf functions that the JS back end runs in place
// (compiler/codegen/js/emit-inline-call.ts) must give what the closure back end and the
// reference interpreter give: several definitions tried in order, a default function
// value, an undefined result, argument patterns (constants, arrays, repeated
// variables), calls inside loops and comprehensions, a function calling another, `with`
// function mocks (`with f as g`, `with f as true`: the call then goes through
// Program.callFunction), a builtin error raised inside the inlined body, and `with data`
// replacements read by the body. Calls made from generated code no longer reach
// Program.callFunction when no mock is active.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { prepareInterpreted } from '../../../compiler/interp/index.js';
import { expectSameOutcomes, queryOutcome } from './three-way.js';
import { Program } from '../../../compiler/codegen/js/program.js';
import { fromJS, toJS } from '../../../runtime/index.js';

const POLICY = `package p

kind_ok(x, "one") if x == 1
kind_ok(x, "big") if x > 10
kind_ok(x, "any") if true

default named(_) := "none"
named(x) := "some" if x > 0
named(x) := "some" if x == "some"

pair_ok([a, b]) if a == b
same(x, x) if true

num_ok(x) if to_number(x) > 0

limit_ok(x) if x <= data.limit

outer_ok(x, k) if kind_ok(x, k)
outer_ok(x, k) if {
	k == "twice"
	kind_ok(x, "one")
}

one if kind_ok(input.n, input.k)
named_n := named(input.n)
named_k := named(input.k)
pairs := [p | some p in input.pairs; pair_ok(p)]
sames if same(input.n, input.n)
differ if same(input.n, input.k)
count_big := count([x | some x in input.xs; kind_ok(x, "big")])
all_small if {
	every x in input.xs {
		not kind_ok(x, "big")
	}
}
some_one if {
	some x in input.xs
	outer_ok(x, "twice")
}
nested if outer_ok(input.n, input.k)
converted if num_ok(input.s)
limited if limit_ok(input.n)
limited_replaced if limited with data.limit as 100

always_ok(_, _) if true
via_rule if kind_ok(input.n, "none")
mocked if via_rule with kind_ok as always_ok
mocked_true if via_rule with kind_ok as true
mocked_named := x if {
	x := named_n with named as "mocked"
}
`;

const DATA = { limit: 5 };

const INPUTS = [
  { n: 1, k: 'one', s: '3', xs: [1, 20, 30], pairs: [[1, 1], [1, 2], [3], ['a', 'a']] },
  { n: 20, k: 'big', s: '-1', xs: [1, 2], pairs: [] },
  { n: 3, k: 'twice', s: '1', xs: [], pairs: [[[1], [1]]] },
  { n: 'some', k: 'any', s: '0', xs: [11], pairs: [[1, '1']] },
  { n: 0, k: 0, s: '2', xs: [1] },
  { n: 1, k: 'twice', s: 'not a number', xs: [1, 2, 3] },
];

const QUERIES = [
  'data.p.one',
  'data.p.named_n',
  'data.p.named_k',
  'data.p.pairs',
  'data.p.sames',
  'data.p.differ',
  'data.p.count_big',
  'data.p.all_small',
  'data.p.some_one',
  'data.p.nested',
  'data.p.converted',
  'data.p.limited',
  'data.p.limited_replaced',
  'data.p.via_rule',
  'data.p.mocked',
  'data.p.mocked_true',
  'data.p.mocked_named',
  'data.p',
];

describe('in-place function calls', () => {
  const js = compile([{ file: 'p.rego', text: POLICY }]);
  const closures = compile([{ file: 'p.rego', text: POLICY }], { backend: 'closures' });
  const data = fromJS(DATA);
  afterEach(() => vi.restoreAllMocks());

  for (const input of INPUTS) {
    it(`agree for ${JSON.stringify(input)}`, () => {
      expectSameOutcomes(js, closures, QUERIES, { input: fromJS(input), data });
    });
  }

  it('raises the builtin error of the inlined body (strict builtin errors)', () => {
    const opts = { input: fromJS({ s: 'x' }), data, strictBuiltinErrors: true };
    const a = queryOutcome(() => js.prepare('data.p.converted').eval(opts) as never);
    expect('error' in a && a.error).toMatch(/to_number/);
    expect(a).toEqual(queryOutcome(() => closures.prepare('data.p.converted').eval(opts) as never));
    expect(a).toEqual(queryOutcome(() => prepareInterpreted(js, 'data.p.converted').eval(opts) as never));
  });

  it('runs the calls in place when no mock is active', () => {
    const spy = vi.spyOn(Program.prototype, 'callFunction');
    const i = fromJS(INPUTS[0]);
    for (const q of ['data.p.one', 'data.p.count_big', 'data.p.some_one', 'data.p.named_n']) js.prepare(q).eval({ input: i, data });
    expect(spy).not.toHaveBeenCalled();
    expect(toJS(js.prepare('data.p.mocked').eval({ input: i, data })[0]!.expressions[0]!.value)).toBe(true);
    expect(spy).toHaveBeenCalled();
  });
});
