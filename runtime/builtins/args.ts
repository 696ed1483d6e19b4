// Argument checks with OPA's exact messages. `pos` is the 1-based operand number.
import type { Value } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import { BigNum, isIntegral, type RNumber } from '../value/number.js';
import { OperandTypeError, operandError } from './errors.js';

export function asString(v: Value, pos: number): string {
  if (typeof v !== 'string') throw operandError(pos, 'string', v);
  return v;
}

export function asNumber(v: Value, pos: number): RNumber {
  if (typeof v !== 'number' && !(v instanceof BigNum)) throw operandError(pos, 'number', v);
  return v;
}

/** A number that must be integral; OPA: "operand N must be integer number but got floating-point number". */
export function asInteger(v: Value, pos: number): RNumber {
  const n = asNumber(v, pos);
  if (!isIntegral(n)) throw new OperandTypeError(`operand ${pos} must be integer number but got floating-point number`);
  return n;
}

export function asBoolean(v: Value, pos: number): boolean {
  if (typeof v !== 'boolean') throw operandError(pos, 'boolean', v);
  return v;
}

export function asArray(v: Value, pos: number): Value[] {
  if (!Array.isArray(v)) throw operandError(pos, 'array', v);
  return v;
}

export function asObject(v: Value, pos: number): RObject {
  if (!(v instanceof RObject)) throw operandError(pos, 'object', v);
  return v;
}

export function asSet(v: Value, pos: number): RSet {
  if (!(v instanceof RSet)) throw operandError(pos, 'set', v);
  return v;
}

/** Array or set members (in Rego order), for builtins that accept either. */
export function asCollection(v: Value, pos: number, expected = 'one of {array, set}'): Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof RSet) return v.values();
  throw operandError(pos, expected, v);
}
