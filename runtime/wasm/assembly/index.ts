// Regent's Wasm runtime: OPA's Wasm ABI (version 1.3) over the value model and JSON
// code in values.ts/json.ts, plus the natively implemented builtins (`rt_*`) that
// compiled policy code calls. Compiled once by AssemblyScript at build time
// (runtime/wasm/build.mjs); compiler/codegen/wasm/ reads the binary with binaryen,
// replaces the `regent.*` imports below with generated policy functions and adds the
// policy's own code, so one module comes out.
import {
  T_NUM, T_STR, T_ARR, T_OBJ, T_SET,
  alloc, heapGet, heapSet, mkNull, mkBool, mkNum, mkStr, mkArr, mkObj, mkSet, arrPush, setAdd, setHas,
  objPut, objGet, tag, len, item, objKey, objVal, numVal, strData, compare, equal, fail, numInexact, mkNumRaw, mergeValues,
} from './values';
import { parseJSON, textToF64, inexactText } from './json';
export * from './builtins';
export * from './builtins-ext';
export * from './natives-strings';
export * from './natives-collections';
export * from './natives-numbers';
export * from './natives-glob';
export * from './natives-semver';
export * from './natives-net';
export * from './natives-encoding';
export * from './natives-uuid';
export { rt_steps, rt_steps_out } from './limits';
export * from './memo';
import { stepsReset } from './limits';
import { dumpJSON, dumpValueText, termText } from './dump';
import { arithNum } from './arith';

// ---------------------------------------------------------------- imports

@external('env', 'opa_abort') declare function opa_abort(addr: usize): void;
@external('env', 'opa_println') declare function opa_println(addr: usize): void;
@external('env', 'opa_builtin0') declare function opa_builtin0(id: i32, ctx: i32): usize;
@external('env', 'opa_builtin1') declare function opa_builtin1(id: i32, ctx: i32, a: usize): usize;
@external('env', 'opa_builtin2') declare function opa_builtin2(id: i32, ctx: i32, a: usize, b: usize): usize;
@external('env', 'opa_builtin3') declare function opa_builtin3(id: i32, ctx: i32, a: usize, b: usize, c: usize): usize;
@external('env', 'opa_builtin4') declare function opa_builtin4(id: i32, ctx: i32, a: usize, b: usize, c: usize, d: usize): usize;
// Supplied by the policy code (replaced at link time).
@external('regent', 'init') declare function regent_init(): void;
@external('regent', 'eval_entry') declare function regent_eval_entry(ep: i32): usize;
@external('regent', 'builtins') declare function regent_builtins(): usize;
@external('regent', 'entrypoints') declare function regent_entrypoints(): usize;

// ---------------------------------------------------------------- start
heapSet((__heap_base + 15) & ~(<usize>15));
regent_init();

let evalInput: usize = 0;
let evalData: usize = 0;
let evalGen: i32 = 0;
let genCounter: i32 = 0;

export const opa_wasm_abi_version: i32 = 1;
export const opa_wasm_abi_minor_version: i32 = 3;

/** Rego value text (sets, non-string keys) → value, as opa_value_parse. */
export function rt_value_text(p: usize, n: usize): usize { return parseJSON(p, n); }

function cstr(s: string): usize {
  const p = alloc(<usize>s.length + 1);
  for (let i = 0; i < s.length; i++) store<u8>(p + i, <u8>s.charCodeAt(i));
  store<u8>(p + s.length, 0);
  return p;
}

// ---------------------------------------------------------------- ABI: heap and values

export function opa_malloc(n: usize): usize { return alloc(n); }
export function opa_free(p: usize): void {}
export function opa_value_free(p: usize): void {}
// ABI 1.3 heap stash: a bump allocator has no free blocks to stash, so these are no-ops
// (an evaluation only ever allocates above the heap pointer the host resets).
export function opa_heap_blocks_stash(): void {}
export function opa_heap_blocks_restore(): void {}
export function opa_heap_stash_clear(): void {}
export function opa_heap_ptr_get(): usize { return heapGet(); }
export function opa_heap_ptr_set(p: usize): void { heapSet(p); }
export function opa_json_parse(p: usize, n: usize): usize { return parseJSON(p, n); }
export function opa_value_parse(p: usize, n: usize): usize { return parseJSON(p, n); }
export function opa_json_dump(v: usize): usize { return dumpJSON(v); }
export function opa_value_dump(v: usize): usize { return dumpValueText(v); }
export function builtins(): usize { return regent_builtins(); }
export function entrypoints(): usize { return regent_entrypoints(); }

/** Set `value` at `path` (an array of strings) under the object `base`; 0 = ok. */
export function opa_value_add_path(base: usize, path: usize, value: usize): i32 {
  if (base == 0 || tag(base) != T_OBJ || path == 0 || tag(path) != T_ARR || len(path) == 0) return 2;
  let o = base;
  const n = len(path);
  for (let i = 0; i < n - 1; i++) {
    const k = item(path, i);
    let next = objGet(o, k);
    if (next == 0) { next = mkObj(); objPut(o, k, next); }
    if (tag(next) != T_OBJ) return 2;
    o = next;
  }
  objPut(o, item(path, n - 1), value);
  return 0;
}

/** Remove the value at `path` under `base` (absent paths are fine); 0 = ok. */
export function opa_value_remove_path(base: usize, path: usize): i32 {
  if (base == 0 || tag(base) != T_OBJ || path == 0 || tag(path) != T_ARR || len(path) == 0) return 2;
  let o = base;
  const n = len(path);
  for (let i = 0; i < n - 1; i++) {
    o = objGet(o, item(path, i));
    if (o == 0 || tag(o) != T_OBJ) return 0;
  }
  // rebuild without the key (objects are small sorted arrays)
  const last = item(path, n - 1);
  const copy = mkObj();
  for (let i = 0; i < len(o); i++) if (!equal(objKey(o, i), last)) objPut(copy, objKey(o, i), objVal(o, i));
  memory.copy(o, copy, 20);
  return 0;
}

// ---------------------------------------------------------------- ABI: evaluation

export function opa_eval_ctx_new(): usize {
  const c = alloc(16);
  memory.fill(c, 0, 16);
  return c;
}
export function opa_eval_ctx_set_input(c: usize, v: usize): void { store<i32>(c, <i32>v); }
export function opa_eval_ctx_set_data(c: usize, v: usize): void { store<i32>(c, <i32>v, 4); }
export function opa_eval_ctx_set_entrypoint(c: usize, ep: i32): void { store<i32>(c, ep, 12); }
export function opa_eval_ctx_get_result(c: usize): usize { return <usize>load<i32>(c, 8); }

function resultSet(v: usize): usize {
  const rs = mkSet();
  if (v != 0) {
    const o = mkObj();
    objPut(o, mkStr(cstr('result'), 6), v);
    setAdd(rs, o);
  }
  return rs;
}

function run(ep: i32, input: usize, data: usize): usize {
  evalInput = input;
  evalData = data == 0 ? mkObj() : data;
  evalGen = ++genCounter;
  return resultSet(regent_eval_entry(ep));
}

export function eval(c: usize): i32 {
  stepsReset(false);
  store<i32>(c, <i32>run(load<i32>(c, 12), <usize>load<i32>(c), <usize>load<i32>(c, 4)), 8);
  return 0;
}

/**
 * ABI 1.2 fast path: input as JSON text at `inputPtr`, the result set as JSON text.
 * `reserved` is 0 in OPA's SDKs; Regent's host passes 1 to check its deadline (limits.ts).
 */
export function opa_eval(reserved: i32, ep: i32, data: usize, inputPtr: usize, inputLen: usize, heap: usize, format: i32): usize {
  heapSet(heap);
  stepsReset((reserved & 1) != 0);
  let input: usize = 0;
  if (inputLen > 0) {
    input = parseJSON(inputPtr, inputLen);
    if (input == 0) opa_abort(cstr('regent: input is not valid JSON'));
  }
  return dumpJSON(run(ep, input, data));
}

// ---------------------------------------------------------------- for policy code

export function rt_input(): usize { return evalInput; }
export function rt_data(): usize { return evalData; }
export function rt_gen(): i32 { return evalGen; }
/** A fresh memoization generation (for `with`): rule values computed under it are not reused outside. */
export function rt_gen_new(): i32 { return ++genCounter; }
/** Switch input, data and generation (entering or leaving a `with`). */
export function rt_with_set(input: usize, data: usize, gen: i32): void {
  evalInput = input;
  evalData = data;
  evalGen = gen;
}
/** A copy of `base` (an object, else {}) with `v` at `path` (an array of strings); copies along the path only. */
export function rt_set_path(base: usize, path: usize, v: usize): usize {
  return setPathFrom(base, path, 0, v);
}
function setPathFrom(base: usize, path: usize, i: i32, v: usize): usize {
  if (i >= len(path)) return v;
  const o = mkObj();
  if (base != 0 && tag(base) == T_OBJ) for (let j = 0; j < len(base); j++) objPut(o, objKey(base, j), objVal(base, j));
  const k = item(path, i);
  objPut(o, k, setPathFrom(objGet(o, k), path, i + 1, v));
  return o;
}
export function rt_conflict(): void { opa_abort(cstr('regent: complete rules must not produce multiple outputs')); }
export function rt_unsupported(): void { opa_abort(cstr('regent: not supported on wasm')); }
export function rt_null(): usize { return mkNull(); }
export function rt_bool(b: i32): usize { return mkBool(b); }
export function rt_num(x: f64): usize { return mkNum(x); }
export function rt_str(p: usize, n: i32): usize { return mkStr(p, n); }
export function rt_arr(): usize { return mkArr(4); }
export function rt_arr_push(a: usize, v: usize): usize { arrPush(a, v); return a; }
export function rt_set(): usize { return mkSet(); }
export function rt_set_add(s: usize, v: usize): usize { setAdd(s, v); return s; }
export function rt_obj(): usize { return mkObj(); }
export function rt_obj_put(o: usize, k: usize, v: usize): usize { objPut(o, k, v); return o; }
/** Put k → v unless k holds a different value: then 0 (a conflict). */
export function rt_obj_put_once(o: usize, k: usize, v: usize): i32 {
  const old = objGet(o, k);
  if (old != 0) return equal(old, v);
  objPut(o, k, v);
  return 1;
}
/**
 * One solution of a general ref-head rule: nested objects along `keys` (an array), then
 * the value at the last key, or a member of the set there (`leafSet`, multi-level
 * `contains`). 0 when a key holds something else (a conflict).
 */
export function rt_obj_put_path(o: usize, keys: usize, v: usize, leafSet: i32): i32 {
  let obj = o;
  const n = len(keys);
  for (let i = 0; i < n - 1; i++) {
    const k = item(keys, i);
    let next = objGet(obj, k);
    if (next == 0) {
      next = mkObj();
      objPut(obj, k, next);
    } else if (tag(next) != T_OBJ) return 0;
    obj = next;
  }
  const last = item(keys, n - 1);
  if (leafSet != 0) {
    let s = objGet(obj, last);
    if (s == 0) {
      s = mkSet();
      objPut(obj, last, s);
    }
    if (tag(s) == T_SET) setAdd(s, v);
    return 1;
  }
  return rt_obj_put_once(obj, last, v);
}
/** Put every entry of `src` (when an object) into `dst`. */
export function rt_obj_merge(dst: usize, src: usize): void {
  if (src == 0 || tag(src) != T_OBJ) return;
  for (let i = 0; i < len(src); i++) rt_put_child(dst, objKey(src, i), objVal(src, i));
}
export function rt_equal(a: usize, b: usize): i32 { return equal(a, b); }
/**
 * Rule index lookup (compiler/codegen/wasm/rules.ts): `table` is an object constant
 * mapping each indexed constant to its entry number; the entry `key` selects, else -1.
 * A binary search in Rego's order, so keys match exactly when `rt_equal` would.
 */
export function rt_index_find(table: usize, key: usize): i32 {
  if (key == 0) return -1;
  const v = objGet(table, key);
  return v == 0 ? -1 : <i32>numVal(v);
}
export function rt_is_false(v: usize): i32 { return v == 0 || (tag(v) == 2 && len(v) == 0) ? 1 : 0; }
export function rt_is_obj(v: usize): i32 { return tag(v) == T_OBJ ? 1 : 0; }
export function rt_len(v: usize): i32 { return len(v); }
export function rt_tag(v: usize): i32 { return tag(v); }

/** `v[k]`: objects by key, arrays by integer index, sets by membership. */
export function rt_dot(v: usize, k: usize): usize {
  if (v == 0 || k == 0) return 0;
  const t = tag(v);
  if (t == T_OBJ) return objGet(v, k);
  if (t == T_ARR) {
    if (tag(k) != T_NUM) return 0;
    const x = numVal(k);
    const i = <i32>x;
    return <f64>i == x && i >= 0 && i < len(v) ? item(v, i) : 0;
  }
  if (t == T_SET) return setHas(v, k) ? k : 0;
  return 0;
}

/** Scans: the i-th key and value of an array (index, item), object, or set (member twice). */
export function rt_iter_key(v: usize, i: i32): usize {
  const t = tag(v);
  if (t == T_ARR) return mkNum(<f64>i);
  return t == T_OBJ ? objKey(v, i) : item(v, i);
}
export function rt_iter_val(v: usize, i: i32): usize {
  return tag(v) == T_OBJ ? objVal(v, i) : item(v, i);
}
/** How many members a scan visits (0 for scalars). */
export function rt_scan_len(v: usize): i32 {
  const t = tag(v);
  return t == T_ARR || t == T_OBJ || t == T_SET ? len(v) : 0;
}

// ---------------------------------------------------------------- native builtins

/** equal, neq, lt, lte, gt, gte by op 0..5. */
export function rt_cmp(op: i32, a: usize, b: usize): usize {
  const c = compare(a, b);
  let r = false;
  if (op == 0) r = c == 0;
  else if (op == 1) r = c != 0;
  else if (op == 2) r = c < 0;
  else if (op == 3) r = c <= 0;
  else if (op == 4) r = c > 0;
  else r = c >= 0;
  return mkBool(r ? 1 : 0);
}

/** Set difference (minus), union (or, op 5) and intersection (and, op 6). */
function setOp(op: i32, a: usize, b: usize): usize {
  const s = mkSet();
  if (op == 5) {
    for (let i = 0; i < len(a); i++) setAdd(s, item(a, i));
    for (let i = 0; i < len(b); i++) setAdd(s, item(b, i));
    return s;
  }
  for (let i = 0; i < len(a); i++) {
    const x = item(a, i);
    if ((setHas(b, x) != 0) == (op == 6)) setAdd(s, x);
  }
  return s;
}

/**
 * plus, minus, mul, div, rem by op 0..4 (5 = or, 6 = and on sets), with the JS
 * runtime's semantics (bigdec.ts, arithNum): integers within ±2^53 on doubles,
 * everything else on exact decimals, rounded to the nearest double where the JS
 * runtime keeps a double. Undefined on wrong types or division by zero.
 */
export function rt_arith(op: i32, a: usize, b: usize): usize {
  if (tag(a) == T_SET && tag(b) == T_SET && (op == 1 || op >= 5)) return setOp(op, a, b);
  if (op >= 5 || tag(a) != T_NUM || tag(b) != T_NUM) return 0;
  return arithNum(op, a, b);
}

/** A number constant with its exact text (from the compiler). */
export function rt_num_raw(p: usize, n: i32): usize { return mkNumRaw(textToF64(p, n), p, n, inexactText(p, n) ? 1 : 0); }

/** A lookup in base data: a number key also finds the object key of its text (`data[2]`). */
export function rt_dot_base(v: usize, k: usize): usize {
  if (v != 0 && k != 0 && tag(v) == T_OBJ && tag(k) == T_NUM) {
    const t = dumpJSON(k);
    let n = 0;
    while (load<u8>(t + n) != 0) n++;
    return objGet(v, mkStr(t, n));
  }
  return rt_dot(v, k);
}

/** Put a child document under `key` of `doc`: base data already there wins (merged). */
export function rt_put_child(doc: usize, key: usize, v: usize): void {
  const base = objGet(doc, key);
  objPut(doc, key, base != 0 ? mergeValues(v, base) : v);
}

export function rt_count(v: usize): usize {
  const t = tag(v);
  if (t == T_ARR || t == T_OBJ || t == T_SET) return mkNum(<f64>len(v));
  if (t != T_STR) return 0;
  let n = 0;
  const p = strData(v);
  for (let i = 0; i < len(v); i++) if ((load<u8>(p + i) & 0xc0) != 0x80) n++;
  return mkNum(<f64>n);
}

/** `x in coll` (internal.member_2). */
export function rt_member2(x: usize, c: usize): usize {
  const t = tag(c);
  if (t == T_SET) return mkBool(setHas(c, x));
  if (t == T_ARR) { for (let i = 0; i < len(c); i++) if (equal(item(c, i), x)) return mkBool(1); }
  else if (t == T_OBJ) { for (let i = 0; i < len(c); i++) if (equal(objVal(c, i), x)) return mkBool(1); }
  return mkBool(0);
}

/** `k, x in coll` (internal.member_3). */
export function rt_member3(k: usize, x: usize, c: usize): usize {
  const v = rt_dot(c, k);
  return mkBool(v != 0 && tag(c) != T_SET && equal(v, x) ? 1 : 0);
}

/** One part of a template string: strings as they are, other values as terms, undefined as <undefined>. */
export function rt_template_part(v: usize): usize {
  if (v == 0) return mkStr(cstr('<undefined>'), 11);
  return tag(v) == T_STR ? v : termText(v);
}

export function rt_str_concat(a: usize, b: usize): usize {
  const la = len(a);
  const lb = len(b);
  const p = alloc(<usize>(la + lb));
  memory.copy(p, strData(a), <usize>la);
  memory.copy(p + la, strData(b), <usize>lb);
  return mkStr(p, la + lb);
}

export function rt_builtin0(id: i32): usize { return opa_builtin0(id, 0); }
export function rt_builtin1(id: i32, a: usize): usize { return opa_builtin1(id, 0, a); }
export function rt_builtin2(id: i32, a: usize, b: usize): usize { return opa_builtin2(id, 0, a, b); }
export function rt_builtin3(id: i32, a: usize, b: usize, c: usize): usize { return opa_builtin3(id, 0, a, b, c); }
export function rt_builtin4(id: i32, a: usize, b: usize, c: usize, d: usize): usize { return opa_builtin4(id, 0, a, b, c, d); }
export function rt_println(v: usize): void { opa_println(dumpJSON(v)); }
export function rt_num_text(p: usize, n: usize): f64 { return textToF64(p, n); }
