// OPA's `undefined ref` type errors (v1/ast/check.go checkRefLeaf) for refs into
// values whose type the checker knows exactly: a constant key that an object type
// with static keys and no dynamic ones does not have.
//   p := {"a": 1}
//   q if p.b == 1      # undefined ref: data.t.p.b … have: "b" … want (one of): ["a"]
// Only this case is reported (keys of other types, empty objects, unions holding
// other than objects are left alone), so the checker never refuses what OPA accepts.
import type { RefTerm } from '../ast/nodes.js';
import type { Expr } from '../ir/ir.js';
import type { TypeSpec } from '../../runtime/builtins/types.js';
import { formatTerm } from '../ast/print.js';
import { RegoError } from '../source/diagnostics.js';
import { RefErrInvalidDetail } from '../source/ref-detail.js';

/**
 * The static keys of `t`, sorted, when constant string key `k` is not among them;
 * else undefined. A union of object types (`default o := {}` with `o := {"m": 1}`)
 * misses a key none of them has (OPA's Select over `any<…>`); unions with other types
 * are not checked.
 */
export function missingKey(t: TypeSpec, k: Expr): string[] | undefined {
  if (k.k !== 'const' || typeof k.value !== 'string') return undefined;
  const members = t.type === 'any' ? (t.of ?? []) : [t];
  if (members.length === 0 || !members.every((m) => m.type === 'object' && !m.dynamic)) return undefined;
  const keys = new Set<string>();
  for (const m of members as (TypeSpec & { type: 'object' })[]) for (const p of m.static ?? []) keys.add(p.key);
  if (keys.size === 0 || keys.has(k.value)) return undefined;
  return [...keys].sort();
}

/**
 * The error for `ref` whose term at `pos` (0: the head) is the missing key; undefined
 * when that term is not a string in the source (the IR chain does not line up).
 */
export function undefinedRefError(ref: RefTerm, pos: number, keys: string[]): RegoError | undefined {
  if (pos < 1 || ref.path[pos - 1]?.kind !== 'string') return undefined;
  return new RegoError('rego_type_error', `undefined ref: ${formatTerm(ref)}`, ref.head.loc, new RefErrInvalidDetail(ref, pos, null, keys));
}
