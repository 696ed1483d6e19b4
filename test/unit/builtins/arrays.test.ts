// Unit tests for array.* builtins (arrays.ts), transcribed from OPA's array
// conformance folder (concat, slice clamping, flatten), plus reverse and edges.
import { describe, it, expect } from 'vitest';
import { builtins } from '../../../runtime/builtins/arrays.js';
import { RObject, parseNumber, type Value } from '../../../runtime/value/index.js';
import { callerFor, builtinErrors } from './helpers.js';

const call = callerFor(builtins);
const err = builtinErrors(call);
const obj = RObject.fromEntries([['v1', 'hello'], ['v2', 'goodbye']]);

describe('array.concat', () => {
  it('concatenates', () => {
    expect(call('array.concat', [[1, 2], [3, 4]])).toEqual([1, 2, 3, 4]);
    expect(call('array.concat', [[], []])).toEqual([]);
    expect(call('array.concat', [[], [1]])).toEqual([1]);
  });
  it('type errors', () => {
    expect(err('array.concat', [obj, [3, 4]])).toBe('eval_type_error: array.concat: operand 1 must be array but got object');
    expect(err('array.concat', [[1, 2], obj])).toBe('eval_type_error: array.concat: operand 2 must be array but got object');
  });
});

describe('array.slice', () => {
  it('slices with clamping', () => {
    expect(call('array.slice', [[1, 2, 3, 4, 5], 1, 3])).toEqual([2, 3]);
    expect(call('array.slice', [[1, 2, 3], 0, 0])).toEqual([]);
    expect(call('array.slice', [[1, 2, 3, 4, 5], -4, -1])).toEqual([]);
    expect(call('array.slice', [[1, 2, 3], -10, 2])).toEqual([1, 2]);
    expect(call('array.slice', [[1, 2, 3], 1, 100])).toEqual([2, 3]);
    expect(call('array.slice', [[1, 2, 3], 2, 1])).toEqual([]);
    expect(call('array.slice', [[1, 2, 3], 0, 3])).toEqual([1, 2, 3]);
    expect(call('array.slice', [[], 0, 10])).toEqual([]);
  });
  it('type errors', () => {
    expect(err('array.slice', [[1], 'a', 1])).toBe('eval_type_error: array.slice: operand 2 must be number but got string');
    expect(err('array.slice', [[1], 0, 1.5])).toBe(
      'eval_type_error: array.slice: operand 3 must be integer number but got floating-point number',
    );
    expect(err('array.slice', [[1], 0, parseNumber('1e30')])).toBe(
      'eval_type_error: array.slice: operand 3 must be integer number but got floating-point number',
    );
    expect(err('array.slice', ['abc', 0, 1])).toBe('eval_type_error: array.slice: operand 1 must be array but got string');
  });
});

describe('array.reverse', () => {
  it('reverses without mutating', () => {
    const input: Value[] = [1, 'two', [3]];
    expect(call('array.reverse', [input])).toEqual([[3], 'two', 1]);
    expect(input).toEqual([1, 'two', [3]]);
    expect(call('array.reverse', [[]])).toEqual([]);
    expect(err('array.reverse', [null])).toBe('eval_type_error: array.reverse: operand 1 must be array but got null');
  });
});

describe('array.flatten', () => {
  it('flattens one level', () => {
    expect(call('array.flatten', [[]])).toEqual([]);
    expect(call('array.flatten', [[[1, 2], [3, 4], [5]]])).toEqual([1, 2, 3, 4, 5]);
    expect(call('array.flatten', [[[[1], [2, 3, []]], [[4, 5]]]])).toEqual([[1], [2, 3, []], [4, 5]]);
    const a = RObject.fromEntries([['a', 'b']]);
    expect(call('array.flatten', [[[1, 2], 'string', [3, a], 4.5, [6, [7, 8]]]])).toEqual([1, 2, 'string', 3, a, 4.5, 6, [7, 8]]);
  });
  it('type error', () => {
    expect(err('array.flatten', [42])).toBe('eval_type_error: array.flatten: operand 1 must be array but got number');
  });
});
