// Unit tests for comparison operators (comparison.ts), transcribed from OPA's
// comparisonexpr conformance folder (decimal ordering, big numbers, mixed types).
import { describe, it, expect } from 'vitest';
import { builtins } from '../../../runtime/builtins/comparison.js';
import { RObject, RSet, parseNumber, type Value } from '../../../runtime/value/index.js';
import { callerFor } from './helpers.js';

const call = callerFor(builtins);
const N = parseNumber;
const order = (a: Value, b: Value): number => (call('lt', [a, b]) ? -1 : call('gt', [a, b]) ? 1 : call('equal', [a, b]) ? 0 : NaN);

describe('numeric order', () => {
  const cases: [string, string, string, number][] = [
    ['int, fraction', '3', '3.5', -1],
    ['fraction, fraction', '3.25', '3.5', -1],
    ['trailing zero', '3.50', '3.5', 0],
    ['exponent', '1e2', '100', 0],
    ['exponent, fraction', '1E+2', '100.0', 0],
    ['negative exponent', '1e-1', '0.10', 0],
    ['close', '0.1', '0.10000000000001', -1],
    ['signs', '-2.5', '2.5', -1],
    ['negatives', '-2.5', '-2.25', -1],
    ['negative zero', '-0', '0', 0],
    ['zero, fraction', '0.0', '0.001', -1],
    ['negative fraction, zero', '-0.001', '0', -1],
    ['leading zeros after the point', '0.000000000000001', '0.000000000000002', -1],
    ['fewer leading zeros', '0.01', '0.001', 1],
    ['fewer leading zeros, negative', '-0.5', '-0.05', -1],
    ['zero, negative', '0', '-0.001', 1],
    ['negative zero, negative', '-0', '-2.5', 1],
    ['15 digits', '123456789012345', '123456789012345.5', -1],
    ['15 digits, exponent', '999999999999999', '1e15', -1],
    ['magnitudes', '1e299', '1e-299', 1],
    ['negative magnitudes', '-1e299', '1e-299', -1],
    ['beyond float64 exponent', '1e400', '1e399', 1],
    ['tiny', '1e-400', '0', 1],
    ['more than 15 digits', '0.1234567890123456789', '0.1234567890123456788', 1],
    ['integers beyond int64', '1234567890123456789012', '1234567890123456789013', -1],
  ];
  for (const [label, a, b, want] of cases) {
    it(label, () => expect(order(N(a), N(b))).toBe(want));
  }
  it('big integers are unequal when they differ in the last digit', () => {
    expect(call('neq', [N('28857836529306024611913'), N('28857836529306024611912')])).toBe(true);
  });
});

describe('operators', () => {
  it('compare across types in Rego order', () => {
    expect(call('lt', [null, false])).toBe(true);
    expect(call('lt', [true, 0])).toBe(true);
    expect(call('lt', [99, 'a'])).toBe(true);
    expect(call('lt', ['z', []])).toBe(true);
    expect(call('lt', [[], new RObject()])).toBe(true);
    expect(call('lt', [new RObject(), new RSet()])).toBe(true);
  });
  it('all six operators', () => {
    expect([call('equal', [1, 1]), call('neq', [0, 1]), call('gt', [1, 0]), call('gte', [1, 1]), call('lt', [-1, 0]), call('lte', [-1, 0])]).toEqual(
      [true, true, true, true, true, true],
    );
    expect([call('equal', [0, 1]), call('gte', [1, 2]), call('lte', [2, 1]), call('neq', [1, 1.0])]).toEqual([false, false, false, false]);
  });
  it('compares composites structurally', () => {
    expect(call('equal', [RSet.of([1, 2]), RSet.of([2, 1])])).toBe(true);
    expect(call('equal', [RObject.fromEntries([['a', [1, 2]]]), RObject.fromEntries([['a', [1, 2]]])])).toBe(true);
    expect(call('lt', [[1, 2], [1, 3]])).toBe(true);
    expect(call('lt', [[1, 2], [1, 2, 0]])).toBe(true);
    expect(call('equal', ['é', 'e\u0301'])).toBe(false);
  });
  it('declares infix symbols, eq and assign', () => {
    const infix = Object.fromEntries(builtins.map((b) => [b.decl.name, b.decl.infix]));
    expect(infix).toEqual({ equal: '==', neq: '!=', lt: '<', lte: '<=', gt: '>', gte: '>=', eq: '=', assign: ':=' });
  });
});
