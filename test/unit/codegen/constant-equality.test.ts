// Equality against a constant string, boolean or null is `===` in generated code
// (compiler/codegen/js/emit-exprs.ts equality: function parameter patterns, unification
// with a constant, array patterns, `==` and `!=`). No value of another type may equal such a constant
// (a number 1 is not "1", false is not null), and a value of the same type equals it
// only by content: the JS back end must agree with the closure back end and the
// interpreter for every kind of value.
import { describe, expect, it } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { expectSameOutcomes } from './three-way.js';
import { fromJS, toJS } from '../../../runtime/index.js';

const POLICY = `package p

kind("one") := "string one"
kind(true) := "true"
kind(null) := "null"
kind(1) := "number one"
default kind(_) := "other"

named := kind(input.v)
is_one if input.v = "one"
is_null if null = input.v
is_true if input.v = true
eq_one if input.v == "one"
neq_one if input.v != "one"
eq_false if false == input.v
neq_null if input.v != null
pair_b := x if ["a", x] = input.pair
in_loop contains k if {
	some x in input.list
	k := kind(x)
}
`;

const VALUES = ['one', 'One', '1', 1, 1.0, true, false, null, [], ['one'], {}, { one: 'one' }, ''];

const QUERIES = ['data.p.named', 'data.p.is_one', 'data.p.is_null', 'data.p.is_true', 'data.p.eq_one', 'data.p.neq_one', 'data.p.eq_false', 'data.p.neq_null', 'data.p.pair_b', 'data.p.in_loop'];

describe('equality with a constant', () => {
  const js = compile([{ file: 'p.rego', text: POLICY }]);
  const closures = compile([{ file: 'p.rego', text: POLICY }], { backend: 'closures' });
  const data = fromJS({});

  for (const v of VALUES) {
    it(`agrees with the closures and the interpreter for ${JSON.stringify(v)}`, () => {
      expectSameOutcomes(js, closures, QUERIES, { input: fromJS({ v, pair: ['a', v], list: VALUES }), data });
    });
  }

  it('tells types apart', () => {
    const named = (v: unknown): unknown => toJS(js.prepare('data.p.named').eval({ input: fromJS({ v }), data })[0]!.expressions[0]!.value);
    expect(named('one')).toBe('string one');
    expect(named('1')).toBe('other');
    expect(named(1)).toBe('number one');
    expect(named(true)).toBe('true');
    expect(named(null)).toBe('null');
    expect(named(false)).toBe('other');
  });
});
