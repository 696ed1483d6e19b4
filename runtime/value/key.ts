// Canonical text of a value for hashing set members and object keys.
// Two values have the same key exactly when they are equal (numbers by value).
// Keys of objects and sets are cached on the instance (they are immutable once
// built); keys of arrays in a WeakMap.
import type { Value } from './value.js';
import { BigNum, formatNumber, normalizeNumber } from './number.js';
import { RObject, RSet } from './collections.js';
import { jsonQuote } from './quote.js';

const arrayKeys = new WeakMap<Value[], string>();

export function canonicalKey(v: Value): string {
  if (v === null) return 'n';
  switch (typeof v) {
    case 'boolean':
      return v ? 't' : 'f';
    case 'number':
      return '#' + formatNumber(v);
    case 'string':
      return jsonQuote(v);
  }
  if (v instanceof BigNum) return '#' + formatNumber(normalizeNumber(v.dec));
  if (Array.isArray(v)) {
    let k = arrayKeys.get(v);
    if (k === undefined) arrayKeys.set(v, (k = arrayKey(v)));
    return k;
  }
  if (v instanceof RObject) {
    if (v.hashKey === undefined) {
      let k = '{';
      const entries = v.entries();
      for (let i = 0; i < entries.length; i++) k += (i ? ',' : '') + canonicalKey(entries[i]![0]) + ':' + canonicalKey(entries[i]![1]);
      v.hashKey = k + '}';
    }
    return v.hashKey;
  }
  if (v instanceof RSet) {
    if (v.hashKey === undefined) {
      // Members are hashed already; sorting their hashes gives an order-free key.
      v.hashKey = '<' + [...v.hashes()].sort().join(',') + '>';
    }
    return v.hashKey;
  }
  throw new Error('not a Rego value');
}

/** An array's key from its members' (cached) keys. */
function arrayKey(v: Value[]): string {
  let k = '[';
  for (let i = 0; i < v.length; i++) k += (i ? ',' : '') + canonicalKey(v[i]!);
  return k + ']';
}

/**
 * The key of an array about to be stored under it (a set member, an object key): its
 * cached key, else computed from its members' keys without caching the array's own.
 * The container keeps the key, and a fresh array (a rule head's `[v, ks]`) would only
 * add a WeakMap entry for the garbage collector to clear (an ephemeron per member).
 */
export function storedArrayKey(v: Value[]): string {
  return arrayKeys.get(v) ?? arrayKey(v);
}
