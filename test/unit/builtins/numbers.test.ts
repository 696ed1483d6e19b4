// Unit tests for the arithmetic builtins (numbers.ts), transcribed from OPA's
// conformance folders arithmetic, numbersrange, numbersrangestep and rand, plus edges.
import { describe, it, expect } from 'vitest';
import { builtins, MAX_RANGE_ELEMENTS } from '../../../runtime/builtins/numbers.js';
import { RSet, parseNumber, type Value } from '../../../runtime/value/index.js';
import { makeContext, callerFor, builtinErrors, numberText as txt } from './helpers.js';

const ctx = makeContext;
/** Each call gets a fresh context unless one is passed. */
const call = callerFor(builtins, ctx);
/** The error as OPA reports it: `code: name: message`. */
const err = builtinErrors(call);

const N = parseNumber;

describe('plus, minus, mul', () => {
  it('adds small and big integers exactly', () => {
    expect(call('plus', [2, 3])).toBe(5);
    expect(txt(call('plus', [N('18446744073709551617'), 1]))).toBe('18446744073709551618');
    expect(txt(call('plus', [N('123456789012345678901234567890'), 1]))).toBe('123456789012345678901234567891');
    expect(txt(call('plus', [N('1e30'), 1]))).toBe('1000000000000000000000000000001');
    expect(txt(call('plus', [N('9223372036854775807'), 1]))).toBe('9223372036854775808');
    expect(call('plus', [2147483647, 1])).toBe(2147483648);
  });
  it('adds fractions as decimals', () => {
    expect(call('plus', [1.5, 2.5])).toBe(4);
    expect(call('plus', [1, 2.5])).toBe(3.5);
    expect(call('plus', [0.1, 0.2])).toBe(0.3);
    expect(call('plus', [N('10.00'), 5])).toBe(15);
  });
  it('subtracts numbers and sets', () => {
    expect(txt(call('minus', [N('18446744073709551617'), 1]))).toBe('18446744073709551616');
    expect(txt(call('minus', [N('-18446744073709551617'), 1]))).toBe('-18446744073709551618');
    expect(call('minus', [-2147483648, 1])).toBe(-2147483649);
    const d = call('minus', [RSet.of([1, 2, 'c']), RSet.of(['c', 1])]) as RSet;
    expect(d.values()).toEqual([2]);
  });
  it('reports minus type errors as OPA', () => {
    expect(err('minus', [RSet.of([1]), 1])).toBe('eval_type_error: minus: operand 2 must be set but got number');
    expect(err('minus', [1, RSet.of([1])])).toBe('eval_type_error: minus: operand 2 must be number but got set');
    expect(err('minus', ['a', 1])).toBe('eval_type_error: minus: operand 1 must be one of {number, set} but got string');
    expect(err('plus', [1, 'a'])).toBe('eval_type_error: plus: operand 2 must be number but got string');
  });
  it('multiplies exactly', () => {
    expect(txt(call('mul', [N('18446744073709551617'), 2]))).toBe('36893488147419103234');
    expect(txt(call('mul', [2147483647, 2147483647]))).toBe('4611686014132420609');
    expect(txt(call('mul', [-2147483648, -2147483648]))).toBe('4611686018427387904');
    expect(call('mul', [2.5, 2])).toBe(5);
    expect(call('mul', [1.1, 1.1])).toBe(1.21);
  });
});

describe('div and rem', () => {
  it('divides', () => {
    expect(call('div', [6, 3])).toBe(2);
    expect(call('div', [-6, 3])).toBe(-2);
    expect(call('div', [1, 4])).toBe(0.25);
    expect(call('div', [0, 5])).toBe(0);
    // big.Float with a 64-bit mantissa, printed shortest: 20 significant digits.
    expect(txt(call('div', [1, 3]))).toBe('0.33333333333333333334');
    expect(txt(call('div', [2, 3]))).toBe('0.6666666666666666667');
  });
  it('rejects division by zero', () => {
    expect(err('div', [1, 0])).toBe('eval_builtin_error: div: divide by zero');
    expect(err('div', [1, 0.0])).toBe('eval_builtin_error: div: divide by zero');
  });
  it('remainder has the sign of the dividend', () => {
    expect(call('rem', [-17, 5])).toBe(-2);
    expect(call('rem', [17, -5])).toBe(2);
    expect(call('rem', [4.0, 3])).toBe(1);
  });
  it('remainder with big divisors', () => {
    expect(call('rem', [10, N('18446744073709551616')])).toBe(10);
    expect(call('rem', [5, N('55340232221128654848')])).toBe(5);
    expect(call('rem', [7, N('340282366920938463463374607431768211456')])).toBe(7);
    expect(call('rem', [100, N('-18446744073709551616')])).toBe(100);
    expect(call('rem', [N('18446744073709551617'), N('18446744073709551616')])).toBe(1);
  });
  it('remainder errors', () => {
    expect(err('rem', [1.1, 1])).toBe('eval_builtin_error: rem: modulo on floating-point number');
    expect(err('rem', [1, 0])).toBe('eval_builtin_error: rem: modulo by zero');
    expect(err('rem', ['x', 1])).toBe('eval_type_error: rem: operand 1 must be number but got string');
    expect(err('rem', [1, null])).toBe('eval_type_error: rem: operand 2 must be number but got null');
  });
});

describe('abs, round, ceil, floor', () => {
  it('works on integers and window edges', () => {
    expect(call('abs', [-5])).toBe(5);
    expect(call('abs', [-2147483648])).toBe(2147483648);
    expect(txt(call('abs', [N('-9223372036854775808')]))).toBe('9223372036854775808');
    expect(call('abs', [-2.5])).toBe(2.5);
  });
  it('rounds half away from zero', () => {
    expect(call('round', [2.5])).toBe(3);
    expect(call('round', [-2.5])).toBe(-3);
    expect(call('round', [2.4])).toBe(2);
    expect(call('round', [-5])).toBe(-5);
    expect(call('round', [N('10.00')])).toBe(10);
  });
  it('floors and ceils', () => {
    expect(call('floor', [1.01])).toBe(1);
    expect(call('floor', [1.5])).toBe(1);
    expect(call('floor', [99.99999])).toBe(99);
    expect(call('floor', [-1.001])).toBe(-2);
    expect(call('ceil', [1.01])).toBe(2);
    expect(call('ceil', [-0.5])).toBe(0);
    expect(Object.is(call('ceil', [-0.5]), 0)).toBe(true);
    expect(err('abs', ['x'])).toBe('eval_type_error: abs: operand 1 must be number but got string');
  });
});

describe('numbers.range and numbers.range_step', () => {
  it('builds ranges', () => {
    expect(call('numbers.range', [0, 0])).toEqual([0]);
    expect(call('numbers.range', [-2, 3])).toEqual([-2, -1, 0, 1, 2, 3]);
    expect(call('numbers.range', [2, -3])).toEqual([2, 1, 0, -1, -2, -3]);
    expect(call('numbers.range', [5, 2])).toEqual([5, 4, 3, 2]);
    const big = call('numbers.range', [N('9007199254740992'), N('9007199254740994')]) as Value[];
    expect(big.map(txt)).toEqual(['9007199254740992', '9007199254740993', '9007199254740994']);
  });
  it('builds stepped ranges', () => {
    expect(call('numbers.range_step', [0, 10, 2])).toEqual([0, 2, 4, 6, 8, 10]);
    expect(call('numbers.range_step', [0, -10, 2])).toEqual([0, -2, -4, -6, -8, -10]);
    expect(call('numbers.range_step', [10, 3, 2])).toEqual([10, 8, 6, 4]);
    expect(call('numbers.range_step', [1024, 4096, 1024])).toEqual([1024, 2048, 3072, 4096]);
    expect(call('numbers.range_step', [2, 2, 2])).toEqual([2]);
    expect(call('numbers.range_step', [2, 5, 2])).toEqual([2, 4]);
  });
  it('reports errors', () => {
    expect(err('numbers.range_step', [0, 10, -2])).toBe(
      'eval_builtin_error: numbers.range_step: step must be a positive number above zero',
    );
    expect(err('numbers.range', ['a', 1])).toBe('eval_type_error: numbers.range: operand 1 must be integer but got string');
    expect(err('numbers.range', [1, 2.5])).toBe(
      'eval_type_error: numbers.range: operand 2 must be integer number but got floating-point number',
    );
  });
  it('refuses huge ranges instead of exhausting memory', () => {
    expect(err('numbers.range', [0, MAX_RANGE_ELEMENTS * 10])).toMatch(/^eval_builtin_error: numbers.range: range of \d+ elements exceeds/);
    expect(err('numbers.range', [0, N('1e30')])).toMatch(/exceeds the limit of 10000000/);
    expect((call('numbers.range', [1, 100000]) as Value[]).length).toBe(100000);
  });
});

describe('rand.intn', () => {
  it('is stable per query for the same arguments', () => {
    const c = ctx();
    const first = call('rand.intn', ['key', 100], c) as number;
    for (let i = 0; i < 50; i++) expect(call('rand.intn', ['key', 100], c)).toBe(first);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(first).toBeLessThan(100);
    expect(call('rand.intn', ['key', -100], c)).toBe(first);
    expect(call('rand.intn', ['key', 0], c)).toBe(0);
  });
  it('checks its arguments', () => {
    expect(err('rand.intn', [1, 2])).toBe('eval_type_error: rand.intn: operand 1 must be string but got number');
    expect(err('rand.intn', ['k', 2.5])).toBe(
      'eval_type_error: rand.intn: operand 2 must be integer number but got floating-point number',
    );
  });
});

describe('format_int', () => {
  it('formats in bases 2, 8, 10, 16 after truncation', () => {
    expect(call('format_int', [255, 16])).toBe('ff');
    expect(call('format_int', [8, 8])).toBe('10');
    expect(call('format_int', [-3.9, 2])).toBe('-11');
    expect(call('format_int', [12.7, 10])).toBe('12');
    expect(call('format_int', [N('18446744073709551617'), 16])).toBe('10000000000000001');
    expect(err('format_int', [1, 3])).toBe('eval_type_error: format_int: operand 2 must be one of {2, 8, 10, 16}');
  });
});

describe('declarations', () => {
  it('declares operators with infix symbols', () => {
    const infix = Object.fromEntries(builtins.filter((b) => b.decl.infix).map((b) => [b.decl.name, b.decl.infix]));
    expect(infix).toEqual({ plus: '+', minus: '-', mul: '*', div: '/', rem: '%' });
    expect(builtins.find((b) => b.decl.name === 'rand.intn')!.decl.nondeterministic).toBe(true);
  });
});
