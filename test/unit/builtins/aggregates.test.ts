// Unit tests for count, sum, product, max, min, sort (aggregates.ts), transcribed
// from OPA's aggregates and comparisonexpr conformance folders, plus edge cases.
import { describe, it, expect } from 'vitest';
import { builtins } from '../../../runtime/builtins/aggregates.js';
import { RObject, RSet, parseNumber } from '../../../runtime/value/index.js';
import { callerFor, builtinErrors, numberText as txt } from './helpers.js';

const call = callerFor(builtins);
const err = builtinErrors(call);
const N = parseNumber;

describe('count', () => {
  it('counts collections', () => {
    expect(call('count', [[1, 2, 3, 4]])).toBe(4);
    expect(call('count', [RSet.of([1, 2, 2])])).toBe(2);
    expect(call('count', [RObject.fromEntries([['v1', 'hello'], ['v2', 'goodbye']])])).toBe(2);
    expect(call('count', [[]])).toBe(0);
    expect(call('count', [''])).toBe(0);
  });
  it('counts code points, not UTF-16 units', () => {
    expect(call('count', ['héllo'])).toBe(5);
    expect(call('count', ['😀😀'])).toBe(2);
    expect(call('count', ['a\u{1F469}\u200D\u{1F4BB}'])).toBe(4);
    expect(call('count', ['\uD800x'])).toBe(2);
  });
  it('rejects other types', () => {
    expect(err('count', [1])).toBe('eval_type_error: count: operand 1 must be one of {array, object, set, string} but got number');
    expect(err('count', [null])).toBe('eval_type_error: count: operand 1 must be one of {array, object, set, string} but got null');
  });
});

describe('sum and product', () => {
  it('sums sets and arrays', () => {
    expect(call('sum', [RSet.of([1, 2, 3, 4])])).toBe(10);
    expect(call('sum', [[1, 2, 3, 4]])).toBe(10);
    expect(call('sum', [[]])).toBe(0);
    expect(call('sum', [[1.5, 2.5]])).toBe(4);
    expect(call('sum', [[1, 2.5]])).toBe(3.5);
    expect(call('sum', [[0.1, 0.2]])).toBe(0.3);
  });
  it('is exact beyond 64 bits', () => {
    expect(txt(call('sum', [[N('18446744073709551617'), 1]]))).toBe('18446744073709551618');
    expect(txt(call('sum', [RSet.of([N('18446744073709551617'), 1])]))).toBe('18446744073709551618');
    expect(txt(call('sum', [[N('9223372036854775807'), 1]]))).toBe('9223372036854775808');
    expect(txt(call('sum', [RSet.of([N('9223372036854775807'), 1, 2])]))).toBe('9223372036854775810');
    expect(txt(call('sum', [[N('-9223372036854775808'), -1]]))).toBe('-9223372036854775809');
    expect(txt(call('sum', [[N('9223372036854775806'), 1]]))).toBe('9223372036854775807');
    expect(txt(call('sum', [[9007199254740991, 9007199254740991]]))).toBe('18014398509481982');
  });
  it('multiplies', () => {
    expect(call('product', [RSet.of([1, 2, 3, 4])])).toBe(24);
    expect(call('product', [[2, 3, 4]])).toBe(24);
    expect(call('product', [[]])).toBe(1);
    expect(call('product', [[1.5, 2]])).toBe(3);
    expect(txt(call('product', [[N('18446744073709551617'), 2]]))).toBe('36893488147419103234');
  });
  it('rejects non-numbers', () => {
    expect(err('sum', [[1, 'a']])).toBe('eval_type_error: sum: operand 1 must be array of numbers but got array containing string');
    expect(err('product', [RSet.of([null])])).toBe('eval_type_error: product: operand 1 must be set of numbers but got set containing null');
    expect(err('sum', ['abc'])).toBe('eval_type_error: sum: operand 1 must be one of {set, array} but got string');
  });
});

describe('max, min, sort', () => {
  it('finds max and min', () => {
    expect(call('max', [RSet.of([1, 2, 3, 4])])).toBe(4);
    expect(call('min', [[3, 2, 1, 4, 6, -7, 10]])).toBe(-7);
    expect(call('max', [[3, 3.5, 3.25, 3.4999]])).toBe(3.5);
    expect(call('min', [[3, 3.5, 2.75, 2.7499]])).toBe(2.7499);
    expect(call('max', [[null, 'a', 1]])).toBe('a');
    expect(call('min', [RSet.of(['b', false])])).toBe(false);
  });
  it('is undefined on empty collections', () => {
    expect(call('max', [[]])).toBeUndefined();
    expect(call('min', [new RSet()])).toBeUndefined();
  });
  it('sorts arrays and sets in Rego order', () => {
    expect(call('sort', [[4, 3, 2, 1]])).toEqual([1, 2, 3, 4]);
    expect(call('sort', [[3.5, 3, 3.25, -2.5, 3.5, 1, 0.5]])).toEqual([-2.5, 0.5, 1, 3, 3.25, 3.5, 3.5]);
    expect(call('sort', [['b', 1, null, true, 'a']])).toEqual([null, true, 1, 'a', 'b']);
    expect(call('sort', [RSet.of(['z', 'a'])])).toEqual(['a', 'z']);
    expect(call('sort', [[]])).toEqual([]);
    const input = [2, 1];
    call('sort', [input]);
    expect(input).toEqual([2, 1]);
  });
  it('reports type errors', () => {
    expect(err('max', [1])).toBe('eval_type_error: max: operand 1 must be one of {set, array} but got number');
    expect(err('sort', [RObject.fromEntries([])])).toBe('eval_type_error: sort: operand 1 must be one of {set, array} but got object');
  });
});
