// Arithmetic operators (+ - * / %), rounding, numbers.range(_step), rand.intn and
// format_int, with OPA's semantics: integers are exact at any size, fractions follow
// big.Float (see runtime/value/arith.ts), and error messages match topdown's.
// Guard: numbers.range / numbers.range_step refuse to build more than
// MAX_RANGE_ELEMENTS (10^7) elements and raise a builtin error instead.
import type { Value } from '../value/value.js';
import { RSet } from '../value/collections.js';
import { isNumber, type RNumber } from '../value/number.js';
import * as A from '../value/arith.js';
import type { BuiltinDef, BuiltinContext } from './types.js';
import { T } from './types.js';
import { BuiltinError, HaltError, OperandTypeError, operandError } from './errors.js';
import { asNumber, asString } from './args.js';

const numCat = ['numbers'];

/** Largest array numbers.range / numbers.range_step will build. */
export const MAX_RANGE_ELEMENTS = 10_000_000;

/** `impl` is each operator's own function (no shared wrapper calling `fn`), so its call sites stay monomorphic. */
function arith2(name: string, infix: string, description: string, impl: (args: Value[]) => Value): BuiltinDef {
  return {
    decl: { name, infix, args: [T.number, T.number], result: T.number, categories: numCat, description },
    impl,
  };
}

function arith1(name: string, description: string, fn: (a: RNumber) => RNumber): BuiltinDef {
  return {
    decl: { name, args: [T.number], result: T.number, categories: numCat, description },
    impl: ([a]) => fn(asNumber(a!, 1)),
  };
}

function minus(a: Value, b: Value): Value {
  const n1 = isNumber(a);
  const n2 = isNumber(b);
  if (n1 && n2) return A.sub(a, b);
  const s1 = a instanceof RSet;
  if (s1 && b instanceof RSet) {
    const out = new RSet();
    for (const v of a.unorderedValues()) if (!b.has(v)) out.add(v);
    return out;
  }
  if (!n1 && !s1) throw operandError(1, 'one of {number, set}', a);
  if (s1) throw operandError(2, 'set', b);
  throw operandError(2, 'number', b);
}

function rem(a: Value, b: Value): Value {
  if (!isNumber(a)) throw operandError(1, 'number', a);
  if (!isNumber(b)) throw operandError(2, 'number', b);
  if (!A.isInt(a) || !A.isInt(b)) throw new BuiltinError('modulo on floating-point number');
  if (A.isZero(b)) throw new BuiltinError('modulo by zero');
  const r = A.remInt(a, b);
  if (r === undefined) throw new BuiltinError('number too large');
  return r;
}

/** OPA's BigIntOperand: `operand N must be integer but got T` for non-numbers. */
function bigIntOperand(v: Value, pos: number): bigint {
  if (!isNumber(v)) throw operandError(pos, 'integer', v);
  if (!A.isInt(v)) throw new OperandTypeError(`operand ${pos} must be integer number but got floating-point number`);
  const b = A.toBigInt(v);
  if (b === undefined) throw new BuiltinError('number too large');
  return b;
}

/** OPA's IntOperand: a number that fits a machine integer. */
function intOperand(v: Value, pos: number): number {
  const n = asNumber(v, pos);
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    throw new OperandTypeError(`operand ${pos} must be integer number but got floating-point number`);
  }
  return n;
}

function checkDeadline(ctx: BuiltinContext, name: string): void {
  if (ctx.deadline !== undefined && Date.now() > ctx.deadline) {
    throw new HaltError(`${name}: timed out before generating all numbers in range`, { raw: true });
  }
}

function range(x: bigint, y: bigint, step: bigint, ctx: BuiltinContext, name: string): Value[] {
  const span = x <= y ? y - x : x - y;
  const count = span / step + 1n;
  if (count > BigInt(MAX_RANGE_ELEMENTS)) {
    throw new BuiltinError(`range of ${count} elements exceeds the limit of ${MAX_RANGE_ELEMENTS}`);
  }
  const n = Number(count);
  const out: Value[] = new Array(n);
  if (x >= -9007199254740991n && y >= -9007199254740991n && x <= 9007199254740991n && y <= 9007199254740991n) {
    const xs = Number(x);
    const st = x <= y ? Number(step) : -Number(step);
    for (let i = 0; i < n; i++) {
      if ((i & 0xfffff) === 0xfffff) checkDeadline(ctx, name);
      out[i] = xs + i * st;
    }
    return out;
  }
  const st = x <= y ? step : -step;
  let cur = x;
  for (let i = 0; i < n; i++, cur += st) {
    if ((i & 0xfffff) === 0xfffff) checkDeadline(ctx, name);
    out[i] = A.fromBigInt(cur);
  }
  return out;
}

function randIntn(args: Value[], ctx: BuiltinContext): Value {
  const str = asString(args[0]!, 1);
  let n = intOperand(args[1]!, 2);
  if (n === 0) return 0;
  if (n < 0) n = -n;
  const key = `rand.intn\u0000${str}-${n}`;
  const cached = ctx.cache.get(key);
  if (cached !== undefined) return cached as Value;
  const r = Math.floor(Math.random() * n);
  ctx.cache.set(key, r);
  return r;
}

function formatInt(args: Value[]): Value {
  const input = asNumber(args[0]!, 1);
  const base = asNumber(args[1]!, 2);
  if (base !== 2 && base !== 8 && base !== 10 && base !== 16) {
    throw new OperandTypeError('operand 2 must be one of {2, 8, 10, 16}');
  }
  const t = A.trunc(input);
  if (typeof t === 'number') return t.toString(base);
  const b = A.toBigInt(t);
  if (b === undefined) throw new BuiltinError('number too large');
  return b.toString(base);
}

export const builtins: BuiltinDef[] = [
  arith2('plus', '+', 'Plus adds two numbers together.', (args) => A.add(asNumber(args[0]!, 1), asNumber(args[1]!, 2))),
  arith2('mul', '*', 'Multiplies two numbers.', (args) => A.mul(asNumber(args[0]!, 1), asNumber(args[1]!, 2))),
  arith2('div', '/', 'Divides the first number by the second number.', (args) => {
    const a = asNumber(args[0]!, 1);
    const b = asNumber(args[1]!, 2);
    if (A.isZero(b)) throw new BuiltinError('divide by zero');
    return A.div(a, b);
  }),
  {
    decl: {
      name: 'minus',
      infix: '-',
      args: [T.anyOf(T.number, T.setOf(T.any)), T.anyOf(T.number, T.setOf(T.any))],
      result: T.anyOf(T.number, T.setOf(T.any)),
      categories: numCat,
      description: 'Minus subtracts the second number from the first number or computes the difference between two sets.',
    },
    impl: ([a, b]) => minus(a!, b!),
  },
  {
    decl: {
      name: 'rem',
      infix: '%',
      args: [T.number, T.number],
      result: T.number,
      categories: numCat,
      description: 'Returns the remainder for of `x` divided by `y`, for `y != 0`.',
    },
    impl: ([a, b]) => rem(a!, b!),
  },
  arith1('abs', 'Returns the number without its sign.', A.abs),
  arith1('round', 'Rounds the number to the nearest integer.', A.round),
  arith1('ceil', 'Rounds the number _up_ to the nearest integer.', A.ceil),
  arith1('floor', 'Rounds the number _down_ to the nearest integer.', A.floor),
  {
    decl: {
      name: 'numbers.range',
      args: [T.number, T.number],
      result: T.arrayOf(T.number),
      categories: numCat,
      description:
        'Returns an array of numbers in the given (inclusive) range. If `a==b`, then `range == [a]`; if `a > b`, then `range` is in descending order.',
    },
    impl: ([a, b], ctx) => range(bigIntOperand(a!, 1), bigIntOperand(b!, 2), 1n, ctx, 'numbers.range'),
  },
  {
    decl: {
      name: 'numbers.range_step',
      args: [T.number, T.number, T.number],
      result: T.arrayOf(T.number),
      categories: numCat,
      description:
        'Returns an array of numbers in the given (inclusive) range incremented by a positive step. If "a==b", then "range == [a]"; if "a > b", then "range" is in descending order. If the provided "step" is less then 1, an error will be thrown. If "b" is not in the range of the provided "step", "b" won\'t be included in the result.',
    },
    impl: ([a, b, s], ctx) => {
      const x = bigIntOperand(a!, 1);
      const y = bigIntOperand(b!, 2);
      const step = bigIntOperand(s!, 3);
      if (step <= 0n) throw new BuiltinError('step must be a positive number above zero');
      return range(x, y, step, ctx, 'numbers.range_step');
    },
  },
  {
    decl: {
      name: 'rand.intn',
      args: [T.string, T.number],
      result: T.number,
      nondeterministic: true,
      categories: numCat,
      description:
        'Returns a random integer between `0` and `n` (`n` exclusive). If `n` is `0`, then `y` is always `0`. For any given argument pair (`str`, `n`), the output will be consistent throughout a query evaluation.',
    },
    impl: randIntn,
  },
  {
    decl: {
      name: 'format_int',
      args: [T.number, T.number],
      result: T.string,
      categories: ['strings'],
      description: 'Returns the string representation of the number in the given base after rounding it down to an integer value.',
    },
    impl: formatInt,
  },
];

