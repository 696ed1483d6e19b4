// Path helpers shared by json.filter, json.remove, json.patch and object.filter:
// parsing `a/b` or array paths, building OPA's filter tree (an object whose leaves
// are null), and filtering / removing values along that tree, as OPA's topdown does.
import type { Value } from '../value/value.js';
import { typeName } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import { OperandTypeError, operandError } from './errors.js';

/** One parsed path: a list of segments (strings for `a/b` paths, any value for arrays). */
export type Path = Value[];

/**
 * Parse a path given as a `/`-separated string (JSON-pointer escapes `~1`, `~0`)
 * or as an array of segments. Other types fail with OPA's operand-2 message.
 */
export function parsePath(p: Value): Path {
  if (typeof p === 'string') {
    if (p === '') return [];
    return p
      .replace(/^\/+/, '')
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
  }
  if (Array.isArray(p)) return [...p];
  throw new OperandTypeError(
    `operand 2 must be one of {set, array} containing string paths or array of path segments but got ${typeName(p)}`,
  );
}

/** The paths operand of json.filter / json.remove: a set or array of paths. */
export function parsePaths(v: Value): Path[] {
  if (Array.isArray(v)) return v.map(parsePath);
  if (v instanceof RSet) return v.values().map(parsePath);
  throw operandError(2, 'one of {set, array}', v);
}

/**
 * Build OPA's filter tree from paths: nested objects keyed by segment whose
 * leaves are null. A shorter path wins over a longer one sharing its prefix.
 * Empty paths are skipped.
 */
export function pathsToObject(paths: Path[]): RObject {
  const root = new RObject();
  for (const path of paths) {
    if (path.length === 0) continue;
    let node = root;
    let done = false;
    for (let i = 0; i < path.length - 1 && !done; i++) {
      const k = path[i]!;
      const child = node.get(k);
      if (child === undefined) {
        const obj = new RObject();
        node.set(k, obj);
        node = obj;
      } else if (child === null) {
        done = true;
      } else {
        node = child as RObject;
      }
    }
    if (!done) node.set(path[path.length - 1]!, null);
  }
  return root;
}

/** Keep only the parts of `v` named by the filter tree (OPA's Object.Filter). */
export function filterValue(v: Value, filter: Value): Value {
  if (filter === null) return v;
  if (!(filter instanceof RObject)) throw new Error('invalid filter value, expected an object');
  if (Array.isArray(v)) {
    const out: Value[] = [];
    for (let i = 0; i < v.length; i++) {
      const sub = filter.getStr(String(i));
      if (sub !== undefined) out.push(filterValue(v[i]!, sub));
    }
    return out;
  }
  if (v instanceof RSet) {
    const out = new RSet();
    for (const x of v.values()) {
      const sub = filter.get(x);
      if (sub !== undefined) out.add(filterValue(x, sub));
    }
    return out;
  }
  if (v instanceof RObject) {
    const out = new RObject();
    const [iter, other] = v.size < filter.size ? [v, filter] : [filter, v];
    for (const [k] of iter.unorderedEntries()) {
      if (other.has(k)) out.set(k, filterValue(v.get(k)!, filter.get(k)!));
    }
    return out;
  }
  return v;
}

/**
 * Remove from `a` every leaf of the filter tree `b` (OPA's jsonRemove).
 * Returns undefined when `a` itself is removed.
 */
export function removeValue(a: Value, b: Value | undefined): Value | undefined {
  if (b === undefined) return a;
  if (b === null) return undefined;
  if (!(b instanceof RObject)) return a;
  if (Array.isArray(a)) {
    const out: Value[] = [];
    for (let i = 0; i < a.length; i++) {
      const r = removeValue(a[i]!, b.getStr(String(i)));
      if (r !== undefined) out.push(r);
    }
    return out;
  }
  if (a instanceof RSet) {
    const out = new RSet();
    for (const x of a.values()) {
      const r = removeValue(x, b.get(x));
      if (r !== undefined) out.add(r);
    }
    return out;
  }
  if (a instanceof RObject) {
    const out = new RObject();
    for (const [k, x] of a.unorderedEntries()) {
      const r = removeValue(x, b.get(k));
      if (r !== undefined) out.set(k, r);
    }
    return out;
  }
  return a;
}
