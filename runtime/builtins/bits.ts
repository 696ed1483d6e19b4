// Bitwise builtins on integers of any size (two's complement semantics, as Go's
// big.Int): bits.and, bits.or, bits.xor, bits.negate, bits.lsh, bits.rsh.
// Guard: bits.lsh refuses results wider than MAX_SHIFT_BITS bits (a builtin error)
// instead of exhausting memory; bits.rsh by a huge amount yields 0 or -1.
import type { Value } from '../value/value.js';
import { isNumber } from '../value/number.js';
import { fromBigInt, isInt, toBigInt } from '../value/arith.js';
import type { BuiltinDef } from './types.js';
import { T } from './types.js';
import { BuiltinError, OperandTypeError, operandError } from './errors.js';

/** Widest result bits.lsh will build (about 315,000 decimal digits). */
export const MAX_SHIFT_BITS = 1 << 20;

/** OPA's BigIntOperand. */
function bigInt(v: Value, pos: number): bigint {
  if (!isNumber(v)) throw operandError(pos, 'integer', v);
  if (!isInt(v)) throw new OperandTypeError(`operand ${pos} must be integer number but got floating-point number`);
  const b = toBigInt(v);
  if (b === undefined) throw new BuiltinError('number too large');
  return b;
}

function shiftAmount(v: Value): bigint {
  const s = bigInt(v, 2);
  if (s < 0n) throw new OperandTypeError('operand 2 must be an unsigned integer number but got a negative integer');
  return s;
}

function bitLength(x: bigint): number {
  return (x < 0n ? -x : x).toString(2).length;
}

function bin(name: string, description: string, fn: (a: bigint, b: bigint) => bigint): BuiltinDef {
  return {
    decl: { name, args: [T.number, T.number], result: T.number, description },
    impl: ([a, b]) => fromBigInt(fn(bigInt(a!, 1), bigInt(b!, 2))),
  };
}

export const builtins: BuiltinDef[] = [
  bin('bits.or', 'Returns the bitwise "OR" of two integers.', (a, b) => a | b),
  bin('bits.and', 'Returns the bitwise "AND" of two integers.', (a, b) => a & b),
  bin('bits.xor', 'Returns the bitwise "XOR" (exclusive-or) of two integers.', (a, b) => a ^ b),
  {
    decl: { name: 'bits.negate', args: [T.number], result: T.number, description: 'Returns the bitwise negation (flip) of an integer.' },
    impl: ([a]) => fromBigInt(~bigInt(a!, 1)),
  },
  {
    decl: {
      name: 'bits.lsh',
      args: [T.number, T.number],
      result: T.number,
      description: 'Returns a new integer with its bits shifted `s` bits to the left.',
    },
    impl: ([a, s]) => {
      const x = bigInt(a!, 1);
      const n = shiftAmount(s!);
      if (x === 0n) return 0;
      if (BigInt(bitLength(x)) + n > BigInt(MAX_SHIFT_BITS)) {
        throw new BuiltinError(`shift result exceeds the limit of ${MAX_SHIFT_BITS} bits`);
      }
      return fromBigInt(x << n);
    },
  },
  {
    decl: {
      name: 'bits.rsh',
      args: [T.number, T.number],
      result: T.number,
      description: 'Returns a new integer with its bits shifted `s` bits to the right.',
    },
    impl: ([a, s]) => {
      const x = bigInt(a!, 1);
      const n = shiftAmount(s!);
      if (n >= BigInt(bitLength(x))) return x < 0n ? -1 : 0;
      return fromBigInt(x >> n);
    },
  },
];
