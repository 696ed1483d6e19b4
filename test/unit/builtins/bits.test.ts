// Unit tests for bits.* (bits.ts), transcribed from OPA's bitsand, bitsor,
// bitsxor, bitsshiftleft and bitsshiftright conformance folders, plus big integers.
import { describe, it, expect } from 'vitest';
import { builtins, MAX_SHIFT_BITS } from '../../../runtime/builtins/bits.js';
import { parseNumber } from '../../../runtime/value/index.js';
import { callerFor, builtinErrors, numberText as txt } from './helpers.js';

const call = callerFor(builtins);
const err = builtinErrors(call);
const N = parseNumber;

describe('bitwise operations', () => {
  it('and, or, xor, negate', () => {
    expect(call('bits.and', [50, 0])).toBe(0);
    expect(call('bits.and', [7, 3])).toBe(3);
    expect(call('bits.or', [4, 3])).toBe(7);
    expect(call('bits.xor', [42, 3])).toBe(41);
    expect(call('bits.negate', [42])).toBe(-43);
    expect(call('bits.negate', [-1])).toBe(0);
    expect(call('bits.and', [-6, 7])).toBe(2);
  });
  it('works on integers beyond 64 bits', () => {
    const big = N('340282366920938463463374607431768211455'); // 2^128 - 1
    expect(txt(call('bits.and', [big, N('18446744073709551616')]))).toBe('18446744073709551616');
    expect(txt(call('bits.xor', [big, 1]))).toBe('340282366920938463463374607431768211454');
    expect(txt(call('bits.negate', [big]))).toBe('-340282366920938463463374607431768211456');
  });
  it('shifts', () => {
    expect(call('bits.lsh', [2147483647, 1])).toBe(4294967294);
    expect(txt(call('bits.lsh', [N('9223372036854775807'), 1]))).toBe('18446744073709551614');
    expect(call('bits.rsh', [8, 3])).toBe(1);
    expect(call('bits.rsh', [-5, 1])).toBe(-3);
    expect(call('bits.rsh', [5, 1000000000])).toBe(0);
    expect(call('bits.rsh', [-5, 1000000000])).toBe(-1);
    expect(call('bits.lsh', [0, 1e15])).toBe(0);
    expect(txt(call('bits.lsh', [1, 100]))).toBe('1267650600228229401496703205376');
  });
  it('reports OPA errors', () => {
    for (const op of ['bits.and', 'bits.or', 'bits.xor', 'bits.lsh']) {
      expect(err(op, [7.2, 42])).toBe(`eval_type_error: ${op}: operand 1 must be integer number but got floating-point number`);
    }
    expect(err('bits.and', [1, 'x'])).toBe('eval_type_error: bits.and: operand 2 must be integer but got string');
    expect(err('bits.lsh', [1, -1])).toBe(
      'eval_type_error: bits.lsh: operand 2 must be an unsigned integer number but got a negative integer',
    );
    expect(err('bits.rsh', [1, -1])).toBe(
      'eval_type_error: bits.rsh: operand 2 must be an unsigned integer number but got a negative integer',
    );
  });
  it('refuses gigantic left shifts', () => {
    expect(err('bits.lsh', [1, MAX_SHIFT_BITS])).toMatch(/^eval_builtin_error: bits.lsh: shift result exceeds the limit/);
    expect(err('bits.lsh', [1, N('1e30')])).toMatch(/exceeds the limit/);
  });
});
