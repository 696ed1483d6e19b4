// Partial evaluation: simplifying residual bodies (OPA's copy propagation) and
// deciding how a negation of residual bodies is written.
//
// Copy propagation: `$v = T` where `$v` is a generated var (not live: not a query
// variable, rule head var or one bound outside the body) is removed and `T` is
// written wherever `$v` was used. It is done only where it keeps the meaning:
// a `T` that may be undefined (a ref or call) is substituted only into positive
// expressions outside closures, so `not`, `every` and comprehensions never turn
// "undefined" into "true". A binding whose var is used nowhere else is dropped
// when `T` is always defined and kept (as an existence test) otherwise.
//
// Negation (`not` over residual bodies A1 … An): OPA inlines the complement when
// it is small and safe, i.e. not(A1 ∨ … ∨ An) written as the cartesian product
// of complemented expressions (at most 16 bodies), each expression using only
// vars bound outside the negation and no nested ref or call operands (the
// classic negation rewriting would change their meaning). Otherwise a support
// rule `data.partial.__notQ_I_N__` (a function of the outer vars it uses) holds
// the bodies and the residual says `not data.partial.__notQ_I_N__(vars…)`.
import type { Body, Expr, Term } from '../ast/nodes.js';
import { alwaysDefined, exprVars, termVars } from './terms.js';
import { forEachTerm, mapExpr } from '../ast/transform.js';

/** The var bound by `v = T` / `T = v` (not live, not occurring in T), with T. */
function binding(e: Expr, live: Set<string>): { v: string; t: Term } | undefined {
  if (e.negated || e.with.length > 0 || e.body.type !== 'term') return undefined;
  const c = e.body.term;
  if (c.kind !== 'call' || c.op.kind !== 'var' || c.op.name !== 'eq' || c.args.length !== 2) return undefined;
  for (const [a, b] of [[c.args[0]!, c.args[1]!], [c.args[1]!, c.args[0]!]] as const) {
    if (a.kind === 'var' && !live.has(a.name) && !termVars(b).has(a.name)) return { v: a.name, t: b };
  }
  return undefined;
}

/** A ref into data: a non-string key after it would be a store lookup (`data.a[2]` reads key "2"), not a value's. */
function dataRef(t: Term): boolean {
  return t.kind === 'ref' && t.head.kind === 'var' && t.head.name === 'data';
}

/** `v[k]` with a key that is not a string (or not known to be one). */
function nonStringKeyUse(e: Expr, v: string): boolean {
  let found = false;
  const check = (t: Term): void => {
    forEachTerm(t, (x) => {
      if (x.kind === 'ref' && x.head.kind === 'var' && x.head.name === v && x.path.length > 0 && x.path[0]!.kind !== 'string') found = true;
    });
  };
  if (e.body.type === 'term') check(e.body.term);
  return found;
}

/** Whether `v` occurs in `e` only where a possibly-undefined term may replace it. */
function safeUse(e: Expr, v: string, t?: Term): boolean {
  if (!exprVars(e).has(v)) return true;
  if (t && dataRef(t) && nonStringKeyUse(e, v)) return false;
  if (e.negated || e.with.length > 0 || e.body.type !== 'term') return false;
  let ok = true;
  const visit = (t: Term, inClosure: boolean): void => {
    switch (t.kind) {
      case 'var':
        if (t.name === v && inClosure) ok = false;
        return;
      case 'ref': visit(t.head, inClosure); t.path.forEach((p) => visit(p, inClosure)); return;
      case 'array': case 'set': t.items.forEach((x) => visit(x, inClosure)); return;
      case 'object': t.entries.forEach(([k, x]) => { visit(k, inClosure); visit(x, inClosure); }); return;
      case 'call': t.args.forEach((x) => visit(x, inClosure)); return;
      case 'arraycomp': case 'setcomp': case 'objectcomp': case 'template':
        if (termVars(t).has(v)) ok = false;
        return;
      default:
        return;
    }
  };
  visit(e.body.term, false);
  return ok;
}

/** `a.b` after substitution may be a ref whose head is a ref: flatten it. */
function flatten(t: Term): Term | undefined {
  if (t.kind !== 'ref' || t.head.kind !== 'ref') return undefined;
  const inner = (flatten(t.head) ?? t.head) as Term & { kind: 'ref' };
  return { ...t, head: inner.head, path: [...inner.path, ...t.path] };
}

function substExpr(e: Expr, v: string, t: Term): Expr {
  const out = mapExpr(e, (x) => (x.kind === 'var' && x.name === v ? t : undefined));
  return mapExpr(out, flatten);
}

/** OPA-style copy propagation over one residual body; `live` vars are never removed. */
export function copyPropagate(body: Body, live: Set<string>): Body {
  let b = body.slice();
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < b.length; i++) {
      const bd = binding(b[i]!, live);
      if (!bd) continue;
      const others = b.filter((_, j) => j !== i);
      const used = others.some((e) => exprVars(e).has(bd.v));
      if (!used) {
        if (alwaysDefined(bd.t)) {
          b = others;
          changed = true;
          break;
        }
        continue;
      }
      if (!alwaysDefined(bd.t) && !others.every((e) => safeUse(e, bd.v, bd.t))) continue;
      b = others.map((e) => substExpr(e, bd.v, bd.t));
      changed = true;
      break;
    }
  }
  return dedupe(b);
}

/**
 * A stable text of an AST node without its locations (what JSON.stringify with a
 * replacer dropping `loc` gives, bigints as strings), built directly: it runs for
 * every residual expression and query, and a replacer function per node is slow.
 */
function astKey(x: unknown): string {
  switch (typeof x) {
    case 'string':
      return JSON.stringify(x);
    case 'number':
    case 'boolean':
      return String(x);
    case 'bigint':
      return `"${x}"`;
    case 'object':
      break;
    default:
      return 'null';
  }
  if (x === null) return 'null';
  if (Array.isArray(x)) {
    let s = '[';
    for (let i = 0; i < x.length; i++) s += (i > 0 ? ',' : '') + astKey(x[i]);
    return s + ']';
  }
  // AST node fields are identifiers: no escaping needed for the keys.
  let s = '{';
  const o = x as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k === 'loc') continue;
    const v = o[k];
    if (v === undefined) continue;
    s += (s.length > 1 ? ',"' : '"') + k + '":' + astKey(v);
  }
  return s + '}';
}

/** Drops exact repeats of an expression in a body. */
function dedupe(b: Body): Body {
  if (b.length < 2) return b;
  const seen = new Set<string>();
  return b.filter((e) => {
    const k = astKey(e);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** A ref or call anywhere in a term (OPA's nestedCheckVisitor). */
function hasRefOrCall(t: Term): boolean {
  let found = false;
  forEachTerm(t, (x) => {
    if (x.kind === 'ref' || x.kind === 'call') found = true;
  });
  return found;
}

/** A term with a nested ref or call; a ref's own head is allowed, not refs/calls in its path. */
function nestedInTerm(t: Term): boolean {
  if (t.kind === 'ref') return t.path.some(hasRefOrCall);
  return hasRefOrCall(t);
}

/**
 * OPA's containsNestedRefOrCall: `a = b` may have ref operands (unification keeps them
 * whole), any other call may not (classic negation would bind them first).
 */
function nestedRefOrCall(e: Expr): boolean {
  if (e.body.type !== 'term') return true;
  const t = e.body.term;
  if (t.kind !== 'call') return nestedInTerm(t);
  if (t.op.kind === 'var' && t.op.name === 'eq' && t.args.length === 2) return t.args.some(nestedInTerm);
  return t.args.some(hasRefOrCall);
}

/** Whether not(A1 ∨ … ∨ An) can be written inline over vars `outer`. */
export function canInlineNegation(alts: Body[], outer: (v: string) => boolean): boolean {
  let size = 1;
  for (const alt of alts) {
    size *= alt.length;
    for (const e of alt) {
      if (e.with.length > 0 || e.notBody || nestedRefOrCall(e)) return false;
      for (const v of exprVars(e)) if (!outer(v)) return false;
    }
  }
  return size <= 16;
}

/** The complement of a disjunction of conjunctions, as a disjunction of conjunctions. */
export function complementProduct(alts: Body[]): Body[] {
  let out: Body[] = [[]];
  for (const alt of alts) {
    const next: Body[] = [];
    for (const prefix of out) for (const e of alt) next.push([...prefix, { ...e, negated: !e.negated }]);
    out = next;
  }
  return out;
}

/** Stable key of a body, for dropping duplicate residual queries. */
export function bodyKey(b: Body): string {
  return astKey(b);
}
