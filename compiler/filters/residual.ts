// Residual bodies as the checks and the translator see them, two rewritings of
// what partial evaluation returns.
//
// 1. normalizeResidual: a variable bound to a column by unification and used
//    elsewhere in the same body is replaced by the column.
//      $x = input.fruits.price; not gt($x, 20)   →   not gt(input.fruits.price, 20)
//    Partial evaluators write this shape for `not input.t.c > 20` (operands are
//    bound before the negation, OPA's classic semantics) and for values reused
//    across expressions; OPA's own residual names the column directly, which is
//    what the fragment checks and the translation expect. The binding itself is
//    dropped: it only says that the column is defined, and every SQL comparison on
//    the column already fails for NULL, so the filter selects the same rows with or
//    without it. A binding whose variable is used nowhere else is kept (it is the
//    existence check `input.t.c = _`, IS NOT NULL).
//
// 2. locateResidual: source locations for residual expressions that carry none.
//    OPA's partial evaluator keeps the policy's locations on what it saves, and the
//    fragment errors point at them (the operator of `x > y`, the start of the
//    expression, the nested call). A residual built without locations (row 0) is
//    matched back to the policy: the expressions of the rules the query reaches
//    (hints.ts) are indexed by shape, and each unlocated residual expression takes
//    the location of the best match:
//      * calls: same operator (`==` and `=` alike), most operands with the same
//        text (sets and objects compared sorted); the operator's location comes
//        along, and nested calls are found by their whole text;
//      * bare refs: the same ref, `data.partial.…` read as `data.…`;
//      * `every`: the same domain; `not` over a support rule: the first negation.
//    Only locations are filled in (on copies), and an expression with a location
//    of its own keeps it.
import type { Body, CallTerm, Expr, Module, Term } from '../ast/nodes.js';
import type { Location } from '../source/location.js';
import { reachableRules } from './hints.js';
import { exprCall, filterOp, opName, refRootedAt, refText, termText } from './term-text.js';

// ---------------------------------------------------------------- 1. column-bound variables
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

// ---------------------------------------------------------------- 2. locations
interface SourceExpr {
  e: Expr;
  call?: CallTerm;
  op?: string;
  args?: string[];
}

export interface LocationIndex {
  exprs: SourceExpr[];
  /** Source call terms by their normalized text (nested calls). */
  calls: Map<string, CallTerm>;
}

const known = (l: Location | undefined): boolean => l !== undefined && l.row > 0;

/** Text with set members and object entries sorted, so literal order does not matter. */
function keyText(t: Term): string {
  switch (t.kind) {
    case 'set': return `{${t.items.map(keyText).sort().join(', ')}}`;
    case 'object': return `{${t.entries.map(([k, v]) => `${keyText(k)}: ${keyText(v)}`).sort().join(', ')}}`;
    case 'array': return `[${t.items.map(keyText).join(', ')}]`;
    case 'call': return `${opName(t)}(${t.args.map(keyText).join(', ')})`;
    case 'ref': return refText(t).replace(/^data\.partial\./, 'data.');
    default: return termText(t);
  }
}

function collectCalls(t: Term, out: Map<string, CallTerm>): void {
  if (t.kind === 'call') {
    const k = keyText(t);
    if (!out.has(k)) out.set(k, t);
    t.args.forEach((a) => collectCalls(a, out));
  } else if (t.kind === 'array' || t.kind === 'set') t.items.forEach((x) => collectCalls(x, out));
  else if (t.kind === 'object') t.entries.forEach(([k, v]) => { collectCalls(k, out); collectCalls(v, out); });
}

/** Index the expressions of the rules the query at `path` reaches. */
export function locationIndex(modules: readonly Module[], path: string[]): LocationIndex {
  const exprs: SourceExpr[] = [];
  const calls = new Map<string, CallTerm>();
  const add = (body: Body): void => {
    for (const e of body) {
      const call = exprCall(e);
      exprs.push(call ? { e, call, op: filterOp(call), args: call.args.map(keyText) } : { e });
      if (e.body.type === 'term') collectCalls(e.body.term, calls);
      if (e.body.type === 'every') add(e.body.body);
    }
  };
  for (const r of reachableRules(modules, path)) add(r.body);
  return { exprs, calls };
}

function bestCall(index: LocationIndex, call: CallTerm, negated: boolean): SourceExpr | undefined {
  const op = filterOp(call);
  const args = call.args.map(keyText);
  let best: SourceExpr | undefined;
  let bestScore = -1;
  for (const s of index.exprs) {
    if (s.op !== op || !s.args) continue;
    let score = s.args.filter((a, i) => a === args[i]).length * 2 + (s.e.negated === negated ? 1 : 0);
    if (s.args.length === args.length) score += 1;
    if (score > bestScore) {
      best = s;
      bestScore = score;
    }
  }
  return best;
}

/** A copy of the call with locations from `src` and nested calls from the index. */
function locateCall(call: CallTerm, src: CallTerm | undefined, index: LocationIndex): CallTerm {
  const args = call.args.map((a, i) => locateTerm(a, src?.args[i], index));
  const op = known(call.op.loc) || !src ? call.op : { ...call.op, loc: src.op.loc };
  return { ...call, op, args, loc: known(call.loc) || !src ? call.loc : src.loc };
}

function locateTerm(t: Term, src: Term | undefined, index: LocationIndex): Term {
  if (t.kind === 'call') return locateCall(t, index.calls.get(keyText(t)) ?? (src?.kind === 'call' ? src : undefined), index);
  if (known(t.loc) || !src) return t;
  if (t.kind === 'ref') return { ...t, loc: src.loc, path: t.path.map((p, i) => (known(p.loc) ? p : { ...p, loc: i === t.path.length - 1 ? src.loc : p.loc })) };
  return { ...t, loc: src.loc } as Term;
}

function locateExpr(e: Expr, index: LocationIndex): Expr {
  if (known(e.loc)) return e;
  const b = e.body;
  const call = exprCall(e);
  if (call) {
    const src = bestCall(index, call, e.negated);
    if (!src) return e;
    const located = locateCall(call, src.call, index);
    return { ...e, loc: src.e.negated === e.negated ? src.e.loc : src.call!.loc, body: { type: 'term', term: located } };
  }
  if (e.negated) {
    const src = index.exprs.find((s) => s.e.negated);
    return src ? { ...e, loc: src.e.loc } : e;
  }
  if (b.type === 'every') {
    const d = keyText(b.domain);
    const src = index.exprs.find((s) => s.e.body.type === 'every' && keyText(s.e.body.domain) === d);
    return src ? { ...e, loc: src.e.loc } : e;
  }
  if (b.type === 'term' && b.term.kind === 'ref') {
    const k = keyText(b.term);
    const src = index.exprs.find((s) => s.e.body.type === 'term' && s.e.body.term.kind === 'ref' && keyText(s.e.body.term) === k);
    if (!src) return e;
    return { ...e, loc: src.e.loc, body: { type: 'term', term: locateTerm(b.term, (src.e.body as { term: Term }).term, index) } };
  }
  return e;
}

/** The residual bodies with locations filled in where they had none. */
export function locateResidual(queries: Body[], index: LocationIndex): Body[] {
  return queries.map((body) => body.map((e) => locateExpr(e, index)));
}
