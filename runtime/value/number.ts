// Rego numbers: a JS double on the fast path, a BigNum (decimal.js) when a value
// does not fit a double exactly (integers beyond 2^53, literals with many digits).
// Every number-producing operation goes through `normalizeNumber` so that a value
// which fits a double is always stored as one: equality can then compare doubles.
import { Decimal } from 'decimal.js';

/** decimal.js constructor with enough precision for OPA's big.Float-style arithmetic. */
export const D = Decimal.clone({ precision: 200, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -1e9, toExpPos: 1e9 });
export type Dec = InstanceType<typeof D>;

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
  if (Number.isFinite(n) && fitsDouble(n, text)) return n === 0 ? 0 : n;
  return normalizeNumber(new D(text));
}

function fitsDouble(n: number, text: string): boolean {
  if (Number.isInteger(n)) {
    if (!Number.isSafeInteger(n)) return false;
    return new D(text).eq(n);
  }
  return new D(text).eq(new D(n)) || String(n) === canonicalText(text);
}

function canonicalText(text: string): string {
  try {
    return new D(text).toString();
  } catch {
    return text;
  }
}

/** Turn a decimal into the canonical representation: a double when exact, else BigNum. */
export function normalizeNumber(d: Dec): RNumber {
  if (d.isInteger()) {
    const n = d.toNumber();
    if (Number.isSafeInteger(n)) return n === 0 ? 0 : n;
    return new BigNum(d);
  }
  const n = d.toNumber();
  if (Number.isFinite(n) && new D(n).eq(d)) return n;
  // Non-terminating or long fractions: keep the double when it is the nearest value
  // and the decimal has no more precision than a double can represent.
  if (Number.isFinite(n) && d.precision() <= 17) return n;
  return new BigNum(d);
}

export function toDecimal(v: RNumber): Dec {
  return typeof v === 'number' ? new D(v) : v.dec;
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

function formatDecimal(d: Dec): string {
  if (d.isInteger()) return d.toFixed(0);
  return d.toString();
}
