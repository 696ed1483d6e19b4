// OPA's classic treatment of `not` (RewriteExprTerms + RewriteDynamicTerms): before
// a negated expression runs, the compiler binds its dynamic operands (refs, nested
// calls) to generated variables in separate, non-negated expressions. So
//   not f(input.missing)         → __local0__ = input.missing; not f(__local0__)
//   not input.x != "a"           → __local0__ = input.x; not __local0__ != "a"
//   not data.p[input.y]          → __local0__ = input.y; not data.p[__local0__]
// and an undefined operand makes the whole expression undefined, not true. The
// exceptions follow OPA: a bare ref (`not input.x`) and a ref operand of `=` are
// kept whole (only refs and calls inside their keys are bound first); in modules
// `==` counts as `=` (RewriteEquals runs first), so `not input.x == "a"` is true
// when input.x is undefined, while in an ad-hoc query it is undefined; and
// comprehensions, vars and scalars stay in place. Modules that import
// `future.keywords.not` or `rego.v2` negate the whole expression instead
// (Expr.wholeNegation). An operand that reads a variable not yet bound stays
// inside: OPA rejects it as unsafe before rewriting, and Regent keeps its
// iteration inside the negation.
import type { Expr, Term, VarTerm } from '../ast/nodes.js';
import type { Block } from '../ir/ir.js';
import { callName, isAssign, isEq } from './analyze.js';
import type { TermPlanner } from './terms.js';

let generated = 0;

/** Bind the dynamic operands of a negated expression before it; returns the rewritten expression. */
export function hoistNegatedOperands(e: Expr, terms: TermPlanner, out: Block, equalIsUnify: boolean): Expr {
  const b = e.body;
  if (b.type !== 'term') return e;
  const bind = (t: Term): Term => {
    if (!terms.evaluable(t)) return t;
    const v: VarTerm = { kind: 'var', name: `$not${generated++}`, loc: t.loc };
    terms.bindValue(v.name, t, out);
    return v;
  };
  // rewriteDynamicsOne / expandExprTerm: refs and calls are bound, containers recursed.
  const operand = (t: Term): Term => {
    switch (t.kind) {
      case 'ref':
      case 'call':
        return bind(t);
      case 'array':
      case 'set':
        return { ...t, items: t.items.map(operand) };
      case 'object':
        return { ...t, entries: t.entries.map(([k, v]) => [operand(k), operand(v)] as [Term, Term]) };
      default:
        return t;
    }
  };
  // rewriteDynamicsInTerm: a ref stays, its keys are bound; a call is bound.
  const kept = (t: Term): Term => {
    if (t.kind === 'ref') return { ...t, head: t.head.kind === 'call' ? bind(t.head) : t.head, path: t.path.map(operand) };
    if (t.kind === 'arraycomp' || t.kind === 'setcomp' || t.kind === 'objectcomp') return t;
    return operand(t);
  };
  const term = b.term;
  let rewritten: Term;
  const unify = isEq(term) || isAssign(term) || (equalIsUnify && callName(term) === 'equal' && term.kind === 'call' && term.args.length === 2);
  if (term.kind === 'call' && unify) rewritten = { ...term, args: term.args.map(kept) };
  else if (term.kind === 'call') rewritten = { ...term, args: term.args.map(operand) };
  else rewritten = kept(term);
  return rewritten === term ? e : { ...e, body: { type: 'term', term: rewritten } };
}
