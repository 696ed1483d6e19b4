// Regent's Wasm runtime: native collection builtins beyond builtins.ts and
// builtins-ext.ts: object.subset, object.union_n, array.flatten/reverse,
// numbers.range_step, json.filter/remove (OPA's path trees) and graph.reachable(_paths).
// Same conventions as builtins.ts (0 = undefined where the JS builtin raises an error).
import {
  T_NULL, T_ARR, T_SET, T_OBJ, T_STR,
  alloc, mkNull, mkBool, mkNum, mkStr, mkArr, mkSet, mkObj, arrPush, setAdd, setHas, objPut, objGet,
  tag, len, item, objKey, objVal, numVal, fail, intOf, compare,
} from './values';
import { rtb_object_union } from './builtins';

function isColl(v: usize): bool { const t = tag(v); return t == T_ARR || t == T_SET; }

// ---------------------------------------------------------------- object.subset

function arraySubset(sup: usize, sub: usize): bool {
  const n = len(sub);
  if (n > len(sup)) return false;
  if (n == 0) return true;
  for (let s = 0; s + n <= len(sup); s++) {
    let all = true;
    for (let j = 0; j < n && all; j++) all = compare(item(sup, s + j), item(sub, j)) == 0;
    if (all) return true;
  }
  return false;
}

function setSubset(sup: usize, sub: usize): bool {
  for (let i = 0; i < len(sub); i++) if (setHas(sup, item(sub, i)) == 0) return false;
  return true;
}

function objectSubset(sup: usize, sub: usize): bool {
  for (let i = 0; i < len(sub); i++) {
    const a = objGet(sup, objKey(sub, i));
    const b = objVal(sub, i);
    if (a == 0) return false;
    if (compare(a, b) == 0) continue;
    const ta = tag(a);
    if (ta != tag(b)) return false;
    if (ta == T_OBJ) { if (!objectSubset(a, b)) return false; }
    else if (ta == T_SET) { if (!setSubset(a, b)) return false; }
    else if (ta == T_ARR) { if (!arraySubset(a, b)) return false; }
    else return false;
  }
  return true;
}

/** object.subset(super, sub): objects recursively, sets, contiguous arrays, or array ⊇ set. */
export function rtb_object_subset(sup: usize, sub: usize): usize {
  const ta = tag(sup);
  const tb = tag(sub);
  if (ta == T_OBJ && tb == T_OBJ) return mkBool(objectSubset(sup, sub) ? 1 : 0);
  if (ta == T_SET && tb == T_SET) return mkBool(setSubset(sup, sub) ? 1 : 0);
  if (ta == T_ARR && tb == T_ARR) return mkBool(arraySubset(sup, sub) ? 1 : 0);
  if (ta == T_ARR && tb == T_SET) {
    // OPA counts matching members of the array: duplicates count more than once
    let unmatched = len(sub);
    for (let i = 0; i < len(sup); i++) {
      if (setHas(sub, item(sup, i)) != 0) unmatched--;
      if (unmatched <= 0) return mkBool(1);
    }
    return mkBool(0);
  }
  return 0;
}

/** object.union_n(array of objects): left to right, later wins, nested objects merged. */
export function rtb_object_union_n(a: usize): usize {
  if (tag(a) != T_ARR) return 0;
  let out = mkObj();
  for (let i = 0; i < len(a); i++) {
    if (tag(item(a, i)) != T_OBJ) return 0;
    out = rtb_object_union(out, item(a, i));
  }
  return out;
}

// ---------------------------------------------------------------- arrays and numbers

/** array.flatten: one level (members that are arrays are spliced in, deeper ones kept). */
export function rtb_array_flatten(a: usize): usize {
  if (tag(a) != T_ARR) return 0;
  const out = mkArr(len(a));
  for (let i = 0; i < len(a); i++) {
    const x = item(a, i);
    if (tag(x) == T_ARR) for (let j = 0; j < len(x); j++) arrPush(out, item(x, j));
    else arrPush(out, x);
  }
  return out;
}

export function rtb_array_reverse(a: usize): usize {
  if (tag(a) != T_ARR) return 0;
  const out = mkArr(len(a));
  for (let i = len(a) - 1; i >= 0; i--) arrPush(out, item(a, i));
  return out;
}

/** numbers.range_step(a, b, step): from a towards b by a positive integer step. */
export function rtb_numbers_range_step(a: usize, b: usize, s: usize): usize {
  if (!intOf(a) || !intOf(b) || !intOf(s)) return 0;
  const x = numVal(a);
  const y = numVal(b);
  const step = numVal(s);
  if (step <= 0) return 0;
  if (Math.abs(y - x) / step > 10000000) { fail('not supported on wasm: numbers.range_step over 10^7 members'); return 0; }
  const out = mkArr(<i32>(Math.abs(y - x) / step) + 1);
  if (x <= y) for (let i = x; i <= y; i += step) arrPush(out, mkNum(i));
  else for (let i = x; i >= y; i -= step) arrPush(out, mkNum(i));
  return out;
}

// ---------------------------------------------------------------- json.filter / json.remove

/** One path: a `/`-separated string (JSON-pointer escapes ~1, ~0; leading slashes dropped) or an array. */
function parsePath(p: usize): usize {
  if (tag(p) == T_ARR) return p;
  if (tag(p) != T_STR) return 0;
  const out = mkArr(4);
  const n = len(p);
  if (n == 0) return out;
  const d = <usize>load<i32>(p, 8);
  let i = 0;
  while (i < n && load<u8>(d + i) == 0x2f) i++;
  let seg = alloc(<usize>n);
  let o = 0;
  for (; i <= n; i++) {
    if (i == n || load<u8>(d + i) == 0x2f) {
      arrPush(out, mkStr(seg, o));
      seg = alloc(<usize>n);
      o = 0;
      continue;
    }
    const c = load<u8>(d + i);
    if (c == 0x7e && i + 1 < n && (load<u8>(d + i + 1) == 0x31 || load<u8>(d + i + 1) == 0x30)) {
      store<u8>(seg + o++, load<u8>(d + i + 1) == 0x31 ? 0x2f : 0x7e);
      i++;
    } else store<u8>(seg + o++, c);
  }
  return out;
}

/** OPA's filter tree: nested objects keyed by segment, leaves null; a shorter path wins. */
function pathTree(paths: usize): usize {
  if (!isColl(paths)) return 0;
  const root = mkObj();
  for (let i = 0; i < len(paths); i++) {
    const path = parsePath(item(paths, i));
    if (path == 0) return 0;
    const n = len(path);
    if (n == 0) continue;
    let node = root;
    let done = false;
    for (let j = 0; j < n - 1 && !done; j++) {
      const k = item(path, j);
      const child = objGet(node, k);
      if (child == 0) {
        const o = mkObj();
        objPut(node, k, o);
        node = o;
      } else if (tag(child) == T_NULL) done = true;
      else node = child;
    }
    if (!done) objPut(node, item(path, n - 1), mkNull());
  }
  return root;
}

/** The key under which array index i is found in a filter tree (its decimal text). */
function indexKey(i: i32): usize {
  const buf = alloc(12);
  let o = 12;
  let u = i;
  do { store<u8>(buf + --o, <u8>(48 + u % 10)); u /= 10; } while (u > 0);
  return mkStr(buf + o, 12 - o);
}

function filterValue(v: usize, f: usize): usize {
  if (tag(f) == T_NULL) return v;
  const t = tag(v);
  if (t == T_ARR) {
    const out = mkArr(4);
    for (let i = 0; i < len(v); i++) {
      const sub = objGet(f, indexKey(i));
      if (sub != 0) arrPush(out, filterValue(item(v, i), sub));
    }
    return out;
  }
  if (t == T_SET) {
    const out = mkSet();
    for (let i = 0; i < len(v); i++) {
      const sub = objGet(f, item(v, i));
      if (sub != 0) setAdd(out, filterValue(item(v, i), sub));
    }
    return out;
  }
  if (t == T_OBJ) {
    const out = mkObj();
    for (let i = 0; i < len(v); i++) {
      const sub = objGet(f, objKey(v, i));
      if (sub != 0) objPut(out, objKey(v, i), filterValue(objVal(v, i), sub));
    }
    return out;
  }
  return v;
}

/** Remove every leaf of tree `f` from `v`; 0 when `v` itself goes. */
function removeValue(v: usize, f: usize): usize {
  if (f == 0) return v;
  if (tag(f) == T_NULL) return 0;
  if (tag(f) != T_OBJ) return v;
  const t = tag(v);
  if (t == T_ARR) {
    const out = mkArr(4);
    for (let i = 0; i < len(v); i++) {
      const r = removeValue(item(v, i), objGet(f, indexKey(i)));
      if (r != 0) arrPush(out, r);
    }
    return out;
  }
  if (t == T_SET) {
    const out = mkSet();
    for (let i = 0; i < len(v); i++) {
      const r = removeValue(item(v, i), objGet(f, item(v, i)));
      if (r != 0) setAdd(out, r);
    }
    return out;
  }
  if (t == T_OBJ) {
    const out = mkObj();
    for (let i = 0; i < len(v); i++) {
      const r = removeValue(objVal(v, i), objGet(f, objKey(v, i)));
      if (r != 0) objPut(out, objKey(v, i), r);
    }
    return out;
  }
  return v;
}

export function rtb_json_filter(o: usize, paths: usize): usize {
  if (tag(o) != T_OBJ) return 0;
  const tree = pathTree(paths);
  return tree == 0 ? 0 : filterValue(o, tree);
}

export function rtb_json_remove(o: usize, paths: usize): usize {
  if (tag(o) != T_OBJ) return 0;
  const tree = pathTree(paths);
  if (tree == 0) return 0;
  const r = removeValue(o, tree);
  return r == 0 ? mkObj() : r;
}

// ---------------------------------------------------------------- graphs

/** Edge members (array or set); anything else has none. */
function edgesOf(v: usize): usize {
  return v != 0 && isColl(v) ? v : mkArr(0);
}

/** graph.reachable(graph, initial): every node reachable from the initial ones (which count when in the graph). */
export function rtb_graph_reachable(g: usize, init: usize): usize {
  if (tag(g) != T_OBJ || !isColl(init)) return 0;
  const reached = mkSet();
  const queue = mkArr(len(init));
  for (let i = 0; i < len(init); i++) arrPush(queue, item(init, i));
  for (let q = 0; q < len(queue); q++) {
    const node = item(queue, q);
    const edges = objGet(g, node);
    if (edges == 0) continue;
    const nbs = edgesOf(edges);
    for (let j = 0; j < len(nbs); j++) if (setHas(reached, item(nbs, j)) == 0) arrPush(queue, item(nbs, j));
    setAdd(reached, node);
  }
  return reached;
}

function appended(path: usize, x: usize): usize {
  const p = mkArr(len(path) + 1);
  for (let i = 0; i < len(path); i++) arrPush(p, item(path, i));
  arrPush(p, x);
  return p;
}

function pathsFrom(g: usize, path: usize, seen: usize, node: usize, out: usize): void {
  const edges = objGet(g, node);
  if (edges == 0) { setAdd(out, path); return; }
  const here = appended(path, node);
  if (len(here) > 4096) { fail('not supported on wasm: graph paths longer than 4096'); return; }
  const nbs = edgesOf(edges);
  if (len(nbs) == 0) { setAdd(out, here); return; }
  const seenHere = mkSet();
  for (let i = 0; i < len(seen); i++) setAdd(seenHere, item(seen, i));
  setAdd(seenHere, node);
  for (let i = 0; i < len(nbs); i++) {
    const nb = item(nbs, i);
    if (setHas(seenHere, nb) != 0) setAdd(out, here);
    else pathsFrom(g, here, seenHere, nb, out);
  }
}

/** graph.reachable_paths(graph, initial): every maximal path (cycles end before the repeat). */
export function rtb_graph_reachable_paths(g: usize, init: usize): usize {
  if (tag(g) != T_OBJ || !isColl(init)) return 0;
  const out = mkSet();
  for (let i = 0; i < len(init); i++) {
    const node = item(init, i);
    const edges = objGet(g, node);
    if (edges == 0) continue;
    const nbs = edgesOf(edges);
    const start = appended(mkArr(0), node);
    if (len(nbs) == 0) { setAdd(out, start); continue; }
    const seen = mkSet();
    setAdd(seen, node);
    for (let j = 0; j < len(nbs); j++) pathsFrom(g, start, seen, item(nbs, j), out);
  }
  return out;
}
