// Indexed comprehensions (OPA's comprehension indexing; compiler/passes/
// comprehension-index.ts marks them): the comprehension's body runs once per
// evaluation context with the outer variables it keys on unbound, its solutions are
// grouped by those variables' values, and each evaluation of the comprehension is a
// lookup of the current values. The table lives in the context, so a `with` block
// (a derived context) builds its own. Shared by every evaluator that honours the mark
// (generated JS, closures, the reference interpreter).
// An indexed object comprehension keeps OPA's semantics for that case (topdown's
// buildComprehensionCacheObject inserts each solution's key and value, a later value
// replacing an earlier one): no "object keys must be unique" conflict, the last value
// of a key wins. The unindexed form still raises the conflict, as OPA's does.
import type { EvalContext } from './context.js';
import type { Value } from '../value/value.js';
import { canonicalKey } from '../value/key.js';
import { RObject, RSet } from '../value/collections.js';

/** Per context: comprehension id → canonical key of the outer values → the members, in solution order. */
export type ComprehensionTables = Map<number, Map<string, Value[]>>;

/** What an indexed comprehension makes of its members. */
export type ComprehensionKind = 'array' | 'set' | 'object';

/**
 * The value of indexed comprehension `id` for outer values `keys`: an array of the
 * members (a set, or an object of `[key, value]` members, by `kind`) grouped under
 * those values, empty when none. `build` runs the keyed body once per context: an
 * array of `[[key values…], member]` pairs.
 */
export function comprehensionLookup(c: EvalContext, id: number, keys: Value[], kind: ComprehensionKind, build: () => Value | undefined): Value {
  const tables = (c.comprehensionTables ??= new Map());
  let table = tables.get(id);
  if (table === undefined) {
    table = new Map();
    for (const pair of (build() ?? []) as Value[][]) {
      const k = tupleKey(pair[0] as Value[]);
      const members = table.get(k);
      if (members === undefined) table.set(k, [pair[1]!]);
      else members.push(pair[1]!);
    }
    tables.set(id, table);
  }
  const members = table.get(tupleKey(keys));
  if (kind === 'set') return RSet.of(members ?? []);
  if (kind === 'object') {
    const obj = new RObject();
    for (const m of members ?? []) obj.set((m as Value[])[0]!, (m as Value[])[1]!);
    return obj;
  }
  // Values are never changed in place (data arrays are shared the same way), so every
  // evaluation with these key values gets the same array, and its canonical key is
  // computed once (key.ts caches an array's key), not once per evaluation.
  return members ?? EMPTY;
}

/** The value of an array comprehension no solution keys (shared, like every value). */
const EMPTY: Value[] = [];

/** The table key of key values (one canonical key per value; not cached, unlike an array value's). */
function tupleKey(keys: Value[]): string {
  if (keys.length === 1) return canonicalKey(keys[0]!);
  let k = '';
  for (let i = 0; i < keys.length; i++) k += (i ? ',' : '') + canonicalKey(keys[i]!);
  return k;
}
