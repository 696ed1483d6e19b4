// Canonical text of a value for hashing set members and object keys.
// Two values have the same key exactly when they are equal (numbers by value).
import type { Value } from './value.js';
import { BigNum, formatNumber, normalizeNumber } from './number.js';
import { RObject, RSet } from './collections.js';

export function canonicalKey(v: Value): string {
  if (v === null) return 'n';
  switch (typeof v) {
    case 'boolean':
      return v ? 't' : 'f';
    case 'number':
      return '#' + formatNumber(v);
    case 'string':
      return JSON.stringify(v);
  }
  if (v instanceof BigNum) return '#' + formatNumber(normalizeNumber(v.dec));
  if (Array.isArray(v)) return '[' + v.map(canonicalKey).join(',') + ']';
  if (v instanceof RObject) return '{' + v.entries().map(([k, x]) => canonicalKey(k) + ':' + canonicalKey(x)).join(',') + '}';
  if (v instanceof RSet) return '<' + v.values().map(canonicalKey).join(',') + '>';
  throw new Error('not a Rego value');
}
