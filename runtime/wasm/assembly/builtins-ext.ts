// Regent's Wasm runtime: more natively implemented builtins (trims, replace,
// substring, array.slice, numbers.range, intersection, object.remove/filter); same
// conventions as builtins.ts (0 = undefined, code-point positions, abort where a
// double or an ASCII-only shortcut could answer differently from the JS back end).
import {
  T_ARR, T_OBJ, T_SET, T_NUM, numInexact,
  alloc, mkNum, mkStr, mkArr, mkSet, mkObj, arrPush, setAdd, objPut, objGet,
  tag, len, item, objKey, objVal, numVal, strData, compare, fail, isStr, intOf, runes,
} from './values';
import { rtb_split, rtb_concat } from './builtins';
import { bdOf, bdToNum, bdRoundInt, bdMul, bdPow2, bdIsInt, bdIsZero } from './bigdec';
import { rt_go_replace } from './natives-strings';
import { tick } from './limits';

// ---------------------------------------------------------------- more strings and collections

function isSpace(c: u8): bool { return c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d || c == 0x0b || c == 0x0c; }

/** Whether byte `c` is in the cutset (ASCII cutsets only; others go to the host). */
function inCut(cut: usize, c: u8): bool {
  for (let i = 0; i < len(cut); i++) if (load<u8>(strData(cut) + i) == c) return true;
  return false;
}

function asciiCut(cut: usize): bool {
  for (let i = 0; i < len(cut); i++) if (load<u8>(strData(cut) + i) >= 0x80) return false;
  return true;
}

function trimBy(s: usize, cut: usize, left: bool, right: bool): usize {
  if (!isStr(s) || (cut != 0 && !isStr(cut))) return 0;
  if (cut != 0 && !asciiCut(cut)) return 1; // non-ASCII cutset: left to the host
  let a = 0;
  let b = len(s);
  const p = strData(s);
  if (left) while (a < b && (cut == 0 ? isSpace(load<u8>(p + a)) : inCut(cut, load<u8>(p + a)))) a++;
  if (right) while (b > a && (cut == 0 ? isSpace(load<u8>(p + b - 1)) : inCut(cut, load<u8>(p + b - 1)))) b--;
  return mkStr(p + a, b - a);
}
export function rtb_trim(s: usize, c: usize): usize { return trimBy(s, c, true, true); }
export function rtb_trim_left(s: usize, c: usize): usize { return trimBy(s, c, true, false); }
export function rtb_trim_right(s: usize, c: usize): usize { return trimBy(s, c, false, true); }
export function rtb_trim_space(s: usize): usize { return trimBy(s, 0, true, true); }

/** replace(s, old, new): every occurrence (Go strings.ReplaceAll; an empty `old` inserts between code points). */
export function rtb_replace(s: usize, o: usize, n: usize): usize {
  if (!isStr(s) || !isStr(o) || !isStr(n)) return 0;
  if (len(o) == 0) {
    const pats = mkObj();
    objPut(pats, o, n);
    return rt_go_replace(pats, s);
  }
  const parts = rtb_split(s, o);
  return rtb_concat(n, parts);
}

/** Byte offset of code point `r` in s (len(s) when past the end). */
function runeOffset(s: usize, r: i32): i32 {
  let i = 0;
  let k = 0;
  while (i < len(s)) {
    if ((load<u8>(strData(s) + i) & 0xc0) != 0x80) {
      if (k == r) return i;
      k++;
    }
    i++;
  }
  return len(s);
}

/** substring(s, start, length): code points; a negative length means to the end. */
export function rtb_substring(s: usize, st: usize, ln: usize): usize {
  if (!isStr(s) || !intOf(st) || !intOf(ln)) return 0;
  const start = <i32>numVal(st);
  const l = <i32>numVal(ln);
  if (start < 0) return 0;
  const total = runes(strData(s), len(s));
  if (start >= total) return mkStr(strData(s), 0);
  const a = runeOffset(s, start);
  const b = l < 0 || start + l >= total ? len(s) : runeOffset(s, start + l);
  return mkStr(strData(s) + a, b - a);
}

/** array.slice(a, start, stop), clamped as OPA does. */
export function rtb_array_slice(a: usize, st: usize, sp: usize): usize {
  if (tag(a) != T_ARR || !intOf(st) || !intOf(sp)) return 0;
  let start = <i32>Math.max(0, numVal(st));
  let stop = <i32>Math.min(<f64>len(a), numVal(sp));
  const out = mkArr(4);
  if (start > stop) return out;
  for (let i = start; i < stop; i++) arrPush(out, item(a, i));
  return out;
}

/** numbers.range(a, b): integers from a to b inclusive, either direction. */
export function rtb_numbers_range(a: usize, b: usize): usize {
  if (!intOf(a) || !intOf(b)) return 0;
  const x = numVal(a);
  const y = numVal(b);
  if (Math.abs(y - x) > 10000000) { fail('not supported on wasm: numbers.range over 10^7 members'); return 0; }
  const out = mkArr(<i32>Math.abs(y - x) + 1);
  if (x <= y) for (let i = x; i <= y; i++) { tick(); arrPush(out, mkNum(i)); }
  else for (let i = x; i >= y; i--) { tick(); arrPush(out, mkNum(i)); }
  return out;
}

/** intersection(set of sets). */
export function rtb_intersection(s: usize): usize {
  if (tag(s) != T_SET) return 0;
  for (let i = 0; i < len(s); i++) if (tag(item(s, i)) != T_SET) return 0;
  const out = mkSet();
  if (len(s) == 0) return out;
  const first = item(s, 0);
  for (let j = 0; j < len(first); j++) {
    const x = item(first, j);
    let all = true;
    for (let i = 1; i < len(s) && all; i++) all = setHasValue(item(s, i), x);
    if (all) setAdd(out, x);
  }
  return out;
}

function setHasValue(s: usize, x: usize): bool {
  for (let i = 0; i < len(s); i++) if (compare(item(s, i), x) == 0) return true;
  return false;
}

/** object.remove(obj, keys): keys an array, set or object (its keys). */
export function rtb_object_remove(o: usize, ks: usize): usize {
  if (tag(o) != T_OBJ) return 0;
  const t = tag(ks);
  if (t != T_ARR && t != T_SET && t != T_OBJ) return 0;
  const out = mkObj();
  for (let i = 0; i < len(o); i++) {
    const k = objKey(o, i);
    let drop = false;
    for (let j = 0; j < len(ks) && !drop; j++) drop = compare(t == T_OBJ ? objKey(ks, j) : item(ks, j), k) == 0;
    if (!drop) objPut(out, k, objVal(o, i));
  }
  return out;
}

/** object.filter(obj, keys): only the given keys. */
export function rtb_object_filter(o: usize, ks: usize): usize {
  if (tag(o) != T_OBJ) return 0;
  const t = tag(ks);
  if (t != T_ARR && t != T_SET && t != T_OBJ) return 0;
  const out = mkObj();
  for (let j = 0; j < len(ks); j++) {
    const k = t == T_OBJ ? objKey(ks, j) : item(ks, j);
    const v = objGet(o, k);
    if (v != 0) objPut(out, k, v);
  }
  return out;
}

// ---------------------------------------------------------------- walk

function walkInto(out: usize, path: usize, v: usize, depth: i32): void {
  if (depth > 10000) { fail('not supported on wasm: walk deeper than 10000'); return; }
  tick();
  const pair = mkArr(2);
  arrPush(pair, path);
  arrPush(pair, v);
  arrPush(out, pair);
  const t = tag(v);
  if (t != T_ARR && t != T_OBJ && t != T_SET) return;
  for (let i = 0; i < len(v); i++) {
    const p = mkArr(len(path) + 1);
    for (let j = 0; j < len(path); j++) arrPush(p, item(path, j));
    const k = t == T_ARR ? mkNum(<f64>i) : t == T_OBJ ? objKey(v, i) : item(v, i);
    arrPush(p, k);
    walkInto(out, p, t == T_OBJ ? objVal(v, i) : item(v, i), depth + 1);
  }
}

/** walk(x) as a relation: every [path, value] pair, pre-order, members in Rego order. */
export function rtb_walk(x: usize): usize {
  const out = mkArr(8);
  walkInto(out, mkArr(0), x, 0);
  return out;
}

// ---------------------------------------------------------------- rounding

/** floor, ceil, round (half away from zero, as Go's math.Round) by op 0..2; big numbers exactly. */
function rounding(v: usize, op: i32): usize {
  if (tag(v) != T_NUM) return 0;
  if (numInexact(v) || len(v) > 0) {
    const d = bdOf(v);
    if (d != 0) return bdToNum(bdRoundInt(d, op));
  }
  const x = numVal(v);
  let r: f64;
  if (op == 0) r = Math.floor(x);
  else if (op == 1) r = Math.ceil(x);
  else {
    r = Math.trunc(x);
    if (Math.abs(x - r) >= 0.5) r += x < 0 ? -1 : 1;
  }
  if (Math.abs(r) >= 9007199254740992) { fail('not supported on wasm: integers beyond 2^53'); return 0; }
  return mkNum(r == 0 ? 0 : r);
}
export function rtb_floor(v: usize): usize { return rounding(v, 0); }
export function rtb_ceil(v: usize): usize { return rounding(v, 1); }
export function rtb_round(v: usize): usize { return rounding(v, 2); }

// ---------------------------------------------------------------- base64 (encoding) and bits

function b64(s: usize, url: bool, pad: bool): usize {
  if (!isStr(s)) return 0;
  const n = len(s);
  const p = strData(s);
  const out = alloc(<usize>((n + 2) / 3 * 4));
  let o: i32 = 0;
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const digit = (i: i32, url: bool): u8 => <u8>(i < 62 ? A.charCodeAt(i) : i == 62 ? (url ? 45 : 43) : (url ? 95 : 47));
  for (let i = 0; i < n; i += 3) {
    const b0 = <i32>load<u8>(p + i);
    const b1 = i + 1 < n ? <i32>load<u8>(p + i + 1) : 0;
    const b2 = i + 2 < n ? <i32>load<u8>(p + i + 2) : 0;
    store<u8>(out + o++, digit(b0 >> 2, url));
    store<u8>(out + o++, digit(((b0 & 3) << 4) | (b1 >> 4), url));
    if (i + 1 < n) store<u8>(out + o++, digit(((b1 & 15) << 2) | (b2 >> 6), url));
    else if (pad) store<u8>(out + o++, 61);
    if (i + 2 < n) store<u8>(out + o++, digit(b2 & 63, url));
    else if (pad) store<u8>(out + o++, 61);
  }
  return mkStr(out, o);
}
export function rtb_base64_encode(s: usize): usize { return b64(s, false, true); }
export function rtb_base64url_encode(s: usize): usize { return b64(s, true, true); }
export function rtb_base64url_encode_no_pad(s: usize): usize { return b64(s, true, false); }

/** bits.and/or/xor/lsh/rsh by op 0..4 on integers (results beyond ±2^53 abort). */
function bits(a: usize, b: usize, op: i32): usize {
  if (op == 3 && tag(a) == T_NUM && (numInexact(a) || Math.abs(numVal(a)) >= 4503599627370496)) return bigShiftLeft(a, b);
  if (!intOf(a) || !intOf(b)) return 0;
  const x = <i64>numVal(a);
  const y = <i64>numVal(b);
  let r: i64 = 0;
  if (op == 0) r = x & y;
  else if (op == 1) r = x | y;
  else if (op == 2) r = x ^ y;
  else {
    if (y < 0) return 0;
    if (op == 3) {
      if (y >= 53 || (r = x << y, (r >> y) != x) || Math.abs(<f64>r) >= 9007199254740992) return bigShiftLeft(a, b);
    } else r = y >= 63 ? (x < 0 ? -1 : 0) : x >> y;
  }
  const f = <f64>r;
  if (Math.abs(f) >= 9007199254740992) { fail('not supported on wasm: integers beyond 2^53'); return 0; }
  return mkNum(f);
}

/** bits.lsh beyond 2^53: x × 2^s exactly (big.Int's Lsh), up to 2^20 bits as the JS builtin. */
function bigShiftLeft(a: usize, b: usize): usize {
  if (!intOf(b) || numVal(b) < 0) return 0;
  const A = bdOf(a);
  if (A == 0 || !bdIsInt(A)) return 0;
  if (bdIsZero(A)) return mkNum(0);
  if (numVal(b) > 1000000) { fail('not supported on wasm: bits.lsh by more than 10^6'); return 0; }
  return bdToNum(bdMul(A, bdPow2(<i32>numVal(b))));
}
export function rtb_bits_and(a: usize, b: usize): usize { return bits(a, b, 0); }
export function rtb_bits_or(a: usize, b: usize): usize { return bits(a, b, 1); }
export function rtb_bits_xor(a: usize, b: usize): usize { return bits(a, b, 2); }
export function rtb_bits_lsh(a: usize, b: usize): usize { return bits(a, b, 3); }
export function rtb_bits_rsh(a: usize, b: usize): usize { return bits(a, b, 4); }
export function rtb_bits_negate(a: usize): usize { return intOf(a) ? mkNum(<f64>(~(<i64>numVal(a)))) : 0; }
