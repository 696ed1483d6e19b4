// Rego numbers: a JS double on the fast path, a BigNum (decimal.js) when a value
// does not fit a double exactly (integers beyond 2^53, literals with many digits).
// Every number-producing operation goes through `normalizeNumber` so that a value
// which fits a double is always stored as one: equality can then compare doubles.
// decimal.js is required on first use (most numbers never need it; loading it is
// about 8 ms of every CLI start): `D()` is the constructor, `decimal(x)` a value.
import { createRequire } from 'node:module';
import type { Decimal } from 'decimal.js';

type DecimalConstructor = typeof Decimal;
export type Dec = Decimal;

let decimalConstructor: DecimalConstructor | undefined;

/** decimal.js constructor with enough precision for OPA's big.Float-style arithmetic. */
export function D(): DecimalConstructor {
  if (decimalConstructor) return decimalConstructor;
  const lib = createRequire(import.meta.url)('decimal.js') as DecimalConstructor;
  return (decimalConstructor = lib.clone({ precision: 200, rounding: lib.ROUND_HALF_EVEN, toExpNeg: -1e9, toExpPos: 1e9 }));
}

/** A decimal.js value of `x` (D()'s precision). */
export function decimal(x: Decimal.Value): Dec {
  return new (D())(x);
}

/** A number that does not fit exactly in a JS double. */
export class BigNum {
  constructor(readonly dec: Dec) {}
  toString(): string {
    return formatDecimal(this.dec);
  }
}

export type RNumber = number | BigNum;

export function isNumber(v: unknown): v is RNumber {
  return typeof v === 'number' || v instanceof BigNum;
}

/** Parse number text from Rego or JSON source without losing precision. */
export function parseNumber(text: string): RNumber {
  const n = Number(text);
  // Fast path: the text is exactly the double's shortest spelling, so it is that
  // double's decimal value (decimal.js builds `new D(n)` from `String(n)`); integers
  // must also be safe, as below.
  if (String(n) === text && (Number.isSafeInteger(n) || (!Number.isInteger(n) && Number.isFinite(n)))) return n === 0 ? 0 : n;
  if (Number.isFinite(n) && fitsDouble(n, text)) return n === 0 ? 0 : n;
  return normalizeNumber(decimal(text));
}

function fitsDouble(n: number, text: string): boolean {
  if (Number.isInteger(n)) {
    if (!Number.isSafeInteger(n)) return false;
    return decimal(text).eq(n);
  }
  return decimal(text).eq(decimal(n)) || String(n) === canonicalText(text);
}

function canonicalText(text: string): string {
  try {
    return decimal(text).toString();
  } catch {
    return text;
  }
}

/** Smallest positive normal double; below it doubles lose precision. */
const MIN_NORMAL = 2.2250738585072014e-308;

/** Turn a decimal into the canonical representation: a double when exact, else BigNum. */
export function normalizeNumber(d: Dec): RNumber {
  if (d.isInteger()) {
    const n = d.toNumber();
    if (Number.isSafeInteger(n)) return n === 0 ? 0 : n;
    return new BigNum(d);
  }
  const n = d.toNumber();
  if (!Number.isFinite(n)) return new BigNum(d);
  if (decimal(n).eq(d)) return n;
  // Underflow (1e-400 → 0) and subnormals lose digits: keep those as BigNum.
  if (Math.abs(n) < MIN_NORMAL) return new BigNum(d);
  // Non-terminating or long fractions: keep the double when it is the nearest value
  // and the decimal has no more precision than a double can represent.
  if (d.precision() <= 17) return n;
  return new BigNum(d);
}

export function toDecimal(v: RNumber): Dec {
  return typeof v === 'number' ? decimal(v) : v.dec;
}

export function isIntegral(v: RNumber): boolean {
  return typeof v === 'number' ? Number.isInteger(v) : v.dec.isInteger();
}

/** Number → JS double (lossy for BigNum). */
export function toDouble(v: RNumber): number {
  return typeof v === 'number' ? v : v.dec.toNumber();
}

export function compareNumbers(a: RNumber, b: RNumber): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  return toDecimal(a).cmp(toDecimal(b));
}

/** Canonical text for a number, as OPA prints it in JSON. */
export function formatNumber(v: RNumber): string {
  if (typeof v === 'number') return formatDouble(v);
  return formatDecimal(v.dec);
}

function formatDouble(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const s = String(n);
  // JS prints 1e+21; Go/JSON print 1e+21 as well. Keep JS formatting.
  return s;
}

let printing: DecimalConstructor | undefined;
/** Same digits, printed with exponents the way JS prints doubles (1e-7, 1.5e+21). */
const F = (): DecimalConstructor => (printing ??= D().clone({ toExpNeg: -7, toExpPos: 21 }));

function formatDecimal(d: Dec): string {
  // Integers print in full (exact big-integer results), unless they are mostly
  // trailing zeros of a huge exponent (1e400 prints as 1e+400, not 401 digits).
  if (d.isInteger() && (d.e < 64 || d.precision() * 2 > d.e)) return d.toFixed(0);
  return new (F())(d).toString();
}
