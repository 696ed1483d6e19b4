// Regent's Wasm runtime: native number builtins that need exact decimals (bigdec.ts):
// to_number, units.parse and units.parse_bytes, with the JS runtime's semantics
// (runtime/builtins/conversions.ts, units.ts). A result the JS runtime would keep as a
// double with 16–17 significant digits prints differently from its decimal: those
// abort as "not supported on wasm". parse_bytes follows Go's big.Float exactly
// (bdRound64: the amount and the product rounded to a 64-bit mantissa, half to even).
import {
  T_NULL, T_BOOL, T_NUM,
  alloc, mkNum, tag, len, strData, fail, isStr,
} from './values';
import { textToF64 } from './json';
import { bdParse, bdMul, bdAdd, bdIsInt, bdDigits, bdToNum, bdRoundHalfUp, bdRoundInt, bdCmp, bdIsZero, bdLit } from './bigdec';
import { bdRound64 } from './arith';

/** A decimal the JS runtime prints as it is: integers, and fractions of ≤ 15 or ≥ 18 digits. */
function exactNum(d: usize): usize {
  const n = bdDigits(d);
  if (!bdIsInt(d) && n >= 16 && n <= 17) { fail('not supported on wasm: a fraction of 16-17 digits (kept as a double)'); return 0; }
  return bdToNum(d);
}

function textBD(s: string): usize { return bdLit(s); }

function isDigit(c: i32): bool { return c >= 48 && c <= 57; }

// ---------------------------------------------------------------- to_number

/** to_number: null → 0, booleans → 0/1, numbers as they are, decimal strings exactly. */
export function rtb_to_number(v: usize): usize {
  const t = tag(v);
  if (t == T_NULL) return mkNum(0);
  if (t == T_BOOL) return mkNum(<f64>len(v));
  if (t == T_NUM) return v;
  if (!isStr(v)) return 0;
  const p = strData(v);
  const n = len(v);
  for (let i = 0; i < n; i++) {
    const c = load<u8>(p + i);
    if (c == 0x78 || c == 0x58 || c == 0x5f) return 1; // hex floats, underscores: left to the host
  }
  const d = bdParse(p, n);
  if (d == 0) return 0;
  if (!isFinite(textToF64(p, n))) return 0; // out of float64 range: strconv.ParseFloat's error
  return exactNum(d);
}

// ---------------------------------------------------------------- units

/** The unquoted text (every `"` removed); 0 when it holds a space. */
function cleaned(v: usize, lower: bool): usize {
  const p = strData(v);
  const out = alloc(<usize>len(v) + 1);
  let o = 0;
  for (let i = 0; i < len(v); i++) {
    let c = <i32>load<u8>(p + i);
    if (c == 0x22) continue;
    if (c == 0x20) return 0;
    if (lower && c >= 65 && c <= 90) c += 32;
    store<u8>(out + o++, <u8>c);
  }
  cleanLen = o;
  return out;
}
let cleanLen = 0;

/** OPA's extractNumAndUnit: index where the unit starts (-1: exponent too long). */
function unitStart(p: usize, n: i32): i32 {
  for (let i = 0; i < n; i++) {
    const c = <i32>load<u8>(p + i);
    if (!isDigit(c) && c != 0x2e && c != 0x65 && c != 0x45 && c != 0x2b && c != 0x2d) return i;
    if (c == 0x65 || c == 0x45) {
      const nx = i + 1 < n ? <i32>load<u8>(p + i + 1) : -1;
      if (i == n - 1 || (!isDigit(nx) && nx != 0x2b && nx != 0x2d)) return i;
      if (nx == 0x2b || nx == 0x2d) i++;
      let e = i + 1;
      while (e < n && isDigit(<i32>load<u8>(p + e))) e++;
      if (e - (i + 1) > 6) return -1;
    }
  }
  return n;
}

/** The amount grammar: [+-]? (digits [. digits?] | . digits) ([eE][+-]?digits)?. */
function amountOk(p: usize, n: i32): bool {
  let i = 0;
  if (i < n && (load<u8>(p) == 0x2b || load<u8>(p) == 0x2d)) i++;
  let intD = 0;
  while (i < n && isDigit(<i32>load<u8>(p + i))) { i++; intD++; }
  let fracD = 0;
  if (i < n && load<u8>(p + i) == 0x2e) {
    i++;
    while (i < n && isDigit(<i32>load<u8>(p + i))) { i++; fracD++; }
  }
  if (intD == 0 && fracD == 0) return false;
  if (i < n && (load<u8>(p + i) | 0x20) == 0x65) {
    i++;
    if (i < n && (load<u8>(p + i) == 0x2b || load<u8>(p + i) == 0x2d)) i++;
    let eD = 0;
    while (i < n && isDigit(<i32>load<u8>(p + i))) { i++; eD++; }
    if (eD == 0) return false;
  }
  return i == n;
}

const MILLI = '0.001000000000000000020816681711721685132943093776702880859375';

/** 1000^k or 1024^k for SI/binary prefix letter `l` (lower case); null when unknown (static strings only). */
function prefixPower(l: i32, binary: bool): string | null {
  if (l == 0x6b) return binary ? '1024' : '1000';
  if (l == 0x6d) return binary ? '1048576' : '1000000';
  if (l == 0x67) return binary ? '1073741824' : '1000000000';
  if (l == 0x74) return binary ? '1099511627776' : '1000000000000';
  if (l == 0x70) return binary ? '1125899906842624' : '1000000000000000';
  if (l == 0x65) return binary ? '1152921504606846976' : '1000000000000000000';
  return null;
}

/** units.parse: SI (k, M, G, …, m = milli) and binary (Ki, Mi, …) suffixes, exact. */
export function rtb_units_parse(v: usize): usize {
  if (!isStr(v)) return 0;
  const p = cleaned(v, false);
  if (p == 0) return 0;
  const n = cleanLen;
  const u = unitStart(p, n);
  if (u <= 0) return 0;
  let factor: string | null = null;
  const ul = n - u;
  const c0 = <i32>load<u8>(p + u);
  const c1 = ul > 1 ? <i32>load<u8>(p + u + 1) | 0x20 : 0;
  const lc0 = c0 | 0x20;
  if (ul == 0) factor = '1';
  else if (ul == 1 && c0 == 0x6d) factor = MILLI;
  else if (ul == 1 && c0 == 0x4d) factor = '1000000';
  else if (ul == 1 && lc0 != 0x6d && (c0 < 48 || c0 > 57)) factor = prefixPower(lc0, false);
  else if (ul == 2 && c1 == 0x69) factor = prefixPower(lc0, true);
  if (factor == null) return 0;
  if (!amountOk(p, u)) return 0;
  const amount = bdParse(p, u);
  if (amount == 0) return 0;
  const r = bdMul(amount, textBD(factor!));
  if (bdIsInt(r)) return bdToNum(r);
  return exactNum(bdRoundHalfUp(r, 10));
}

/** units.parse_bytes: SI (kb, mb, …) and binary (kib, mib, …) byte units, truncated to an integer. */
export function rtb_units_parse_bytes(v: usize): usize {
  if (!isStr(v)) return 0;
  const p = cleaned(v, true);
  if (p == 0) return 0;
  const n = cleanLen;
  const u = unitStart(p, n);
  if (u <= 0) return 0;
  const ul = n - u;
  let factor: string | null = null;
  let binary = true;
  if (ul == 0) factor = '1';
  else if (ul <= 3) {
    const base = <i32>load<u8>(p + u);
    const r1 = ul > 1 ? <i32>load<u8>(p + u + 1) : 0;
    const r2 = ul > 2 ? <i32>load<u8>(p + u + 2) : 0;
    if (ul == 1 || (ul == 2 && r1 == 0x62)) { factor = prefixPower(base, false); binary = false; }
    else if ((ul == 2 && r1 == 0x69) || (ul == 3 && r1 == 0x69 && r2 == 0x62)) factor = prefixPower(base, true);
  }
  if (factor == null) return 0;
  if (!amountOk(p, u)) return 0;
  const amount = bdParse(p, u);
  if (amount == 0) return 0;
  if (bdIsZero(amount)) return mkNum(0);
  if (bigExponent(p, u)) {
    // astronomically large or small amounts: exact decimal arithmetic, as the JS runtime
    const r = bdMul(amount, textBD(factor!));
    return bdToNum(bdRoundInt(r, bdCmp(r, textBD('0')) < 0 ? 1 : 0));
  }
  // Go's big.Float (64-bit mantissa): the amount is rounded, multiplied, rounded again, truncated
  const ng = bdCmp(amount, textBD('0')) < 0;
  const m1 = bdRound64(abs(amount));
  const P = bdRound64(bdMul(m1, textBD(factor!)));
  const whole = bdRoundInt(P, 0);
  return bdToNum(ng ? bdAdd(textBD('0'), whole, true) : whole);
}

/** The amount's exponent is beyond ±1000. */
function bigExponent(p: usize, n: i32): bool {
  for (let i = 0; i < n; i++) {
    if ((load<u8>(p + i) | 0x20) != 0x65) continue;
    let j = i + 1;
    if (j < n && (load<u8>(p + j) == 0x2b || load<u8>(p + j) == 0x2d)) j++;
    let e = 0;
    for (; j < n; j++) e = e * 10 + (<i32>load<u8>(p + j) - 48);
    return e > 1000;
  }
  return false;
}

function abs(d: usize): usize { return bdCmp(d, textBD('0')) < 0 ? bdAdd(textBD('0'), d, true) : d; }
