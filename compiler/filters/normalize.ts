// One rewriting of residual bodies before the checks: a variable bound to a column
// by unification and used elsewhere in the same body is replaced by the column.
//   $x = input.fruits.price; not gt($x, 20)   →   not gt(input.fruits.price, 20)
// Partial evaluators write this shape for `not input.t.c > 20` (operands are bound
// before the negation, OPA's classic semantics) and for values reused across
// expressions. OPA's own residual for such policies names the column directly,
// which is what the fragment checks and the translation expect. The binding
// itself is dropped: it only says that the column is defined, and every SQL
// comparison on the column already fails for NULL, so the filter selects the
// same rows with or without it. A binding whose variable is used nowhere else is
// kept (it is the existence check `input.t.c = _`, IS NOT NULL).
import type { Body, Expr, Term } from '../ast/nodes.js';
import { exprCall, filterOp, refRootedAt } from './term-text.js';

/** `v = input.t.c` (either order, not negated, no `with`): the var name and the ref. */
function columnBinding(e: Expr): { v: string; ref: Term } | undefined {
  if (e.negated || e.with.length > 0) return undefined;
  const call = exprCall(e);
  if (!call || filterOp(call) !== 'eq' || call.args.length !== 2) return undefined;
  const [a, b] = call.args as [Term, Term];
  if (a.kind === 'var' && !a.wildcard && refRootedAt(b, 'input')) return { v: a.name, ref: b };
  if (b.kind === 'var' && !b.wildcard && refRootedAt(a, 'input')) return { v: b.name, ref: a };
  return undefined;
}

function countVar(t: Term, v: string): number {
  switch (t.kind) {
    case 'var': return t.name === v ? 1 : 0;
    case 'ref': return countVar(t.head, v) + t.path.reduce((n, p) => n + countVar(p, v), 0);
    case 'call': return t.args.reduce((n, a) => n + countVar(a, v), 0);
    case 'array': case 'set': return t.items.reduce((n, x) => n + countVar(x, v), 0);
    case 'object': return t.entries.reduce((n, [k, x]) => n + countVar(k, v) + countVar(x, v), 0);
    default: return 0;
  }
}

function exprUses(e: Expr, v: string): number {
  const b = e.body;
  if (b.type === 'term') return countVar(b.term, v);
  if (b.type === 'every') return countVar(b.domain, v) + b.body.reduce((n, x) => n + exprUses(x, v), 0) + 1;
  if (b.type === 'somein') return countVar(b.collection, v) + 1;
  return 1;
}

function substitute(t: Term, v: string, by: Term): Term {
  switch (t.kind) {
    case 'var': return t.name === v ? by : t;
    case 'call': return { ...t, args: t.args.map((a) => substitute(a, v, by)) };
    case 'array': return { ...t, items: t.items.map((x) => substitute(x, v, by)) };
    case 'set': return { ...t, items: t.items.map((x) => substitute(x, v, by)) };
    case 'object': return { ...t, entries: t.entries.map(([k, x]) => [substitute(k, v, by), substitute(x, v, by)] as [Term, Term]) };
    default: return t;
  }
}

/** Bodies with column-bound variables replaced by their columns (see the header). */
export function normalizeResidual(queries: Body[]): Body[] {
  return queries.map((body) => {
    let out = body;
    for (;;) {
      const i = out.findIndex((e) => {
        const b = columnBinding(e);
        if (!b) return false;
        const bindings = out.filter((x) => columnBinding(x)?.v === b.v).length;
        const uses = out.reduce((n, x) => n + (x === e ? 0 : exprUses(x, b.v)), 0);
        return bindings === 1 && uses > 0 && out.every((x) => x === e || x.body.type === 'term');
      });
      if (i < 0) return out;
      const { v, ref } = columnBinding(out[i]!)!;
      out = out.filter((_, j) => j !== i).map((e) => (e.body.type === 'term' ? { ...e, body: { type: 'term' as const, term: substitute(e.body.term, v, ref) } } : e));
    }
  });
}
