// Pass `rule-index`: rule indexing on equality with ground refs (as OPA's rule
// index, v1/ast/index.go). A definition's body statements `ref == constant` and
// `ref = constant` (a scalar, or an array of scalars as OPA's indexValue allows; at
// its top level, not negated, not under `with`) over an
// invariant ref (input, base data, constant keys) are its conditions: when it fails
// one, its body has no solution. When several definitions of a group have a
// condition on the same ref, the group gets an index on the ref most of them test:
// constant → definitions. At run time the back end evaluates the ref once and runs
// only the matching definitions plus those without such a condition, as OPA does,
// whatever the condition's position in the body (so a skipped definition's earlier
// statements do not run). As in OPA, a definition that prints (or records a test
// case) is never indexed: it always runs. Definitions with `else` chains are never
// indexed here; function groups are indexed on a constant argument by the back end
// (compiler/codegen/js/rule-compiler.ts, compileFunctionIndex), since their lookup
// key is an argument, not a ref.
import type { Expr, RuleDef, RuleGroup, RuleIndex, Stmt } from '../ir/ir.js';
import { canonicalKey, type Value } from '../../runtime/value/index.js';
import type { Pass } from './pass.js';
import { someNode } from '../ir/visit.js';

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

/** One indexable test of a definition: `ref == value` at body position `at`. */
interface Condition {
  ref: Expr;
  refKey: string;
  value: Value;
  at: number;
}

function buildIndex(g: RuleGroup): RuleIndex | undefined {
  if (g.kind === 'function' || g.defs.length < MIN_INDEXED) return undefined;
  const conditions = g.defs.map(conditionsOf);
  // Index on the ref most definitions test (the first seen of equally frequent ones).
  const refs = new Map<string, number>();
  for (const list of conditions) for (const key of new Set(list.map((c) => c.refKey))) refs.set(key, (refs.get(key) ?? 0) + 1);
  let best: string | undefined;
  for (const [k, n] of refs) if (best === undefined || n > refs.get(best)!) best = k;
  if (best === undefined || refs.get(best)! < MIN_INDEXED) return undefined;
  const byKey = new Map<string, { key: Value; defs: number[] }>();
  const always: number[] = [];
  const at: number[] = [];
  let ref: Expr | undefined;
  conditions.forEach((list, i) => {
    const c = list.find((x) => x.refKey === best);
    if (!c) {
      always.push(i);
      at.push(-1);
      return;
    }
    ref = c.ref;
    at.push(c.at);
    const k = canonicalKey(c.value);
    const entry = byKey.get(k) ?? { key: c.value, defs: [] };
    entry.defs.push(i);
    byKey.set(k, entry);
  });
  return { ref: ref!, entries: [...byKey.values()], always, at };
}

/**
 * The `ref == constant` tests of a definition's body (none when it cannot be indexed).
 * A test of a local that a top-level `let` bound to a ground ref (hoist-invariants
 * moves `input.kind` out of a loop that way) tests that ref.
 */
function conditionsOf(d: RuleDef): Condition[] {
  if (d.else || recordsOutput(d.body)) return [];
  const out: Condition[] = [];
  const refOfLocal = new Map<number, Expr>();
  const resolve = (e: Expr): Expr => (e.k === 'local' ? (refOfLocal.get(e.slot) ?? e) : e);
  d.body.forEach((s, at) => {
    if (s.k === 'let' && groundKey(s.expr) !== undefined) refOfLocal.set(s.slot, s.expr);
    const operands = equalityOperands(s);
    if (operands === undefined) return;
    const [a, b] = operands.map(resolve) as [Expr, Expr];
    const [ref, value] = a.k === 'const' ? [b, a.value] : b.k === 'const' ? [a, b.value] : [undefined, undefined];
    if (!ref || value === undefined || !indexable(value)) return;
    const refKey = groundKey(ref);
    if (refKey !== undefined) out.push({ ref, refKey, value, at });
  });
  return out;
}

/** A scalar, or an array of scalars (OPA's indexValue: no nested collections). */
function indexable(v: Value): boolean {
  const scalar = (x: Value): boolean => typeof x !== 'object' || x === null;
  return scalar(v) || (Array.isArray(v) && v.every(scalar));
}

/** The two sides of `a == b` (a test of the `equal` builtin) or `a = b` (unification). */
function equalityOperands(s: Stmt): [Expr, Expr] | undefined {
  if (s.k === 'equal') return [s.a, s.b];
  if (s.k === 'test' && s.expr.k === 'call' && s.expr.name === 'equal' && s.expr.args.length === 2) return [s.expr.args[0]!, s.expr.args[1]!];
  return undefined;
}

/** Whether IR holds a `print` or an `internal.test_case` call, at any depth (OPA never indexes those rules). */
function recordsOutput(node: unknown): boolean {
  return someNode(node, (n) => n.k === 'print' || (n.k === 'call' && (n.name === 'internal.test_case' || n.name === 'internal.print')));
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
