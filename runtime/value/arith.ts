// Exact arithmetic on Rego numbers (RNumber = double | BigNum), as OPA does it:
// integers are exact (decimal.js at 200 significant digits, BigInt for bit and
// remainder operations); non-integer results that need more digits than a short
// decimal are rounded like Go's big.Float with its default 64-bit mantissa and
// printed as the shortest decimal that reads back to the same value (Text('g', -1)).
import { BigNum, D, decimal, normalizeNumber, toDecimal, type Dec, type RNumber } from './number.js';
import { decToRat, doubleToRat, float64Text, type Rat } from './bigfloat.js';

/** Working precision for emulating a 64-bit mantissa (needs ~20 exact digits), made on first use. */
let wide: { W: ReturnType<typeof D>; TWO64: Dec; TWO63: Dec } | undefined;
function wideDecimal(): NonNullable<typeof wide> {
  if (wide) return wide;
  const W = D().clone({ precision: 60 });
  return (wide = { W, TWO64: new W(2).pow(64), TWO63: new W(2).pow(63) });
}
const pow2Cache = new Map<number, Dec>();

function pow2(k: number): Dec {
  let p = pow2Cache.get(k);
  if (p === undefined) {
    p = new (wideDecimal().W)(2).pow(k);
    if (pow2Cache.size < 4096) pow2Cache.set(k, p);
  }
  return p;
}
const LOG2_10 = Math.log2(10);

export const dec = toDecimal;

export function isInt(n: RNumber): boolean {
  return typeof n === 'number' ? Number.isInteger(n) : n.dec.isInteger();
}

/** Largest integer (in decimal digits) that is converted to a BigInt. */
export const MAX_BIGINT_DIGITS = 100_000;

/** An integral number as a BigInt; undefined when it is too large to convert safely. */
export function toBigInt(n: RNumber): bigint | undefined {
  if (typeof n === 'number') return BigInt(n);
  if (n.dec.e > MAX_BIGINT_DIGITS) return undefined;
  return BigInt(n.dec.toFixed(0));
}

export function fromBigInt(b: bigint): RNumber {
  if (b >= -9007199254740991n && b <= 9007199254740991n) {
    const n = Number(b);
    return n === 0 ? 0 : n;
  }
  return new BigNum(decimal(b.toString()));
}

/** A safe-integer double when the number is one, else undefined. */
export function smallInt(n: RNumber): number | undefined {
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : undefined;
}

/** Round a decimal to a 64-bit binary mantissa (round half to even), as big.Float does. */
export function roundMantissa64(d: Dec): { m: bigint; e: number } | undefined {
  if (d.isZero() || !d.isFinite()) return undefined;
  const { W, TWO64, TWO63 } = wideDecimal();
  const a = new W(d).abs();
  // Estimate the binary exponent, then correct it so that a * 2^(63-e) is in [2^63, 2^64).
  let e = Math.floor((a.e + Math.log10(Number(a.toSignificantDigits(15).toExponential().split('e')[0]))) * LOG2_10);
  let scaled = a.times(pow2(63 - e));
  for (let i = 0; i < 4 && scaled.gte(TWO64); i++) {
    e += 1;
    scaled = scaled.div(2);
  }
  for (let i = 0; i < 4 && scaled.lt(TWO63); i++) {
    e -= 1;
    scaled = scaled.times(2);
  }
  let m = BigInt(scaled.toDecimalPlaces(0, D().ROUND_HALF_EVEN).toFixed(0));
  if (m === 1n << 64n) {
    m = 1n << 63n;
    e += 1;
  }
  return { m: d.isNegative() ? -m : m, e };
}

/**
 * The value big.Float (64-bit mantissa) produces for an exact result `d`, printed as
 * the shortest decimal that rounds back to the same mantissa.
 */
export function float64Mantissa(d: Dec): Dec {
  const r = roundMantissa64(d);
  if (r === undefined) return d;
  const exact = new (wideDecimal().W)(r.m.toString()).times(pow2(r.e - 63));
  const roundTrips = (digits: number): Dec | undefined => {
    const c = exact.toSignificantDigits(digits, D().ROUND_HALF_EVEN);
    const back = roundMantissa64(c);
    return back !== undefined && back.m === r.m && back.e === r.e ? c : undefined;
  };
  // Round-tripping is monotonic in the digit count: binary search the shortest.
  let lo = 1;
  let hi = 25;
  let best = exact.toSignificantDigits(25);
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = roundTrips(mid);
    if (c !== undefined) {
      best = c;
      hi = mid - 1;
    } else lo = mid + 1;
  }
  return decimal(best);
}

/**
 * Finish a computed result: integers stay exact; short fractions are exact already;
 * long fractions are rounded as big.Float would.
 */
export function finish(d: Dec, exact?: () => Rat | undefined): RNumber {
  if (d.isInteger() || d.precision() <= 19) return normalizeNumber(d);
  const r = exact ? exact() : decToRat(d);
  const text = r === undefined ? undefined : float64Text(r);
  return normalizeNumber(text === undefined ? float64Mantissa(d) : decimal(text));
}

/**
 * A double's shortest text as digits and a decimal exponent (v = m × 10^-e, m a safe
 * integer), or undefined for exponent forms (1e21, 1e-7) and long mantissas.
 */
function scaled(v: number): [m: number, e: number] | undefined {
  if (Number.isSafeInteger(v)) return [v, 0];
  const s = String(v);
  const dot = s.indexOf('.');
  if (dot < 0 || s.includes('e')) return undefined;
  const m = Number(s.slice(0, dot) + s.slice(dot + 1));
  return Number.isSafeInteger(m) ? [m, s.length - dot - 1] : undefined;
}

/**
 * m × 10^-e as a double when that decimal is exactly some double's shortest text
 * (what normalizeNumber keeps as a number), else undefined: the caller then takes
 * decimal.js. Used for short non-integer sums and products ("0.5" × 1000).
 */
function fromScaled(m: number, e: number): number | undefined {
  if (!Number.isSafeInteger(m)) return undefined;
  if (m === 0) return 0;
  let digits = String(Math.abs(m));
  let k = e;
  while (k > 0 && digits.charCodeAt(digits.length - 1) === 48) {
    digits = digits.slice(0, -1);
    k--;
  }
  if (k === 0) return m < 0 ? -Number(digits) : Number(digits);
  if (digits.length <= k) digits = '0'.repeat(k - digits.length + 1) + digits;
  const text = (m < 0 ? '-' : '') + digits.slice(0, digits.length - k) + '.' + digits.slice(digits.length - k);
  const n = Number(text);
  return String(n) === text ? n : undefined;
}

/** a ± b on scaled doubles (sign 1 or -1), or undefined. */
function addScaled(a: number, b: number, sign: number): number | undefined {
  const x = scaled(a);
  const y = scaled(b);
  if (x === undefined || y === undefined) return undefined;
  const e = Math.max(x[1], y[1]);
  const xm = x[0] * 10 ** (e - x[1]);
  const ym = y[0] * 10 ** (e - y[1]);
  if (!Number.isSafeInteger(xm) || !Number.isSafeInteger(ym)) return undefined;
  return fromScaled(xm + sign * ym, e);
}

export function add(a: RNumber, b: RNumber): RNumber {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) {
      const r = a + b;
      if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
    } else {
      const r = addScaled(a, b, 1);
      if (r !== undefined) return r;
    }
  }
  return finish(dec(a).plus(dec(b)));
}

export function sub(a: RNumber, b: RNumber): RNumber {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) {
      const r = a - b;
      if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
    } else {
      const r = addScaled(a, b, -1);
      if (r !== undefined) return r;
    }
  }
  return finish(dec(a).minus(dec(b)));
}

export function mul(a: RNumber, b: RNumber): RNumber {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) {
      const r = a * b;
      if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
    } else {
      const x = scaled(a);
      const y = scaled(b);
      if (x !== undefined && y !== undefined) {
        const r = fromScaled(x[0] * y[0], x[1] + y[1]);
        if (r !== undefined) return r;
      }
    }
  }
  return finish(dec(a).times(dec(b)));
}

export function isZero(a: RNumber): boolean {
  return typeof a === 'number' ? a === 0 : a.dec.isZero();
}

/** Quotient; the caller checks for a zero divisor. */
export function div(a: RNumber, b: RNumber): RNumber {
  if (typeof a === 'number' && typeof b === 'number' && Number.isSafeInteger(a) && Number.isSafeInteger(b) && a % b === 0) {
    const r = a / b;
    return r === 0 ? 0 : r;
  }
  const p = typeof a === 'number' ? doubleToRat(a) : decToRat(a.dec);
  const q = typeof b === 'number' ? doubleToRat(b) : decToRat(b.dec);
  if (p !== undefined && q !== undefined) {
    const n = p.n * q.d;
    const d = p.d * q.n;
    const neg = p.neg !== q.neg && n !== 0n;
    // Exact integer quotients stay exact; others round as big.Float does.
    if (n % d === 0n) return fromBigInt(neg ? -(n / d) : n / d);
    const text = float64Text({ neg, n, d });
    if (text !== undefined) return normalizeNumber(decimal(text));
  }
  return finish(dec(a).div(dec(b)));
}

/** Truncated remainder of two integers (sign of the dividend); caller checks zero. */
export function remInt(a: RNumber, b: RNumber): RNumber | undefined {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a % b;
    return r === 0 ? 0 : r;
  }
  const x = toBigInt(a);
  const y = toBigInt(b);
  if (x === undefined || y === undefined) return undefined;
  return fromBigInt(x % y);
}

export function abs(a: RNumber): RNumber {
  return typeof a === 'number' ? Math.abs(a) + 0 : normalizeNumber(a.dec.abs());
}

/** Round half away from zero. */
export function round(a: RNumber): RNumber {
  if (typeof a === 'number' && Number.isInteger(a)) return a;
  return normalizeNumber(dec(a).toDecimalPlaces(0, D().ROUND_HALF_UP));
}

export function ceil(a: RNumber): RNumber {
  if (typeof a === 'number') {
    const r = Math.ceil(a);
    return r === 0 ? 0 : r;
  }
  return normalizeNumber(a.dec.ceil());
}

export function floor(a: RNumber): RNumber {
  if (typeof a === 'number') {
    const r = Math.floor(a);
    return r === 0 ? 0 : r;
  }
  return normalizeNumber(a.dec.floor());
}

/** Truncate toward zero (big.Float.Int). */
export function trunc(a: RNumber): RNumber {
  if (typeof a === 'number') {
    const r = Math.trunc(a);
    return r === 0 ? 0 : r;
  }
  return normalizeNumber(a.dec.trunc());
}
