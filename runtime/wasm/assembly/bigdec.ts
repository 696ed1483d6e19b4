// Regent's Wasm runtime: exact decimal numbers (sign, decimal digits, power-of-ten
// exponent) for arithmetic and comparisons a double cannot do exactly. The JS runtime
// (runtime/value/number.ts, arith.ts) keeps integers exact at any size and fractions of
// up to 15 or of 18–19 significant digits as decimals; other fractions (and every
// non-integer quotient) become the nearest double, printed as JS prints it
// (bdShortestDouble in arith.ts). Values beyond the range of doubles abort there.
//
//   BigDec [neg i32, n i32 (digit count), exp i32, digits ptr (u8 0..9, most significant first)]
// value = ±digits × 10^exp; normalized: no leading or trailing zero digits; zero has n = 0.
import { T_NUM, alloc, mkNumRaw, mkNum, tag, len, numVal, fail, numInexact } from './values';
import { textToF64, inexactText } from './json';

export function dg(d: usize, i: i32): i32 { return <i32>load<u8>(<usize>load<i32>(d, 12) + <usize>i); }
export function neg(d: usize): bool { return load<i32>(d) != 0; }
export function nd(d: usize): i32 { return load<i32>(d, 4); }
export function ex(d: usize): i32 { return load<i32>(d, 8); }

/** A normalized BigDec over `n` digits at `p` (not copied). */
export function make(ng: bool, p: usize, n: i32, e: i32): usize {
  let a = 0;
  while (a < n && load<u8>(p + a) == 0) a++;
  let b = n;
  while (b > a && load<u8>(p + b - 1) == 0) { b--; e++; }
  const d = alloc(16);
  store<i32>(d, ng && b > a ? 1 : 0);
  store<i32>(d, b - a, 4);
  store<i32>(d, b > a ? e : 0, 8);
  store<i32>(d, <i32>(p + a), 12);
  return d;
}

/** Decimal text (JSON numbers, also `.5`, `5.`, a leading `+`) → BigDec, or 0 when malformed. */
export function bdParse(p: usize, n: i32): usize {
  let i = 0;
  let ng = false;
  if (i < n && (load<u8>(p) == 0x2d || load<u8>(p) == 0x2b)) { ng = load<u8>(p) == 0x2d; i++; }
  const digits = alloc(<usize>n + 1);
  let k = 0;
  let frac = 0;
  let dot = false;
  let any = false;
  for (; i < n; i++) {
    const c = load<u8>(p + i);
    if (c == 0x2e && !dot) { dot = true; continue; }
    if (c < 48 || c > 57) break;
    any = true;
    store<u8>(digits + k++, c - 48);
    if (dot) frac++;
  }
  if (!any) return 0;
  let e: i64 = 0;
  if (i < n) {
    const c = load<u8>(p + i);
    if (c != 0x65 && c != 0x45) return 0;
    i++;
    let eneg = false;
    if (i < n && (load<u8>(p + i) == 0x2d || load<u8>(p + i) == 0x2b)) { eneg = load<u8>(p + i) == 0x2d; i++; }
    if (i >= n) return 0;
    for (; i < n; i++) {
      const c2 = load<u8>(p + i);
      if (c2 < 48 || c2 > 57) return 0;
      e = e * 10 + <i64>(c2 - 48);
      if (e > 100000000) return 0;
    }
    if (eneg) e = -e;
  }
  return make(ng, digits, k, <i32>e - frac);
}

/** The exact value of a number, or 0 (a non-integer double without its source text). */
export function bdOf(v: usize): usize {
  if (tag(v) != T_NUM) return 0;
  if (len(v) > 0) return bdParse(<usize>load<i32>(v, 16), len(v));
  const x = numVal(v);
  if (x != Math.floor(x) || Math.abs(x) >= 9007199254740992) return 0;
  const buf = alloc(20);
  let u = <u64>Math.abs(x);
  let o = 20;
  do { store<u8>(buf + --o, <u8>(u % 10)); u /= 10; } while (u > 0);
  return make(x < 0, buf + o, 20 - o, 0);
}

/** Compare magnitudes. */
function cmpAbs(a: usize, b: usize): i32 {
  if (nd(a) == 0 || nd(b) == 0) return nd(a) == 0 ? (nd(b) == 0 ? 0 : -1) : 1;
  const ta = nd(a) + ex(a);
  const tb = nd(b) + ex(b);
  if (ta != tb) return ta < tb ? -1 : 1;
  const m = nd(a) > nd(b) ? nd(a) : nd(b);
  for (let i = 0; i < m; i++) {
    const x = i < nd(a) ? dg(a, i) : 0;
    const y = i < nd(b) ? dg(b, i) : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

export function bdCmp(a: usize, b: usize): i32 {
  if (neg(a) != neg(b)) return neg(a) ? -1 : 1;
  const c = cmpAbs(a, b);
  return neg(a) ? -c : c;
}

/** Digit of `d` at power 10^k (0 outside). */
function at(d: usize, k: i32): i32 {
  const i = nd(d) - 1 - (k - ex(d));
  return i >= 0 && i < nd(d) ? dg(d, i) : 0;
}

/** |a| + |b| (sub = false) or |a| - |b| with |a| >= |b| (sub = true), sign `ng`. */
function addAbs(a: usize, b: usize, sub: bool, ng: bool): usize {
  const lo = ex(a) < ex(b) ? ex(a) : ex(b);
  const ta = nd(a) + ex(a);
  const tb = nd(b) + ex(b);
  const hi = (ta > tb ? ta : tb) + 1;
  const n = hi - lo;
  if (n > 100000) { fail('not supported on wasm: numbers with more than 10^5 digits'); return 0; }
  const out = alloc(<usize>n);
  let carry = 0;
  for (let k = lo; k < hi; k++) {
    let s = sub ? at(a, k) - at(b, k) - carry : at(a, k) + at(b, k) + carry;
    if (sub) { carry = s < 0 ? 1 : 0; if (s < 0) s += 10; } else { carry = s >= 10 ? 1 : 0; if (s >= 10) s -= 10; }
    store<u8>(out + (hi - 1 - k), <u8>s);
  }
  return make(ng, out, n, lo);
}

export function bdAdd(a: usize, b: usize, negateB: bool): usize {
  const nb = negateB ? !neg(b) : neg(b);
  if (neg(a) == nb) return addAbs(a, b, false, neg(a));
  return cmpAbs(a, b) >= 0 ? addAbs(a, b, true, neg(a)) : addAbs(b, a, true, nb);
}

export function bdMul(a: usize, b: usize): usize {
  const n = nd(a) + nd(b);
  if (n > 100000) { fail('not supported on wasm: numbers with more than 10^5 digits'); return 0; }
  const acc = alloc(<usize>n << 2);
  memory.fill(acc, 0, <usize>n << 2);
  for (let i = nd(a) - 1; i >= 0; i--) {
    for (let j = nd(b) - 1; j >= 0; j--) {
      const p = acc + (<usize>(i + j + 1) << 2);
      store<i32>(p, load<i32>(p) + dg(a, i) * dg(b, j));
    }
    // keep the column sums small
    for (let k = n - 1; k > 0; k--) {
      const p = acc + (<usize>k << 2);
      const v = load<i32>(p);
      if (v >= 10) { store<i32>(p, v % 10); store<i32>(p - 4, load<i32>(p - 4) + v / 10); }
    }
  }
  const out = alloc(<usize>n);
  for (let k = 0; k < n; k++) store<u8>(out + k, <u8>load<i32>(acc + (<usize>k << 2)));
  return make(neg(a) != neg(b), out, n, ex(a) + ex(b));
}

/** Truncated remainder of two integers (the sign of the dividend); b is not zero. */
export function bdRemInt(a: usize, b: usize): usize {
  const bb = make(false, <usize>load<i32>(b, 12), nd(b), ex(b));
  let rem = make(false, alloc(1), 0, 0);
  const total = nd(a) + ex(a);
  if (total > 200000) { fail('not supported on wasm: numbers with more than 10^5 digits'); return 0; }
  for (let i = 0; i < total; i++) {
    const one = alloc(1);
    store<u8>(one, <u8>(i < nd(a) ? dg(a, i) : 0));
    rem = bdAdd(times10(rem), make(false, one, 1, 0), false);
    while (cmpAbs(rem, bb) >= 0) rem = bdAdd(rem, bb, true);
  }
  return nd(rem) == 0 ? rem : make(neg(a), <usize>load<i32>(rem, 12), nd(rem), ex(rem));
}

export function bdIsInt(d: usize): bool { return nd(d) == 0 || ex(d) >= 0; }
export function bdIsZero(d: usize): bool { return nd(d) == 0; }
export function bdDigits(d: usize): i32 { return nd(d); }

/**
 * a / b: the quotient when it is an integer or a decimal with at most `maxSig`
 * significant digits; 0 otherwise (the caller decides). b must not be zero.
 */
export function bdDiv(a: usize, b: usize, maxSig: i32, truncate: bool = false): usize {
  if (nd(a) == 0) return a;
  // long division of the digit strings: a' = digits(a), b' = digits(b)
  const q = alloc(<usize>(maxSig + nd(a) + 2));
  let qn = 0;
  // remainder as a BigDec over integers
  let rem = make(false, alloc(1), 0, 0);
  const bb = make(false, <usize>load<i32>(b, 12), nd(b), 0);
  let i = 0;
  let e = ex(a) - ex(b);
  let started = false;
  while (true) {
    // bring down the next digit (zeros after a's digits, each shifting the exponent)
    const nextDigit = i < nd(a) ? dg(a, i) : 0;
    if (i >= nd(a)) {
      if (nd(rem) == 0) break;
      e--;
    }
    i++;
    const one = alloc(1);
    store<u8>(one, <u8>nextDigit);
    rem = bdAdd(times10(rem), make(false, one, 1, 0), false);
    let digit = 0;
    while (cmpAbs(rem, bb) >= 0) { rem = bdAdd(rem, bb, true); digit++; }
    if (digit != 0) started = true;
    if (started) {
      store<u8>(q + qn++, <u8>digit);
      if (qn > maxSig + nd(a) + 1) {
        if (!truncate) return 0;
        break; // the quotient cut after maxSig + nd(a) + 2 digits
      }
    }
    if (i >= nd(a) && nd(rem) == 0) break;
  }
  // quotient digits end at 10^e
  const r = make(neg(a) != neg(b), q, qn, e);
  if (!truncate && !bdIsInt(r) && nd(r) > maxSig) return 0;
  return r;
}

function times10(d: usize): usize {
  if (nd(d) == 0) return d;
  return make(neg(d), <usize>load<i32>(d, 12), nd(d), ex(d) + 1);
}

/** a rounded to `places` decimal places, halves away from zero (decimal.js ROUND_HALF_UP). */
export function bdRoundHalfUp(a: usize, places: i32): usize {
  if (ex(a) >= -places) return a;
  const keep = nd(a) + ex(a) + places; // digits kept
  if (keep < 0) return make(false, alloc(1), 0, 0);
  const out = alloc(<usize>keep + 1);
  store<u8>(out, 0);
  for (let i = 0; i < keep; i++) store<u8>(out + 1 + i, <u8>dg(a, i));
  if (keep < nd(a) && dg(a, keep) >= 5) {
    let k = keep;
    while (true) {
      const v = load<u8>(out + k) + 1;
      if (v < 10) { store<u8>(out + k, v); break; }
      store<u8>(out + k, 0);
      k--;
    }
  }
  return make(neg(a), out, keep + 1, -places);
}

/** floor (op 0), ceil (1), round half away from zero (2) or half to even (3) to an integer. */
export function bdRoundInt(a: usize, op: i32): usize {
  if (bdIsInt(a)) return a;
  const keep = nd(a) + ex(a); // integer digits (may be <= 0)
  const k = keep > 0 ? keep : 0;
  const out = alloc(<usize>k + 1);
  store<u8>(out, 0);
  for (let i = 0; i < k; i++) store<u8>(out + 1 + i, <u8>dg(a, i));
  // away from zero: ceil of positives, floor of negatives, round at .5 and above
  let up = false;
  if (op == 2) up = keep >= 0 && keep < nd(a) && dg(a, keep) >= 5;
  else if (op == 3) {
    // half to even: above a half, or exactly a half with an odd last kept digit
    const first = keep >= 0 ? dg(a, keep) : 0;
    const half = keep >= 0 && first == 5 && nd(a) == keep + 1;
    const lastOdd = k > 0 && (load<u8>(out + k) & 1) == 1;
    up = keep >= 0 && (first > 5 || (first == 5 && !half) || (half && lastOdd));
  } else up = (op == 1) != neg(a);
  if (up) {
    let j = k;
    while (true) {
      const v = load<u8>(out + j) + 1;
      if (v < 10) { store<u8>(out + j, v); break; }
      store<u8>(out + j, 0);
      j--;
    }
  }
  return make(neg(a), out, k + 1, 0);
}

/** Length of the text bdText last produced. */
let textLen = 0;

/** Text as the JS runtime prints the number (plain, or 1.5e-7 / 1e+400 past its limits). */
export function bdText(d: usize): usize {
  const n = nd(d);
  const buf = alloc(<usize>(n + (ex(d) > 0 ? ex(d) : -ex(d)) + 16));
  let o = 0;
  if (n == 0) { store<u8>(buf, 48); textLen = 1; return buf; }
  if (neg(d)) store<u8>(buf + o++, 0x2d);
  const sci = n + ex(d) - 1;
  const plain = bdIsInt(d) ? (sci < 64 || n * 2 > sci) : (sci > -7 && sci < 21);
  if (plain) {
    if (sci < 0) {
      store<u8>(buf + o++, 48); store<u8>(buf + o++, 0x2e);
      for (let i = 0; i < -sci - 1; i++) store<u8>(buf + o++, 48);
      for (let i = 0; i < n; i++) store<u8>(buf + o++, <u8>(48 + dg(d, i)));
    } else {
      const intDigits = sci + 1;
      for (let i = 0; i < intDigits; i++) store<u8>(buf + o++, <u8>(48 + (i < n ? dg(d, i) : 0)));
      if (n > intDigits) {
        store<u8>(buf + o++, 0x2e);
        for (let i = intDigits; i < n; i++) store<u8>(buf + o++, <u8>(48 + dg(d, i)));
      }
    }
  } else {
    store<u8>(buf + o++, <u8>(48 + dg(d, 0)));
    if (n > 1) {
      store<u8>(buf + o++, 0x2e);
      for (let i = 1; i < n; i++) store<u8>(buf + o++, <u8>(48 + dg(d, i)));
    }
    store<u8>(buf + o++, 0x65);
    store<u8>(buf + o++, sci < 0 ? 0x2d : 0x2b);
    let u = sci < 0 ? -sci : sci;
    const t = alloc(12);
    let k = 12;
    do { store<u8>(t + --k, <u8>(48 + u % 10)); u /= 10; } while (u > 0);
    for (; k < 12; k++) store<u8>(buf + o++, load<u8>(t + k));
  }
  textLen = o;
  return buf;
}

/** A Rego number holding `d` exactly (with its text, as numbers parsed from JSON do). */
export function bdToNum(d: usize): usize {
  if (nd(d) == 0) return mkNum(0);
  const p = bdText(d);
  const n = textLen;
  return mkNumRaw(textToF64(p, n), p, n, inexactText(p, n) ? 1 : 0);
}

/** 2^k exactly (k may be negative: 0.5^-k), by squaring. */
export function bdPow2(k: i32): usize {
  let base = bdLit(k < 0 ? '0.5' : '2');
  let r = bdLit('1');
  let e = k < 0 ? -k : k;
  while (e > 0) {
    if (e & 1) r = bdMul(r, base);
    e >>= 1;
    if (e > 0) base = bdMul(base, base);
  }
  return r;
}

/** A BigDec from a (static, ASCII) string literal. */
export function bdLit(s: string): usize {
  const p = alloc(<usize>s.length);
  for (let i = 0; i < s.length; i++) store<u8>(p + i, <u8>s.charCodeAt(i));
  return bdParse(p, s.length);
}

