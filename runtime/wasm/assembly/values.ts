// Regent's Wasm runtime: the heap and the value model in linear memory
// (AssemblyScript, compiled with `--runtime stub`, raw pointers only, no managed
// objects). A value is a pointer to a record whose first i32 is its type tag; 0 is
// Rego's "undefined". Objects and sets are kept sorted by Rego's total order, so
// lookups are binary searches and equal values have equal layouts.
//
//   NULL [tag]            BOOL [tag, b]                NUM [tag, rawLen, f64@8, rawPtr@16, inexact@20]
//   STR  [tag, len, data] ARR  [tag, len, cap, items]  SET [tag, len, cap, items]
//   OBJ  [tag, len, cap, keys, vals]
// NUM keeps the JSON text it was parsed from (rawLen > 0) so it dumps unchanged, and
// marks numbers a double cannot hold exactly (more than 15 significant digits): using
// one where precision matters aborts ("not supported on wasm") instead of answering wrong.

import { bdOf, bdCmp } from './bigdec';

@external('env', 'opa_abort') declare function opa_abort(addr: usize): void;

/** Abort the evaluation with a message (opa_abort throws in the host). */
export function fail(s: string): void {
  const p = alloc(<usize>s.length + 1);
  for (let i = 0; i < s.length; i++) store<u8>(p + i, <u8>s.charCodeAt(i));
  store<u8>(p + s.length, 0);
  opa_abort(p);
}

export const T_NULL: i32 = 1;
export const T_BOOL: i32 = 2;
export const T_NUM: i32 = 3;
export const T_STR: i32 = 4;
export const T_ARR: i32 = 5;
export const T_OBJ: i32 = 6;
export const T_SET: i32 = 7;

// ---------------------------------------------------------------- heap

let heapPtr: usize = 0;

export function heapGet(): usize {
  return heapPtr;
}

export function heapSet(p: usize): void {
  heapPtr = p;
}

export function alloc(n: usize): usize {
  const p = (heapPtr + 7) & ~(<usize>7);
  const end = p + n;
  const have = <usize>memory.size() << 16;
  if (end > have) {
    const pages = <i32>((end - have + 0xffff) >> 16);
    if (memory.grow(pages) < 0) unreachable();
  }
  heapPtr = end;
  return p;
}

// ---------------------------------------------------------------- constructors

export function mkNull(): usize {
  const v = alloc(8);
  store<i32>(v, T_NULL);
  return v;
}

export function mkBool(b: i32): usize {
  const v = alloc(8);
  store<i32>(v, T_BOOL);
  store<i32>(v, b != 0 ? 1 : 0, 4);
  return v;
}

export function mkNum(x: f64): usize {
  const v = alloc(24);
  store<i32>(v, T_NUM);
  store<i32>(v, 0, 4);
  store<f64>(v, x, 8);
  store<i32>(v, 0, 16);
  store<i32>(v, 0, 20);
  return v;
}

export function mkNumRaw(x: f64, raw: usize, rawLen: i32, inexact: i32): usize {
  const v = mkNum(x);
  store<i32>(v, rawLen, 4);
  store<i32>(v, <i32>raw, 16);
  store<i32>(v, inexact, 20);
  return v;
}

export function numInexact(v: usize): bool {
  return load<i32>(v, 20) != 0;
}

function sameRaw(a: usize, b: usize): bool {
  const la = len(a);
  if (la != len(b) || la == 0) return false;
  const pa = <usize>load<i32>(a, 16);
  const pb = <usize>load<i32>(b, 16);
  for (let i = 0; i < la; i++) if (load<u8>(pa + i) != load<u8>(pb + i)) return false;
  return true;
}

/** A string over `len` UTF-8 bytes at `data` (not copied). */
export function mkStr(data: usize, len: i32): usize {
  const v = alloc(12);
  store<i32>(v, T_STR);
  store<i32>(v, len, 4);
  store<i32>(v, <i32>data, 8);
  return v;
}

export function mkArr(cap: i32): usize {
  const v = alloc(16);
  store<i32>(v, T_ARR);
  store<i32>(v, 0, 4);
  const c = cap < 4 ? 4 : cap;
  store<i32>(v, c, 8);
  store<i32>(v, <i32>alloc(<usize>c << 2), 12);
  return v;
}

export function mkSet(): usize {
  const v = mkArr(4);
  store<i32>(v, T_SET);
  return v;
}

export function mkObj(): usize {
  const v = alloc(20);
  store<i32>(v, T_OBJ);
  store<i32>(v, 0, 4);
  store<i32>(v, 4, 8);
  store<i32>(v, <i32>alloc(16), 12);
  store<i32>(v, <i32>alloc(16), 16);
  return v;
}

// ---------------------------------------------------------------- accessors

export function tag(v: usize): i32 {
  return load<i32>(v);
}
export function len(v: usize): i32 {
  return load<i32>(v, 4);
}
export function item(v: usize, i: i32): usize {
  return <usize>load<i32>(<usize>load<i32>(v, 12) + (<usize>i << 2));
}
export function objKey(v: usize, i: i32): usize {
  return <usize>load<i32>(<usize>load<i32>(v, 12) + (<usize>i << 2));
}
export function objVal(v: usize, i: i32): usize {
  return <usize>load<i32>(<usize>load<i32>(v, 16) + (<usize>i << 2));
}
export function numVal(v: usize): f64 {
  return load<f64>(v, 8);
}
export function strData(v: usize): usize {
  return <usize>load<i32>(v, 8);
}

/** Grow the i32 array field at `field` of `v` (cap at offset 8) to hold one more. */
function ensureCap(v: usize, fields: i32): void {
  const n = len(v);
  const cap = load<i32>(v, 8);
  if (n < cap) return;
  const ncap = cap * 2;
  for (let f = 0; f < fields; f++) {
    const old = <usize>load<i32>(v + 12 + (<usize>f << 2));
    const nu = alloc(<usize>ncap << 2);
    memory.copy(nu, old, <usize>n << 2);
    store<i32>(v + 12 + (<usize>f << 2), <i32>nu);
  }
  store<i32>(v, ncap, 8);
}

function insertAt(arr: usize, n: i32, i: i32, x: usize): void {
  const p = arr + (<usize>i << 2);
  memory.copy(p + 4, p, <usize>(n - i) << 2);
  store<i32>(p, <i32>x);
}

export function arrPush(a: usize, x: usize): void {
  ensureCap(a, 1);
  const n = len(a);
  store<i32>(<usize>load<i32>(a, 12) + (<usize>n << 2), <i32>x);
  store<i32>(a, n + 1, 4);
}

/** Index of x in the sorted items of a set/object keys, or -(insertion point) - 1. */
function search(items: usize, n: i32, x: usize): i32 {
  let lo = 0;
  let hi = n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compare(<usize>load<i32>(items + (<usize>mid << 2)), x);
    if (c == 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}

export function setAdd(s: usize, x: usize): void {
  const n = len(s);
  const i = search(<usize>load<i32>(s, 12), n, x);
  if (i >= 0) return;
  ensureCap(s, 1);
  insertAt(<usize>load<i32>(s, 12), n, -i - 1, x);
  store<i32>(s, n + 1, 4);
}

export function setHas(s: usize, x: usize): i32 {
  return search(<usize>load<i32>(s, 12), len(s), x) >= 0 ? 1 : 0;
}

/** Insert or overwrite k → v. */
export function objPut(o: usize, k: usize, v: usize): void {
  const n = len(o);
  const i = search(<usize>load<i32>(o, 12), n, k);
  if (i >= 0) {
    store<i32>(<usize>load<i32>(o, 16) + (<usize>i << 2), <i32>v);
    return;
  }
  ensureCap(o, 2);
  insertAt(<usize>load<i32>(o, 12), n, -i - 1, k);
  insertAt(<usize>load<i32>(o, 16), n, -i - 1, v);
  store<i32>(o, n + 1, 4);
}

export function objGet(o: usize, k: usize): usize {
  const i = search(<usize>load<i32>(o, 12), len(o), k);
  return i >= 0 ? objVal(o, i) : 0;
}

// ---------------------------------------------------------------- ordering

function cmpInt(a: i32, b: i32): i32 {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Rego's total order: null < booleans < numbers < strings < arrays < objects < sets. */
export function compare(a: usize, b: usize): i32 {
  if (a == b) return 0;
  const ta = tag(a);
  const tb = tag(b);
  if (ta != tb) return cmpInt(ta, tb);
  switch (ta) {
    case T_NULL:
      return 0;
    case T_BOOL:
      return cmpInt(len(a), len(b));
    case T_NUM: {
      const x = numVal(a);
      const y = numVal(b);
      if (numInexact(a) || numInexact(b)) {
        // beyond a double's precision or range: compare the exact decimals
        if (sameRaw(a, b)) return 0;
        const A = bdOf(a);
        const B = bdOf(b);
        if (A != 0 && B != 0) return bdCmp(A, B);
        if (!(Math.abs(x - y) > 1e-9 * Math.max(Math.abs(x), Math.abs(y)))) fail('not supported on wasm: comparing numbers beyond float64 precision');
      }
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case T_STR: {
      const la = len(a);
      const lb = len(b);
      const pa = strData(a);
      const pb = strData(b);
      const m = la < lb ? la : lb;
      for (let i = 0; i < m; i++) {
        const ca = load<u8>(pa + i);
        const cb = load<u8>(pb + i);
        if (ca != cb) return ca < cb ? -1 : 1;
      }
      return cmpInt(la, lb);
    }
    case T_OBJ: {
      const la = len(a);
      const lb = len(b);
      const m = la < lb ? la : lb;
      for (let i = 0; i < m; i++) {
        let c = compare(objKey(a, i), objKey(b, i));
        if (c != 0) return c;
        c = compare(objVal(a, i), objVal(b, i));
        if (c != 0) return c;
      }
      return cmpInt(la, lb);
    }
    default: {
      // arrays and sets: element-wise, then by length
      const la = len(a);
      const lb = len(b);
      const m = la < lb ? la : lb;
      for (let i = 0; i < m; i++) {
        const c = compare(item(a, i), item(b, i));
        if (c != 0) return c;
      }
      return cmpInt(la, lb);
    }
  }
}

export function equal(a: usize, b: usize): i32 {
  return compare(a, b) == 0 ? 1 : 0;
}

/** Rego's merge of a rule's value `a` with base data `b` at the same path: base wins. */
export function mergeValues(a: usize, b: usize): usize {
  if (tag(a) != T_OBJ || tag(b) != T_OBJ) return b;
  const o = mkObj();
  for (let i = 0; i < len(a); i++) objPut(o, objKey(a, i), objVal(a, i));
  for (let i = 0; i < len(b); i++) {
    const k = objKey(b, i);
    const old = objGet(o, k);
    objPut(o, k, old != 0 ? mergeValues(old, objVal(b, i)) : objVal(b, i));
  }
  return o;
}

// ---------------------------------------------------------------- helpers for builtins

export function isStr(v: usize): bool { return tag(v) == T_STR; }

/** Code points in `n` UTF-8 bytes at `p`. */
export function runes(p: usize, n: i32): i32 {
  let r = 0;
  for (let i = 0; i < n; i++) if ((load<u8>(p + i) & 0xc0) != 0x80) r++;
  return r;
}

/** An integer a double holds exactly (big numbers and integers beyond 2^53 abort). */
export function intOf(v: usize): bool {
  if (tag(v) != T_NUM) return false;
  if (numInexact(v)) { fail('not supported on wasm: big numbers'); return false; }
  const x = numVal(v);
  if (x != Math.floor(x)) return false;
  // a double holds integers exactly only within ±2^53 (1e26 is not 10^26)
  if (Math.abs(x) >= 9007199254740992) { fail('not supported on wasm: integer operands beyond 2^53'); return false; }
  return true;
}

/** Whether `n` bytes at `a` and `b` are equal. */
export function bytesEq(a: usize, b: usize, n: i32): bool {
  for (let i = 0; i < n; i++) if (load<u8>(a + i) != load<u8>(b + i)) return false;
  return true;
}

/** Byte offset of string `needle` in string `hay` from byte `from`, or -1. */
export function findBytes(hay: usize, needle: usize, from: i32): i32 {
  const lh = len(hay);
  const ln = len(needle);
  for (let i = from; i + ln <= lh; i++) if (bytesEq(strData(hay) + i, strData(needle), ln)) return i;
  return -1;
}
