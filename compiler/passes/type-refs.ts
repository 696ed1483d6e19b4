// OPA's `undefined ref` type errors (v1/ast/check.go checkRefLeaf) for refs into
// values whose type the checker knows exactly: a constant key that an object type
// with static keys and no dynamic ones does not have, or that an array of known
// length (no dynamic part) cannot have (a string, a number not an index of it).
//   p := {"a": 1}
//   q if p.b == 1      # undefined ref: data.t.p.b … have: "b" … want (one of): ["a"]
//   r := [1, 2]
//   s := r.x           # undefined ref: data.t.r.x … have: "x" … want (type): number
//   n := 1
//   m := n.x           # undefined ref: data.t.n.x … ^^^^^^^^ … have: number
// Only these cases and keys into a scalar or an empty object are reported (unions
// holding other than objects are left alone), so the checker never refuses what OPA accepts.
import type { RefTerm } from '../ast/nodes.js';
import type { Expr } from '../ir/ir.js';
import type { TypeSpec } from '../../runtime/builtins/types.js';
import { formatTerm } from '../ast/print.js';
import { RegoError } from '../source/diagnostics.js';
import { RefErrInvalidDetail, RefErrUnsupportedDetail } from '../source/ref-detail.js';

/** What a missing key's error says fits there: the object's keys, or a type. */
export type MissingKey = { oneOf: string[] } | { wantType: string } | { scalar: string };

const SCALARS = new Set(['null', 'boolean', 'number', 'string']);

/**
 * What fits where constant key `k` of a value of type `t` is missing, or undefined
 * when it may be there. An object type with static keys and no dynamic ones misses a
 * key it does not list (a union of such, as `default o := {}` with `o := {"m": 1}`,
 * one none of them lists; unions with other types are not checked). An array type
 * without a dynamic part misses a string key and a number that is not one of its
 * indexes (OPA's types.Select). A scalar has no keys at all.
 */
export function missingKey(t: TypeSpec, k: Expr): MissingKey | undefined {
  if (k.k !== 'const') return undefined;
  if (SCALARS.has(t.type)) return { scalar: t.type };
  // An empty object type has no key type at all (OPA's types.Keys is nil), as a scalar.
  if (t.type === 'object' && !t.dynamic && !t.static?.length) return { scalar: 'object' };
  if (t.type === 'array' && !t.dynamic) {
    const n = t.static?.length ?? 0;
    if (typeof k.value === 'string') return { wantType: 'number' };
    if (typeof k.value === 'number' && !(Number.isInteger(k.value) && k.value >= 0 && k.value < n)) return { wantType: 'number' };
    return undefined;
  }
  if (typeof k.value !== 'string') return undefined;
  const members = t.type === 'any' ? (t.of ?? []) : [t];
  if (members.length === 0 || !members.every((m) => m.type === 'object' && !m.dynamic)) return undefined;
  const keys = new Set<string>();
  for (const m of members as (TypeSpec & { type: 'object' })[]) for (const p of m.static ?? []) keys.add(p.key);
  if (keys.size === 0 || keys.has(k.value)) return undefined;
  return { oneOf: [...keys].sort() };
}

/**
 * The error for `ref` whose term at `pos` (0: the head) is the missing key; undefined
 * when that term is not a string or number in the source (the IR chain does not line up).
 */
export function undefinedRefError(ref: RefTerm, pos: number, miss: MissingKey): RegoError | undefined {
  const kind = pos < 1 ? undefined : ref.path[pos - 1]?.kind;
  if (kind !== 'string' && kind !== 'number') return undefined;
  const detail =
    'scalar' in miss
      ? new RefErrUnsupportedDetail(ref, pos - 1, miss.scalar)
      : 'oneOf' in miss
        ? new RefErrInvalidDetail(ref, pos, null, miss.oneOf)
        : new RefErrInvalidDetail(ref, pos, miss.wantType, []);
  return new RegoError('rego_type_error', `undefined ref: ${formatTerm(ref)}`, ref.head.loc, detail);
}
