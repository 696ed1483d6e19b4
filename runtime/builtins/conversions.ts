// to_number, and the casts deprecated since OPA v0.13 (cast_array, cast_set,
// cast_string, cast_boolean, cast_null, cast_object), kept for v0 compatibility.
// to_number accepts what Go's strconv.ParseFloat accepts (decimal and hex floats),
// rejects inf/nan spellings as a type error, and keeps the exact decimal value.
import type { Value } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import { decimal, isNumber, normalizeNumber, parseNumber, type RNumber } from '../value/number.js';
import type { BuiltinDef } from './types.js';
import { T } from './types.js';
import { BuiltinError, operandError } from './errors.js';

const convCat = ['conversions'];

const DECIMAL = /^[+-]?(?:\d+(?:_\d+)*\.?(?:\d+(?:_\d+)*)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?$/;
const HEX = /^([+-]?)0[xX]_?((?:[0-9a-fA-F]+_?)*(?:\.(?:[0-9a-fA-F]_?)*)?)[pP]([+-]?\d+(?:_\d+)*)$/;

/** Go's strconv.Quote for the common (printable) case. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

function parseHexFloat(m: RegExpExecArray): RNumber | undefined {
  const [, sign, mant, exp] = m;
  const digits = mant!.replace(/_/g, '');
  const [intPart, fracPart = ''] = digits.split('.');
  if ((intPart ?? '') === '' && fracPart === '') return undefined;
  let v = decimal(0);
  for (const c of (intPart ?? '') + fracPart) v = v.times(16).plus(parseInt(c, 16));
  const e = Number(exp!.replace(/_/g, '')) - 4 * fracPart.length;
  v = v.times(decimal(2).pow(e));
  return normalizeNumber(sign === '-' ? v.neg() : v);
}

/** Parse a string as strconv.ParseFloat(s, 64) would, keeping the exact value. */
export function parseNumberString(s: string): RNumber {
  const syntax = (): BuiltinError => new BuiltinError(`strconv.ParseFloat: parsing ${goQuote(s)}: invalid syntax`);
  const hex = HEX.exec(s);
  if (hex) {
    const v = parseHexFloat(hex);
    if (v === undefined) throw syntax();
    return v;
  }
  // Underscores are only allowed after a base prefix.
  if (!DECIMAL.test(s) || s.includes('_')) throw syntax();
  const text = s.startsWith('+') ? s.slice(1) : s;
  const d = decimal(text.startsWith('.') || text.startsWith('-.') ? text.replace('.', '0.') : text);
  const f = Number(text);
  if (!Number.isFinite(f)) throw new BuiltinError(`strconv.ParseFloat: parsing ${goQuote(s)}: value out of range`);
  return d.isZero() ? 0 : parseNumber(d.toString());
}

const PLAIN_DECIMAL = /^-?\d{1,16}(?:\.\d{1,16})?$/;

function toNumber(v: Value): Value {
  if (v === null) return 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (isNumber(v)) return v;
  if (typeof v === 'string') {
    // Fast path: a plain decimal ("512", "0.5", "-3") that is its double's shortest
    // spelling; anything else (exponents, leading zeros, big or long numbers) goes
    // through the exact parser below.
    if (PLAIN_DECIMAL.test(v)) {
      const n = Number(v);
      if (String(n) === v && (Number.isSafeInteger(n) || !Number.isInteger(n))) return n;
    }
    const lower = v.replace(/^[+-]+/, '').toLowerCase();
    if (lower === 'inf' || lower === 'infinity' || lower === 'nan') throw operandError(1, 'valid number string', v);
    return parseNumberString(v);
  }
  throw operandError(1, 'one of {null, boolean, number, string}', v);
}

export const builtins: BuiltinDef[] = [
  {
    decl: {
      name: 'to_number',
      args: [T.anyOf(T.number, T.string, T.boolean, T.null)],
      result: T.number,
      categories: convCat,
      description:
        'Converts a string, bool, or number value to a number: Strings are converted to numbers using `strconv.Atoi`, Boolean `false` is converted to 0 and `true` is converted to 1.',
    },
    impl: ([v]) => toNumber(v!),
  },
  {
    decl: { name: 'cast_array', args: [T.any], result: T.arrayOf(T.any), deprecated: true },
    impl: ([v]) => {
      if (Array.isArray(v)) return v;
      if (v instanceof RSet) return [...v.values()];
      throw operandError(1, 'one of {array, set}', v!);
    },
  },
  {
    decl: { name: 'cast_set', args: [T.any], result: T.setOf(T.any), deprecated: true },
    impl: ([v]) => {
      if (Array.isArray(v)) return RSet.of(v);
      if (v instanceof RSet) return v;
      throw operandError(1, 'one of {array, set}', v!);
    },
  },
  {
    decl: { name: 'cast_string', args: [T.any], result: T.string, deprecated: true },
    impl: ([v]) => {
      if (typeof v === 'string') return v;
      throw operandError(1, 'string', v!);
    },
  },
  {
    decl: { name: 'cast_boolean', args: [T.any], result: T.boolean, deprecated: true },
    impl: ([v]) => {
      if (typeof v === 'boolean') return v;
      throw operandError(1, 'boolean', v!);
    },
  },
  {
    decl: { name: 'cast_null', args: [T.any], result: T.null, deprecated: true },
    impl: ([v]) => {
      if (v === null) return null;
      throw operandError(1, 'null', v!);
    },
  },
  {
    decl: { name: 'cast_object', args: [T.any], result: T.objectOf(T.any, T.any), deprecated: true },
    impl: ([v]) => {
      if (v instanceof RObject) return v;
      throw operandError(1, 'object', v!);
    },
  },
];
