// Rego's total order and structural equality over values.
// Order: null < boolean < number < string < array < object < set; collections
// compare member by member in sorted order, then by size (as OPA's ast.Compare).
import type { Value } from './value.js';
import { typeRank } from './value.js';
import { BigNum, compareNumbers } from './number.js';
import { RObject, RSet } from './collections.js';

export function compare(a: Value, b: Value): number {
  if (a === b) return 0;
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return 0;
    case 1:
      return a === b ? 0 : a ? 1 : -1;
    case 2:
      return compareNumbers(a as number | BigNum, b as number | BigNum);
    case 3:
      return compareStrings(a as string, b as string);
    case 4:
      return compareArrays(a as Value[], b as Value[]);
    case 5:
      return compareObjects(a as RObject, b as RObject);
    default:
      return compareArrays((a as RSet).values(), (b as RSet).values());
  }
}

/** Byte-wise (UTF-8 order) string comparison, as Go compares strings. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      // Surrogates (0xD800-0xDFFF) encode code points above 0xFFFF, which sort after
      // 0xE000-0xFFFF in UTF-8; adjust so that UTF-16 order matches UTF-8 order.
      const sx = x >= 0xd800 && x <= 0xdfff;
      const sy = y >= 0xd800 && y <= 0xdfff;
      if (sx !== sy && (x >= 0xe000 || y >= 0xe000)) return sx ? 1 : -1;
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function compareArrays(a: Value[], b: Value[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compare(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function compareObjects(a: RObject, b: RObject): number {
  const ea = a.entries();
  const eb = b.entries();
  const n = Math.min(ea.length, eb.length);
  for (let i = 0; i < n; i++) {
    const kc = compare(ea[i]![0], eb[i]![0]);
    if (kc !== 0) return kc;
    const vc = compare(ea[i]![1], eb[i]![1]);
    if (vc !== 0) return vc;
  }
  return ea.length < eb.length ? -1 : ea.length > eb.length ? 1 : 0;
}

/** Structural equality (numbers by value: 1 == 1.0). */
export function equal(a: Value, b: Value): boolean {
  if (a === b) return true;
  const ta = typeof a;
  if (ta === 'string' || ta === 'boolean' || a === null || b === null) return false;
  if (ta === 'number') return b instanceof BigNum ? compareNumbers(a as number, b) === 0 : false;
  if (a instanceof BigNum) return (typeof b === 'number' || b instanceof BigNum) && compareNumbers(a, b) === 0;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i]!, b[i]!)) return false;
    return true;
  }
  if (a instanceof RObject) {
    return b instanceof RObject && a.size === b.size && a.entriesIn(b);
  }
  if (a instanceof RSet) {
    if (!(b instanceof RSet) || a.size !== b.size) return false;
    for (const v of a.unorderedValues()) if (!b.has(v)) return false;
    return true;
  }
  return false;
}
