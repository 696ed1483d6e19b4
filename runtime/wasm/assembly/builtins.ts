// Regent's Wasm runtime: builtins implemented natively (as OPA's Wasm does), so that
// a module using only these runs in any OPA SDK without custom builtins. Each returns
// a value or 0 (undefined: wrong operand types, as builtin errors are in non-strict
// mode). Strings are UTF-8; positions count code points, as OPA's do. Exported as
// `rtb_<name>`; compiler/codegen/wasm/body.ts maps builtin names to them.
import {
  T_NULL, T_BOOL, T_NUM, T_STR, T_ARR, T_OBJ, T_SET,
  alloc, mkBool, mkNum, mkStr, mkArr, mkSet, mkObj, arrPush, setAdd, objPut, objGet,
  tag, len, item, objKey, objVal, numVal, strData, compare, numInexact, fail, isStr, intOf, runes,
  bytesEq, findBytes,
} from './values';
import { arithNum } from './arith';


function isColl(v: usize): bool { const t = tag(v); return t == T_ARR || t == T_SET; }

// ---------------------------------------------------------------- types

export function rtb_is_null(v: usize): usize { return mkBool(tag(v) == T_NULL ? 1 : 0); }
export function rtb_is_boolean(v: usize): usize { return mkBool(tag(v) == T_BOOL ? 1 : 0); }
export function rtb_is_number(v: usize): usize { return mkBool(tag(v) == T_NUM ? 1 : 0); }
export function rtb_is_string(v: usize): usize { return mkBool(tag(v) == T_STR ? 1 : 0); }
export function rtb_is_array(v: usize): usize { return mkBool(tag(v) == T_ARR ? 1 : 0); }
export function rtb_is_object(v: usize): usize { return mkBool(tag(v) == T_OBJ ? 1 : 0); }
export function rtb_is_set(v: usize): usize { return mkBool(tag(v) == T_SET ? 1 : 0); }

function lit(s: string): usize {
  const p = alloc(<usize>s.length);
  for (let i = 0; i < s.length; i++) store<u8>(p + i, <u8>s.charCodeAt(i));
  return mkStr(p, s.length);
}

export function rtb_type_name(v: usize): usize {
  switch (tag(v)) {
    case T_NULL: return lit('null');
    case T_BOOL: return lit('boolean');
    case T_NUM: return lit('number');
    case T_STR: return lit('string');
    case T_ARR: return lit('array');
    case T_OBJ: return lit('object');
    default: return lit('set');
  }
}

// ---------------------------------------------------------------- strings


export function rtb_startswith(s: usize, p: usize): usize {
  if (!isStr(s) || !isStr(p)) return 0;
  return mkBool(len(p) <= len(s) && bytesEq(strData(s), strData(p), len(p)) ? 1 : 0);
}

export function rtb_endswith(s: usize, p: usize): usize {
  if (!isStr(s) || !isStr(p)) return 0;
  return mkBool(len(p) <= len(s) && bytesEq(strData(s) + len(s) - len(p), strData(p), len(p)) ? 1 : 0);
}

export function rtb_contains(s: usize, p: usize): usize {
  if (!isStr(s) || !isStr(p)) return 0;
  return mkBool(findBytes(s, p, 0) >= 0 ? 1 : 0);
}

/** indexof: the code-point index of the first match, or -1. */
export function rtb_indexof(s: usize, p: usize): usize {
  if (!isStr(s) || !isStr(p)) return 0;
  const i = findBytes(s, p, 0);
  return mkNum(<f64>(i < 0 ? -1 : runes(strData(s), i)));
}

export function rtb_trim_prefix(s: usize, p: usize): usize {
  if (!isStr(s) || !isStr(p)) return 0;
  if (len(p) > len(s) || !bytesEq(strData(s), strData(p), len(p))) return s;
  return mkStr(strData(s) + len(p), len(s) - len(p));
}

export function rtb_trim_suffix(s: usize, p: usize): usize {
  if (!isStr(s) || !isStr(p)) return 0;
  if (len(p) > len(s) || !bytesEq(strData(s) + len(s) - len(p), strData(p), len(p))) return s;
  return mkStr(strData(s), len(s) - len(p));
}

/** concat(delimiter, array or set of strings). */
export function rtb_concat(d: usize, c: usize): usize {
  if (!isStr(d) || !isColl(c)) return 0;
  let n = 0;
  for (let i = 0; i < len(c); i++) {
    if (!isStr(item(c, i))) return 0;
    n += len(item(c, i)) + (i > 0 ? len(d) : 0);
  }
  const p = alloc(<usize>n);
  let o = p;
  for (let i = 0; i < len(c); i++) {
    if (i > 0) { memory.copy(o, strData(d), <usize>len(d)); o += len(d); }
    const x = item(c, i);
    memory.copy(o, strData(x), <usize>len(x));
    o += len(x);
  }
  return mkStr(p, n);
}

/** split(s, delimiter); an empty delimiter splits into code points. */
export function rtb_split(s: usize, d: usize): usize {
  if (!isStr(s) || !isStr(d)) return 0;
  const out = mkArr(4);
  const base = strData(s);
  if (len(d) == 0) {
    let i = 0;
    while (i < len(s)) {
      let j = i + 1;
      while (j < len(s) && (load<u8>(base + j) & 0xc0) == 0x80) j++;
      arrPush(out, mkStr(base + i, j - i));
      i = j;
    }
    return out;
  }
  let from = 0;
  while (true) {
    const i = findBytes(s, d, from);
    if (i < 0) break;
    arrPush(out, mkStr(base + from, i - from));
    from = i + len(d);
  }
  arrPush(out, mkStr(base + from, len(s) - from));
  return out;
}

/** lower/upper: ASCII letters; other text is left to the host (answer 1) rather than mis-cased. */
function caseMap(s: usize, upper: bool): usize {
  if (!isStr(s)) return 0;
  const n = len(s);
  const p = alloc(<usize>n);
  for (let i = 0; i < n; i++) {
    let c = load<u8>(strData(s) + i);
    if (c >= 0x80) return 1; // non-ASCII: left to the host (HOST_FALLBACK in compiler/codegen/wasm/exprs.ts)
    if (upper && c >= 97 && c <= 122) c -= 32;
    else if (!upper && c >= 65 && c <= 90) c += 32;
    store<u8>(p + i, c);
  }
  return mkStr(p, n);
}
export function rtb_lower(s: usize): usize { return caseMap(s, false); }
export function rtb_upper(s: usize): usize { return caseMap(s, true); }

// ---------------------------------------------------------------- numbers and aggregates


export function rtb_abs(v: usize): usize {
  if (tag(v) != T_NUM) return 0;
  if (numVal(v) >= 0) return v;
  return arithNum(1, mkNum(0), v);
}

/** sum/product by op 0/1, exactly as the JS runtime adds and multiplies (bigdec.ts). */
function aggregate(c: usize, op: i32): usize {
  if (!isColl(c)) return 0;
  let acc = mkNum(op == 0 ? 0 : 1);
  for (let i = 0; i < len(c); i++) {
    const x = item(c, i);
    if (tag(x) != T_NUM) return 0;
    acc = arithNum(op == 0 ? 0 : 2, acc, x);
  }
  return acc;
}
export function rtb_sum(c: usize): usize { return aggregate(c, 0); }
export function rtb_product(c: usize): usize { return aggregate(c, 1); }

function extreme(c: usize, sign: i32): usize {
  if (!isColl(c) || len(c) == 0) return 0;
  let best = item(c, 0);
  for (let i = 1; i < len(c); i++) if (compare(item(c, i), best) * sign > 0) best = item(c, i);
  return best;
}
export function rtb_max(c: usize): usize { return extreme(c, 1); }
export function rtb_min(c: usize): usize { return extreme(c, -1); }

/** sort: arrays and sets → a sorted array (insertion into a set keeps duplicates apart). */
export function rtb_sort(c: usize): usize {
  if (!isColl(c)) return 0;
  const out = mkArr(len(c));
  for (let i = 0; i < len(c); i++) arrPush(out, item(c, i));
  const p = <usize>load<i32>(out, 12);
  for (let i = 1; i < len(out); i++) {
    const x = <usize>load<i32>(p + (<usize>i << 2));
    let j = i - 1;
    while (j >= 0 && compare(<usize>load<i32>(p + (<usize>j << 2)), x) > 0) {
      store<i32>(p + (<usize>(j + 1) << 2), load<i32>(p + (<usize>j << 2)));
      j--;
    }
    store<i32>(p + (<usize>(j + 1) << 2), <i32>x);
  }
  return out;
}

// ---------------------------------------------------------------- collections

export function rtb_array_concat(a: usize, b: usize): usize {
  if (tag(a) != T_ARR || tag(b) != T_ARR) return 0;
  const out = mkArr(len(a) + len(b));
  for (let i = 0; i < len(a); i++) arrPush(out, item(a, i));
  for (let i = 0; i < len(b); i++) arrPush(out, item(b, i));
  return out;
}

/** union(set of sets) and intersection(set of sets). */
export function rtb_union(s: usize): usize {
  if (tag(s) != T_SET) return 0;
  const out = mkSet();
  for (let i = 0; i < len(s); i++) {
    const x = item(s, i);
    if (tag(x) != T_SET) return 0;
    for (let j = 0; j < len(x); j++) setAdd(out, item(x, j));
  }
  return out;
}

/** object.get(object, key, default) with a single (non-array) key. */
export function rtb_object_get(o: usize, k: usize, d: usize): usize {
  if (tag(o) != T_OBJ) return 0;
  if (tag(k) == T_ARR) {
    let v = o;
    for (let i = 0; i < len(k); i++) {
      if (tag(v) != T_OBJ) return d;
      v = objGet(v, item(k, i));
      if (v == 0) return d;
    }
    return v;
  }
  const v = objGet(o, k);
  return v != 0 ? v : d;
}

/** object.union(a, b): b wins, nested objects merged. */
export function rtb_object_union(a: usize, b: usize): usize {
  if (tag(a) != T_OBJ || tag(b) != T_OBJ) return 0;
  const out = mkObj();
  for (let i = 0; i < len(a); i++) objPut(out, objKey(a, i), objVal(a, i));
  for (let i = 0; i < len(b); i++) {
    const k = objKey(b, i);
    const old = objGet(out, k);
    const v = objVal(b, i);
    objPut(out, k, old != 0 && tag(old) == T_OBJ && tag(v) == T_OBJ ? rtb_object_union(old, v) : v);
  }
  return out;
}
