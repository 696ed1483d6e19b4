// Small value operations the evaluator needs: lookups, iteration, path updates
// and text formatting for templates and print().
import type { Value } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import { BigNum } from '../value/number.js';
import { formatPlain } from '../value/format.js';

/** `base[key]`, or undefined when the key is absent or the base is not a collection. */
export function dot(base: Value | undefined, key: Value): Value | undefined {
  if (base === undefined || base === null || typeof base !== 'object') return undefined;
  if (Array.isArray(base)) {
    let i: number;
    if (typeof key === 'number') i = key;
    else if (key instanceof BigNum) return undefined;
    else return undefined;
    return Number.isInteger(i) && i >= 0 && i < base.length ? base[i] : undefined;
  }
  if (base instanceof RObject) return typeof key === 'string' ? base.getStr(key) : base.get(key);
  if (base instanceof RSet) return base.has(key) ? key : undefined;
  return undefined;
}

/**
 * Follow a path into the base document. As in OPA's storage, a number key
 * indexes an array and names the key with the number's text in an object.
 */
export function dig(v: Value | undefined, path: readonly (string | number)[], from = 0): Value | undefined {
  for (let i = from; i < path.length && v !== undefined; i++) {
    const k = path[i]!;
    v = typeof k === 'number' && v instanceof RObject ? v.getStr(String(k)) : dot(v, k);
  }
  return v;
}

/** A copy of `root` with `value` at `path`, creating objects along the way. */
export function setPath(root: Value | undefined, path: readonly string[], value: Value, from = 0): Value {
  if (from >= path.length) return value;
  const key = path[from]!;
  const obj = root instanceof RObject ? root.clone() : new RObject();
  obj.set(key, setPath(obj.getStr(key), path, value, from + 1));
  return obj;
}

/** Iterate a collection as (key, value) pairs in Rego order; returns true to stop early. */
export function forEachMember(v: Value | undefined, fn: (k: Value, x: Value) => boolean): boolean {
  if (v === undefined || v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (fn(i, v[i]!)) return true;
    return false;
  }
  if (v instanceof RObject) {
    for (const [k, x] of v.entries()) if (fn(k, x)) return true;
    return false;
  }
  if (v instanceof RSet) {
    for (const x of v.values()) if (fn(x, x)) return true;
  }
  return false;
}

/** Like forEachMember, but in insertion order (no sorting): for order-blind consumers. */
export function forEachMemberUnordered(v: Value | undefined, fn: (k: Value, x: Value) => boolean): boolean {
  if (v === undefined || v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (fn(i, v[i]!)) return true;
    return false;
  }
  if (v instanceof RObject) return v.forEachUnordered(fn);
  if (v instanceof RSet) {
    for (const x of v.unorderedValues()) if (fn(x, x)) return true;
  }
  return false;
}

/** Keys and values of a collection as arrays (keys null for arrays: the index is the key). */
export interface Members {
  keys: Value[] | null;
  values: Value[];
}

/**
 * A collection's members for a loop in generated code: arrays as they are,
 * objects by key, sets with each member as key and value. `ordered` asks for
 * Rego order; otherwise insertion order may be used. Undefined for scalars.
 */
export function members(v: Value | undefined, ordered: number): Members | undefined {
  if (v === undefined || v === null || typeof v !== 'object') return undefined;
  if (Array.isArray(v)) return { keys: null, values: v };
  if (v instanceof RObject) return { keys: v.keys(), values: v.values() };
  if (v instanceof RSet) {
    const vals = ordered ? v.values() : v.unorderedArray();
    return { keys: vals, values: vals };
  }
  return undefined;
}

/** Text of a value inside string interpolation and print(). */
export function templateText(v: Value | undefined): string {
  return v === undefined ? '<undefined>' : formatPlain(v);
}

/** Deep-merge two objects (rule values into base data); `b` wins on scalars. */
export function mergeValues(a: Value | undefined, b: Value): Value {
  if (!(a instanceof RObject) || !(b instanceof RObject)) return b;
  const out = a.clone();
  for (const [k, v] of b.entries()) out.set(k, mergeValues(out.get(k), v));
  return out;
}
