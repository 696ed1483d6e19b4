// Set builtins: `&` (and), `|` (or), intersection, union, the deprecated set_diff,
// and the `in` operator: internal.member_2 (x in coll) and internal.member_3
// (k, v in coll). Membership never fails: a non-collection simply gives false.
import type { Value } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import { equal } from '../value/compare.js';
import { isNumber } from '../value/number.js';
import type { BuiltinDef } from './types.js';
import { T } from './types.js';
import { asSet } from './args.js';

const setCat = ['sets'];
const setAny = T.setOf(T.any);

export function setIntersect(a: RSet, b: RSet): RSet {
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  const out = new RSet();
  for (const v of small.unorderedValues()) if (big.has(v)) out.add(v);
  return out;
}

export function setUnion(a: RSet, b: RSet): RSet {
  if (b.size === 0) return a;
  if (a.size === 0) return b;
  const out = a.clone();
  for (const v of b.unorderedValues()) out.add(v);
  return out;
}

function setDiff(a: RSet, b: RSet): RSet {
  const out = new RSet();
  for (const v of a.unorderedValues()) if (!b.has(v)) out.add(v);
  return out;
}

function intersection(v: Value): Value {
  const sets = asSet(v, 1);
  let result: RSet | undefined;
  for (const x of sets.unorderedValues()) {
    const s = asSet(x, 1);
    result = result === undefined ? s : setIntersect(result, s);
  }
  return result ?? new RSet();
}

function union(v: Value): Value {
  const sets = asSet(v, 1);
  // Sets are immutable once built: the first non-empty member is the result until a second one adds to a copy.
  let out: RSet | undefined;
  let copied = false;
  for (const x of sets.unorderedValues()) {
    const s = asSet(x, 1);
    if (s.size === 0) continue;
    if (out === undefined) out = s;
    else {
      if (!copied) {
        out = out.clone();
        copied = true;
      }
      for (const m of s.unorderedValues()) out.add(m);
    }
  }
  return out ?? new RSet();
}

/** `x in coll`: set membership, or any array element / object value equal to x. */
export function member(x: Value, coll: Value): boolean {
  if (Array.isArray(coll)) {
    // A string equals only the same string: no equal() per element.
    if (typeof x === 'string') return coll.includes(x);
    for (const e of coll) if (equal(e, x)) return true;
    return false;
  }
  if (coll instanceof RSet) return coll.has(x);
  if (coll instanceof RObject) {
    for (const [, e] of coll.unorderedEntries()) if (equal(e, x)) return true;
    return false;
  }
  return false;
}

/** `k, v in coll`: coll[k] exists and equals v (arrays by index, objects by key). */
export function memberWithKey(k: Value, v: Value, coll: Value): boolean {
  if (coll instanceof RObject) {
    const got = coll.get(k);
    return got !== undefined && equal(got, v);
  }
  if (Array.isArray(coll)) {
    if (!isNumber(k) || typeof k !== 'number' || !Number.isInteger(k) || k < 0 || k >= coll.length) return false;
    return equal(coll[k]!, v);
  }
  return false;
}

export const builtins: BuiltinDef[] = [
  {
    decl: {
      name: 'and',
      infix: '&',
      args: [setAny, setAny],
      result: setAny,
      categories: setCat,
      description: 'Returns the intersection of two sets.',
    },
    impl: ([a, b]) => setIntersect(asSet(a!, 1), asSet(b!, 2)),
  },
  {
    decl: { name: 'or', infix: '|', args: [setAny, setAny], result: setAny, categories: setCat, description: 'Returns the union of two sets.' },
    impl: ([a, b]) => setUnion(asSet(a!, 1), asSet(b!, 2)),
  },
  {
    decl: {
      name: 'intersection',
      args: [T.setOf(setAny)],
      result: setAny,
      categories: setCat,
      description: 'Returns the intersection of the given input sets.',
    },
    impl: ([v]) => intersection(v!),
  },
  {
    decl: { name: 'union', args: [T.setOf(setAny)], result: setAny, categories: setCat, description: 'Returns the union of the given input sets.' },
    impl: ([v]) => union(v!),
  },
  {
    decl: { name: 'set_diff', args: [setAny, setAny], result: setAny, deprecated: true },
    impl: ([a, b]) => setDiff(asSet(a!, 1), asSet(b!, 2)),
  },
  {
    decl: { name: 'internal.member_2', infix: 'in', args: [T.any, T.any], result: T.boolean },
    impl: ([x, c]) => member(x!, c!),
  },
  {
    decl: { name: 'internal.member_3', infix: 'in', args: [T.any, T.any, T.any], result: T.boolean },
    impl: ([k, v, c]) => memberWithKey(k!, v!, c!),
  },
];
