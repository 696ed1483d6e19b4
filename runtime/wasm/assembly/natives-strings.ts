// Regent's Wasm runtime: native string builtins beyond builtins.ts (prefix/suffix
// matching over collections, counting, all-index search, Go's strings.Replacer,
// split_n, reverse, format_int). Same conventions as builtins.ts: 0 = undefined (the
// JS builtin raises an error there), positions count code points, and anything whose
// result could differ from the JS builtin aborts as "not supported on wasm".
import {
  T_ARR, T_SET, T_OBJ, T_NUM,
  alloc, mkBool, mkNum, mkStr, mkArr, arrPush,
  tag, len, item, objKey, objVal, numVal, strData, fail, isStr, intOf, runes, numInexact,
  bytesEq, findBytes,
} from './values';

function hasPrefix(s: usize, p: usize): bool {
  return len(p) <= len(s) && bytesEq(strData(s), strData(p), len(p));
}

function hasSuffix(s: usize, p: usize): bool {
  return len(p) <= len(s) && bytesEq(strData(s) + len(s) - len(p), strData(p), len(p));
}

/** A string, or an array/set of strings, as an array of strings; 0 otherwise. */
function strings(v: usize): usize {
  if (isStr(v)) {
    const a = mkArr(1);
    arrPush(a, v);
    return a;
  }
  if (tag(v) != T_ARR && tag(v) != T_SET) return 0;
  for (let i = 0; i < len(v); i++) if (!isStr(item(v, i))) return 0;
  return v;
}

function anyMatch(a: usize, b: usize, suffix: bool): usize {
  const xs = strings(a);
  const ps = strings(b);
  if (xs == 0 || ps == 0) return 0;
  for (let i = 0; i < len(xs); i++) {
    for (let j = 0; j < len(ps); j++) {
      const s = item(xs, i);
      const p = item(ps, j);
      if (suffix ? hasSuffix(s, p) : hasPrefix(s, p)) return mkBool(1);
    }
  }
  return mkBool(0);
}
export function rtb_strings_any_prefix_match(a: usize, b: usize): usize { return anyMatch(a, b, false); }
export function rtb_strings_any_suffix_match(a: usize, b: usize): usize { return anyMatch(a, b, true); }

/** strings.count: non-overlapping occurrences; an empty substring counts code points + 1. */
export function rtb_strings_count(s: usize, sub: usize): usize {
  if (!isStr(s) || !isStr(sub)) return 0;
  if (len(sub) == 0) return mkNum(<f64>(runes(strData(s), len(s)) + 1));
  let n = 0;
  let i = findBytes(s, sub, 0);
  while (i >= 0) {
    n++;
    i = findBytes(s, sub, i + len(sub));
  }
  return mkNum(<f64>n);
}

/** indexof_n: code-point indexes of every (overlapping) match; an empty needle is an error. */
export function rtb_indexof_n(s: usize, sub: usize): usize {
  if (!isStr(s) || !isStr(sub) || len(sub) == 0) return 0;
  const out = mkArr(4);
  let i = findBytes(s, sub, 0);
  while (i >= 0) {
    arrPush(out, mkNum(<f64>runes(strData(s), i)));
    i = findBytes(s, sub, i + 1);
  }
  return out;
}

/**
 * Go's strings.NewReplacer over the object's pairs in key order: at each position the
 * earliest pair that matches there wins, matches do not overlap. An empty pattern
 * (always the first pair) matches at every code-point boundary, but not twice in a row.
 */
export function rt_go_replace(pats: usize, s: usize): usize {
  const n = len(pats);
  const hasEmpty = n > 0 && len(objKey(pats, 0)) == 0;
  const emptyVal = hasEmpty ? objVal(pats, 0) : 0;
  let longest = 1;
  for (let j = 0; j < n; j++) if (len(objVal(pats, j)) > longest) longest = len(objVal(pats, j));
  // worst case: every byte replaced, plus an empty-pattern insertion around each
  const out = alloc(<usize>((len(s) + 1) * (longest * 2 + 1)));
  let o = 0;
  let i = 0;
  let prevEmpty = false;
  const p = strData(s);
  while (i <= len(s)) {
    if (hasEmpty && !prevEmpty) {
      memory.copy(out + o, strData(emptyVal), <usize>len(emptyVal));
      o += len(emptyVal);
      prevEmpty = true;
      continue;
    }
    prevEmpty = false;
    let hit = -1;
    for (let j = hasEmpty ? 1 : 0; j < n && hit < 0 && i < len(s); j++) {
      const k = objKey(pats, j);
      if (i + len(k) <= len(s) && bytesEq(p + i, strData(k), len(k))) hit = j;
    }
    if (hit >= 0) {
      const v = objVal(pats, hit);
      memory.copy(out + o, strData(v), <usize>len(v));
      o += len(v);
      i += len(objKey(pats, hit));
      continue;
    }
    if (i == len(s)) break;
    // copy one code point
    store<u8>(out + o++, load<u8>(p + i));
    i++;
    while (i < len(s) && (load<u8>(p + i) & 0xc0) == 0x80) store<u8>(out + o++, load<u8>(p + i++));
  }
  return mkStr(out, o);
}

/** strings.replace_n(patterns, s): Go's strings.Replacer over the pairs. */
export function rtb_strings_replace_n(pats: usize, s: usize): usize {
  if (tag(pats) != T_OBJ || !isStr(s)) return 0;
  for (let j = 0; j < len(pats); j++) if (!isStr(objKey(pats, j)) || !isStr(objVal(pats, j))) return 0;
  return rt_go_replace(pats, s);
}

/** The string's code points as one-code-point strings. */
function explode(s: usize): usize {
  const out = mkArr(len(s));
  const base = strData(s);
  let i = 0;
  while (i < len(s)) {
    let j = i + 1;
    while (j < len(s) && (load<u8>(base + j) & 0xc0) == 0x80) j++;
    arrPush(out, mkStr(base + i, j - i));
    i = j;
  }
  return out;
}

/** Go's strings.Split(s, d) (every part). */
function splitAll(s: usize, d: usize): usize {
  if (len(d) == 0) return explode(s);
  const out = mkArr(4);
  let from = 0;
  let i = findBytes(s, d, 0);
  while (i >= 0) {
    arrPush(out, mkStr(strData(s) + from, i - from));
    from = i + len(d);
    i = findBytes(s, d, from);
  }
  arrPush(out, mkStr(strData(s) + from, len(s) - from));
  return out;
}

/** strings.split_n(s, d, n): at most n parts (the rest in the last); negative n: the last |n| parts. */
export function rtb_strings_split_n(s: usize, d: usize, nv: usize): usize {
  if (!isStr(s) || !isStr(d) || !intOf(nv)) return 0;
  const n = numVal(nv);
  const all = splitAll(s, d);
  const out = mkArr(4);
  if (n < 0) {
    const from = <i32>Math.max(0, <f64>len(all) + n);
    for (let i = from; i < len(all); i++) arrPush(out, item(all, i));
    return out;
  }
  if (n == 0) return out;
  if (<f64>len(all) <= n) return all;
  const k = <i32>n;
  for (let i = 0; i < k - 1; i++) arrPush(out, item(all, i));
  // the rest of s, from the start of part k-1
  let off = 0;
  for (let i = 0; i < k - 1; i++) off += len(item(all, i)) + len(d);
  arrPush(out, mkStr(strData(s) + off, len(s) - off));
  return out;
}

/** strings.reverse: code points in reverse order. */
export function rtb_strings_reverse(s: usize): usize {
  if (!isStr(s)) return 0;
  const parts = explode(s);
  const out = alloc(<usize>len(s));
  let o = 0;
  for (let i = len(parts) - 1; i >= 0; i--) {
    const c = item(parts, i);
    memory.copy(out + o, strData(c), <usize>len(c));
    o += len(c);
  }
  return mkStr(out, o);
}

/** format_int(x, base): x truncated toward zero, in base 2, 8, 10 or 16 (lower-case digits). */
export function rtb_format_int(x: usize, b: usize): usize {
  if (tag(x) != T_NUM || tag(b) != T_NUM) return 0;
  const base = numVal(b);
  if (base != 2 && base != 8 && base != 10 && base != 16) return 0;
  if (!intOf(b)) return 0;
  if (numInexact(x)) { fail('not supported on wasm: big numbers'); return 0; }
  const t = Math.trunc(numVal(x));
  if (Math.abs(t) >= 9007199254740992) { fail('not supported on wasm: format_int beyond 2^53'); return 0; }
  let u = <u64>Math.abs(t);
  const bi = <u64>base;
  const buf = alloc(66);
  let o = 66;
  do {
    const d = <i32>(u % bi);
    store<u8>(buf + --o, <u8>(d < 10 ? 48 + d : 87 + d));
    u /= bi;
  } while (u > 0);
  if (t < 0) store<u8>(buf + --o, 0x2d);
  return mkStr(buf + o, 66 - o);
}
