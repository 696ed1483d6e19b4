// Unit tests for set builtins and the `in` operator (sets.ts), transcribed from
// OPA's sets, intersection and aggregates (membership) conformance folders.
import { describe, it, expect } from 'vitest';
import { builtins } from '../../../runtime/builtins/sets.js';
import { RObject, RSet, type Value } from '../../../runtime/value/index.js';
import { callerFor, builtinErrors } from './helpers.js';

const call = callerFor(builtins);
const err = builtinErrors(call);
const S = (...xs: Value[]): RSet => RSet.of(xs);
const O = (...kv: [Value, Value][]): RObject => RObject.fromEntries(kv);
const vals = (v: Value | undefined): Value[] => (v as RSet).values();

describe('binary set operators', () => {
  it('& and |', () => {
    expect(vals(call('and', [S(1, 2, 3), S(2, 3, 4)]))).toEqual([2, 3]);
    expect(vals(call('or', [S(3, 2, 3), S(3, 4, 3)]))).toEqual([2, 3, 4]);
    expect(vals(call('and', [S(), S(1)]))).toEqual([]);
    expect(vals(call('or', [S(), S()]))).toEqual([]);
  });
  it('type errors', () => {
    expect(err('and', [[1], S()])).toBe('eval_type_error: and: operand 1 must be set but got array');
    expect(err('or', [S(), 'x'])).toBe('eval_type_error: or: operand 2 must be set but got string');
  });
});

describe('intersection and union', () => {
  it('intersects', () => {
    expect(vals(call('intersection', [S(S(), S(1, 2))]))).toEqual([]);
    expect(vals(call('intersection', [S(S(1, 2, 3), S(2, 3, 4), S(4, 5, 6))]))).toEqual([]);
    expect(vals(call('intersection', [S(S('a', 'b', 'c', 'd'), S('b', 'c', 'd'), S('c', 'd'), S('d'))]))).toEqual(['d']);
    expect(vals(call('intersection', [S()]))).toEqual([]);
  });
  it('unions', () => {
    expect(vals(call('union', [S(S(1, 2), S(2, 3), S())]))).toEqual([1, 2, 3]);
    expect(vals(call('union', [S()]))).toEqual([]);
    expect(vals(call('union', [S(S('a', 'b'))]))).toEqual(['a', 'b']);
    expect(vals(call('union', [S(S(), S('b', 'a'), S(), S('c', 'a'), S('d'))]))).toEqual(['a', 'b', 'c', 'd']);
    // The members are not changed by a union built from them.
    const first = S('x');
    const second = S('y');
    expect(vals(call('union', [S(first, second)]))).toEqual(['x', 'y']);
    expect(vals(first)).toEqual(['x']);
    expect(vals(second)).toEqual(['y']);
  });
  it('type errors', () => {
    expect(err('intersection', [[S()]])).toBe('eval_type_error: intersection: operand 1 must be set but got array');
    expect(err('union', [S(1)])).toBe('eval_type_error: union: operand 1 must be set but got number');
    expect(err('union', [S(S(), S('a'), 1)])).toBe('eval_type_error: union: operand 1 must be set but got number');
  });
});

describe('membership (in)', () => {
  const m2 = (x: Value, c: Value): Value | undefined => call('internal.member_2', [x, c]);
  const m3 = (k: Value, v: Value, c: Value): Value | undefined => call('internal.member_3', [k, v, c]);
  it('x in collection', () => {
    expect(m2(1, S(1))).toBe(true);
    expect(m2(1, [1])).toBe(true);
    expect(m2(1, O(['foo', 1]))).toBe(true);
    expect(m2(1, S(2))).toBe(false);
    expect(m2(1, [2])).toBe(false);
    expect(m2('foo', O(['foo', 2]))).toBe(false);
    expect(m2(S(1, 2), [S(2, 1)])).toBe(true);
    expect(m2(O(['foo', O(['baz', 2000])]), [O(['foo', O(['baz', 2000])])])).toBe(true);
    expect(m2(3.5, S(3.5))).toBe(true);
  });
  it('non-collections give false', () => {
    expect(m2(1, 'foo')).toBe(false);
    expect(m2('foo', 1)).toBe(false);
    expect(m2(null, null)).toBe(false);
  });
  it('k, v in collection', () => {
    expect(m3('foo', 1, O(['foo', 1]))).toBe(true);
    expect(m3(1, 'two', ['one', 'two', 'three'])).toBe(true);
    expect(m3(1, 2, [2])).toBe(false);
    expect(m3(0, 2, [2])).toBe(true);
    expect(m3(-1, 2, [2])).toBe(false);
    expect(m3(0.5, 2, [2])).toBe(false);
    expect(m3('0', 2, [2])).toBe(false);
    expect(m3(1, 'foo', 1)).toBe(false);
    expect(m3(1, 1, S(1))).toBe(false);
    expect(m3(O(['foo', 100]), 'ever', O([O(['foo', 100]), 'ever']))).toBe(true);
  });
  it('declares the in operator', () => {
    expect(builtins.filter((b) => b.decl.infix === 'in').map((b) => b.decl.args.length)).toEqual([2, 3]);
  });
});
