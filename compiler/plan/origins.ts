// Which source term an IR value expression was planned from (TermPlanner.value), kept
// for refs, calls and comprehensions only. The reference interpreter, when it traces,
// logs the values those expressions take while one source expression is evaluated, so
// a failing expression can show them (`regent test --var-values`, as OPA shows the
// values of the refs, calls and comprehensions in its failure line). A weak map: the IR
// is not changed, and a pass that rebuilds an expression simply loses its origin.
import type { Term } from '../ast/nodes.js';
import type { Expr } from '../ir/ir.js';

const ORIGINS = new WeakMap<Expr, Term>();

/** Remember that `e` was planned from `t` (a ref, call or comprehension). */
export function noteOrigin(e: Expr, t: Term): void {
  if (t.kind === 'ref' || t.kind === 'call' || t.kind === 'arraycomp' || t.kind === 'setcomp' || t.kind === 'objectcomp') ORIGINS.set(e, t);
}

/** The source term `e` was planned from, if it is a ref, call or comprehension. */
export function originOf(e: Expr): Term | undefined {
  return ORIGINS.get(e);
}

/** Give a rebuilt expression (a pass's copy of `from`) the origin of the one it replaces. */
export function keepOrigin<E extends Expr>(from: Expr, to: E): E {
  const t = ORIGINS.get(from);
  if (t !== undefined && to !== from) ORIGINS.set(to, t);
  return to;
}
