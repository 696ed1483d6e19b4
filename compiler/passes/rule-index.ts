// Pass `rule-index`: rule indexing on equality with ground refs (as OPA's rule
// index). When several definitions of a group start with `ref == constant` over
// the same invariant ref (input, base data, constant keys), the group gets an
// index: constant → definitions. At run time the back end evaluates the ref once
// and runs only the matching definitions plus those without such a condition.
// Definitions with `else` chains are never indexed here; function groups are
// indexed on a constant argument by the back end (compiler/codegen/js/rule-compiler.ts,
// compileFunctionIndex), since their lookup key is an argument, not a ref.
import type { Expr, RuleDef, RuleGroup, RuleIndex } from '../ir/ir.js';
import { canonicalKey, type Value } from '../../runtime/value/index.js';
import type { Pass } from './pass.js';

export const ruleIndex: Pass = {
  name: 'rule-index',
  run(state) {
    for (const g of state.ir!.groups) {
      // Assigned, never deleted: a deleted field would give the group its own hidden class.
      g.index = buildIndex(g) ?? undefined;
    }
  },
  dump: (state) =>
    state.ir?.groups
      .filter((g) => g.index)
      .map((g) => ({ path: 'data.' + g.path.join('.'), keys: g.index!.entries.length, always: g.index!.always.length })),
};

/** Smallest number of definitions worth an index. */
const MIN_INDEXED = 2;

function buildIndex(g: RuleGroup): RuleIndex | undefined {
  if (g.kind === 'function' || g.defs.length < MIN_INDEXED) return undefined;
  const conditions = g.defs.map(condition);
  const refs = new Map<string, number>();
  for (const c of conditions) if (c) refs.set(c.refKey, (refs.get(c.refKey) ?? 0) + 1);
  // Index on the ref most definitions test.
  let best: string | undefined;
  for (const [k, n] of refs) if (best === undefined || n > refs.get(best)!) best = k;
  if (best === undefined || refs.get(best)! < MIN_INDEXED) return undefined;
  const byKey = new Map<string, { key: Value; defs: number[] }>();
  const always: number[] = [];
  let ref: Expr | undefined;
  conditions.forEach((c, i) => {
    if (!c || c.refKey !== best) {
      always.push(i);
      return;
    }
    ref = c.ref;
    const k = canonicalKey(c.value);
    const entry = byKey.get(k) ?? { key: c.value, defs: [] };
    entry.defs.push(i);
    byKey.set(k, entry);
  });
  return { ref: ref!, entries: [...byKey.values()], always };
}

/** The leading `ref == constant` test of a definition, if it has one. */
function condition(d: RuleDef): { ref: Expr; refKey: string; value: Value } | undefined {
  if (d.else) return undefined;
  const first = d.body[0];
  if (!first || first.k !== 'test' || first.expr.k !== 'call' || first.expr.name !== 'equal') return undefined;
  const [a, b] = first.expr.args as [Expr, Expr];
  const [ref, value] = a.k === 'const' ? [b, a.value] : b.k === 'const' ? [a, b.value] : [undefined, undefined];
  if (!ref || value === undefined || (typeof value === 'object' && value !== null)) return undefined;
  const refKey = groundKey(ref);
  return refKey === undefined ? undefined : { ref, refKey, value };
}

/** A text key for a ground ref over input or base data with constant keys. */
function groundKey(e: Expr): string | undefined {
  switch (e.k) {
    case 'input':
      return 'input';
    case 'base':
      return `base:${JSON.stringify(e.path)}`;
    case 'dot': {
      const base = groundKey(e.base);
      if (base === undefined || e.key.k !== 'const' || (typeof e.key.value === 'object' && e.key.value !== null)) return undefined;
      return `${base}[${JSON.stringify(e.key.value)}]`;
    }
    default:
      return undefined;
  }
}
