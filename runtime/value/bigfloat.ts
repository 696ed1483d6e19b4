// Exact emulation of Go's big.Float with its default 64-bit mantissa, on BigInt
// rationals: round a positive rational to a 64-bit mantissa (half to even), then find
// the shortest decimal that rounds back to it (what big.Float.Text('g', -1) prints).
// Used by arith.ts for quotients and long fractions; returns undefined for extreme
// exponents, where the caller falls back to a slower decimal.js path.
import type { Dec } from './number.js';

export interface Rat {
  neg: boolean;
  n: bigint;
  d: bigint;
}

const MAX_EXP10 = 2000;
const TWO63 = 1n << 63n;
const TWO64 = 1n << 64n;
const LOG10_2 = Math.log10(2);

const P10: bigint[] = [1n];

function pow10(k: number): bigint {
  if (k < 64) {
    while (P10.length <= k) P10.push(P10[P10.length - 1]! * 10n);
    return P10[k]!;
  }
  return 10n ** BigInt(k);
}

/** A double as an exact rational of its shortest decimal text. */
export function doubleToRat(x: number): Rat | undefined {
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(x)));
  if (!m) return undefined;
  const frac = m[2] ?? '';
  const k = Number(m[3] ?? 0) - frac.length;
  if (Math.abs(k) > MAX_EXP10) return undefined;
  const n = BigInt(m[1]! + frac);
  return k >= 0 ? { neg: x < 0, n: n * pow10(k), d: 1n } : { neg: x < 0, n, d: pow10(-k) };
}

/** A decimal as an exact rational; undefined when its exponent is extreme. */
export function decToRat(x: Dec): Rat | undefined {
  const [mant, exp] = x.abs().toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  const k = Number(exp) - (digits.length - 1);
  if (Math.abs(k) > MAX_EXP10) return undefined;
  const n = BigInt(digits);
  return k >= 0 ? { neg: x.isNegative(), n: n * pow10(k), d: 1n } : { neg: x.isNegative(), n, d: pow10(-k) };
}

function bitLen(x: bigint): number {
  return x.toString(2).length;
}

/** Round n/d (> 0) to m * 2^(e-63) with m in [2^63, 2^64), ties to even. */
export function roundRat64(n: bigint, d: bigint): { m: bigint; e: number } {
  let e = bitLen(n) - bitLen(d);
  for (;;) {
    const sh = 63 - e;
    const N = sh >= 0 ? n << BigInt(sh) : n;
    const Dn = sh >= 0 ? d : d << BigInt(-sh);
    let q = N / Dn;
    if (q >= TWO64) {
      e += 1;
      continue;
    }
    if (q < TWO63) {
      e -= 1;
      continue;
    }
    const r2 = (N % Dn) * 2n;
    if (r2 > Dn || (r2 === Dn && (q & 1n) === 1n)) q += 1n;
    if (q === TWO64) return { m: TWO63, e: e + 1 };
    return { m: q, e };
  }
}

/** Compare x*10^a1*2^b1 with y*10^a2*2^b2 (all x, y >= 0). */
function cmpScaled(x: bigint, a1: number, b1: number, y: bigint, a2: number, b2: number): number {
  const a = Math.min(a1, a2);
  const b = Math.min(b1, b2);
  const X = x * pow10(a1 - a) * (1n << BigInt(b1 - b));
  const Y = y * pow10(a2 - a) * (1n << BigInt(b2 - b));
  return X < Y ? -1 : X > Y ? 1 : 0;
}

/** Shortest decimal text (digits, exponent) inside the rounding interval of m*2^s. */
export function shortestDecimal(m: bigint, e: number): { c: bigint; k: number } {
  const s = e - 63;
  const inclusive = (m & 1n) === 0n;
  const lo = 2n * m - 1n;
  const hi = 2n * m + 1n;
  const L = Math.floor(Math.log10(Number(m)) + s * LOG10_2);
  const candidate = (digits: number): { c: bigint; k: number } | undefined => {
    const k = L - digits + 1;
    const N = m * (s > 0 ? 1n << BigInt(s) : 1n) * (k < 0 ? pow10(-k) : 1n);
    const Dn = (s < 0 ? 1n << BigInt(-s) : 1n) * (k > 0 ? pow10(k) : 1n);
    let c = N / Dn;
    const r2 = (N % Dn) * 2n;
    if (r2 > Dn || (r2 === Dn && (c & 1n) === 1n)) c += 1n;
    const cl = cmpScaled(c, k, 0, lo, 0, s - 1);
    const ch = cmpScaled(c, k, 0, hi, 0, s - 1);
    const ok = inclusive ? cl >= 0 && ch <= 0 : cl > 0 && ch < 0;
    return ok ? { c, k } : undefined;
  };
  let lo_ = 1;
  let hi_ = 25;
  let best: { c: bigint; k: number } | undefined;
  while (lo_ <= hi_) {
    const mid = (lo_ + hi_) >> 1;
    const r = candidate(mid);
    if (r !== undefined) {
      best = r;
      hi_ = mid - 1;
    } else lo_ = mid + 1;
  }
  return best ?? candidate(25) ?? { c: m, k: s };
}

/** The decimal text big.Float (64-bit mantissa) prints for the rational, or undefined. */
export function float64Text(r: Rat): string | undefined {
  if (r.n === 0n) return '0';
  const { m, e } = roundRat64(r.n, r.d);
  if (Math.abs(e) > MAX_EXP10 * 4) return undefined;
  const { c, k } = shortestDecimal(m, e);
  return `${r.neg ? '-' : ''}${c}e${k}`;
}
