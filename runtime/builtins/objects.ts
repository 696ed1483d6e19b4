// Builtins of the `object.*` family (OPA's topdown/object.go and subset.go):
// get (with array paths), keys, remove, filter, union, union_n and subset.
import type { Value } from '../value/value.js';
import { typeName } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import { compare, equal } from '../value/compare.js';
import { isIntegral, toDouble, BigNum } from '../value/number.js';
import type { BuiltinDef, TypeSpec } from './types.js';
import { T } from './types.js';
import { OperandTypeError, operandError } from './errors.js';
import { asArray, asObject } from './args.js';
import { filterValue } from './json-paths.js';

const anyObject: TypeSpec = T.objectOf(T.any, T.any);
const keysArg: TypeSpec = T.anyOf(T.arrayOf(T.any), T.setOf(T.any), anyObject);
const subsetArg: TypeSpec = T.anyOf(anyObject, T.setOf(T.any), T.arrayOf(T.any));

/** The keys operand of object.remove / object.filter: array, set or object keys. */
function keysParam(v: Value): RSet {
  if (Array.isArray(v)) return RSet.of(v);
  if (v instanceof RSet) return v;
  if (v instanceof RObject) return RSet.of(v.keys());
  throw operandError(2, 'one of {object, set, array}', v);
}

/** Recursive merge where `b` wins, except that two objects merge (OPA's mergeWithOverwrite). */
export function mergeWithOverwrite(a: RObject, b: RObject): RObject {
  const out = a.clone();
  for (const [k, vb] of b.unorderedEntries()) {
    const va = a.get(k);
    if (va instanceof RObject && vb instanceof RObject) out.set(k, mergeWithOverwrite(va, vb));
    else out.set(k, vb);
  }
  return out;
}

/** Follow `path` into `v` as OPA's Value.Find does; undefined when not found. */
function findPath(v: Value, path: Value[], from: number): Value | undefined {
  let cur: Value = v;
  for (let i = from; i < path.length; i++) {
    const seg = path[i]!;
    if (cur instanceof RObject) {
      const next = cur.get(seg);
      if (next === undefined) return undefined;
      cur = next;
    } else if (Array.isArray(cur)) {
      if ((typeof seg !== 'number' && !(seg instanceof BigNum)) || !isIntegral(seg)) return undefined;
      const idx = toDouble(seg);
      if (idx < 0 || idx >= cur.length) return undefined;
      cur = cur[idx]!;
    } else if (cur instanceof RSet) {
      if (!cur.has(seg)) return undefined;
      cur = seg;
    } else {
      return undefined;
    }
  }
  return cur;
}

function objectSubset(sup: RObject, sub: RObject): boolean {
  for (const [k, subV] of sub.unorderedEntries()) {
    const supV = sup.get(k);
    if (supV === undefined) return false;
    if (equal(subV, supV)) continue;
    if (supV instanceof RObject && subV instanceof RObject) {
      if (!objectSubset(supV, subV)) return false;
    } else if (supV instanceof RSet && subV instanceof RSet) {
      if (!setSubset(supV, subV)) return false;
    } else if (Array.isArray(supV) && Array.isArray(subV)) {
      if (!arraySubset(supV, subV)) return false;
    } else {
      return false;
    }
  }
  return true;
}

function setSubset(sup: RSet, sub: RSet): boolean {
  for (const x of sub.unorderedValues()) if (!sup.has(x)) return false;
  return true;
}

/** `sub` appears contiguously, in order, within `sup`. */
function arraySubset(sup: Value[], sub: Value[]): boolean {
  if (sub.length > sup.length) return false;
  if (sub.length === 0) return true;
  outer: for (let start = 0; start + sub.length <= sup.length; start++) {
    for (let j = 0; j < sub.length; j++) if (compare(sup[start + j]!, sub[j]!) !== 0) continue outer;
    return true;
  }
  return false;
}

/**
 * Every member of `sub` occurs in `sup` (OPA counts matching array elements, so
 * duplicates in `sup` count more than once, and an empty `sup` never matches).
 */
function arraySetSubset(sup: Value[], sub: RSet): boolean {
  let unmatched = sub.size;
  for (const x of sup) {
    if (sub.has(x)) unmatched--;
    if (unmatched <= 0) return true;
  }
  return false;
}

export const builtins: BuiltinDef[] = [
  {
    decl: { name: 'object.get', args: [anyObject, T.any, T.any], result: T.any },
    impl: ([obj, key, dflt]) => {
      const o = asObject(obj!, 1);
      if (!Array.isArray(key)) return o.get(key!) ?? dflt!;
      if (key.length === 0) return o;
      return findPath(o, key, 0) ?? dflt!;
    },
  },
  {
    decl: { name: 'object.keys', args: [anyObject], result: T.setOf(T.any) },
    impl: ([obj]) => RSet.of(asObject(obj!, 1).keys()),
  },
  {
    decl: { name: 'object.remove', args: [anyObject, keysArg], result: T.any },
    impl: ([obj, keys]) => {
      const o = asObject(obj!, 1);
      const remove = keysParam(keys!);
      const out = new RObject();
      for (const [k, v] of o.unorderedEntries()) if (!remove.has(k)) out.set(k, v);
      return out;
    },
  },
  {
    decl: { name: 'object.filter', args: [anyObject, keysArg], result: T.any },
    impl: ([obj, keys]) => {
      const o = asObject(obj!, 1);
      const filter = new RObject();
      for (const k of keysParam(keys!).unorderedValues()) filter.set(k, null);
      return filterValue(o, filter);
    },
  },
  {
    decl: { name: 'object.union', args: [anyObject, anyObject], result: T.any },
    impl: ([a, b]) => {
      const oa = asObject(a!, 1);
      const ob = asObject(b!, 2);
      if (equal(oa, ob)) return oa;
      return mergeWithOverwrite(oa, ob);
    },
  },
  {
    decl: { name: 'object.union_n', args: [T.arrayOf(anyObject)], result: T.any },
    impl: ([arr]) => {
      const xs = asArray(arr!, 1);
      let out = new RObject();
      for (const x of xs) {
        if (!(x instanceof RObject)) {
          throw new OperandTypeError(`operand 1 must be array of objects but got array containing ${typeName(x)}`);
        }
        out = mergeWithOverwrite(out, x);
      }
      return out;
    },
  },
  {
    decl: { name: 'object.subset', args: [subsetArg, subsetArg], result: T.any },
    impl: ([sup, sub]) => {
      if (sup instanceof RObject && sub instanceof RObject) return objectSubset(sup, sub);
      if (sup instanceof RSet && sub instanceof RSet) return setSubset(sup, sub);
      if (Array.isArray(sup) && Array.isArray(sub)) return arraySubset(sup, sub);
      if (Array.isArray(sup) && sub instanceof RSet) return arraySetSubset(sup, sub);
      throw new OperandTypeError('both arguments object.subset must be of the same type or array and set');
    },
  },
];

