// Source locations for residual expressions that carry none. OPA's partial
// evaluator keeps the policy's locations on what it saves, and the fragment
// errors point at them (the operator of `x > y`, the start of the expression, the
// nested call). A residual built without locations (row 0) is matched back to the
// policy: the expressions of the rules the query reaches (hints.ts `reachable`)
// are indexed by shape, and each unlocated residual expression takes the
// location of the best match:
//   * calls: same operator (`==` and `=` alike), most operands with the same text
//     (sets and objects compared sorted); the operator's location comes along, and
//     nested calls are found by their whole text;
//   * bare refs: the same ref, `data.partial.…` read as `data.…`;
//   * `every`: the same domain; `not` over a support rule: the first negation.
// Only locations are filled in (on copies); nothing else about the residual changes,
// and an expression with a location of its own keeps it.
import type { Body, CallTerm, Expr, Module, Term } from '../ast/nodes.js';
import type { Location } from '../source/location.js';
import { reachableRules } from './hints.js';
import { exprCall, filterOp, opName, refText, termText } from './term-text.js';

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
