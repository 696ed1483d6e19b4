// Read-only traversal of the IR: visit every expression of a rule definition or a
// block, depth first, including those inside patterns, `with` values and nested
// blocks (not, every, with, comprehensions). Passes that inspect expressions
// (check-types, check-recursion) use this instead of walking the IR themselves.
import type { Block, Expr, Pattern, RuleDef, Stmt } from './ir.js';

export type ExprVisitor = (e: Expr) => void;

export function visitDef(d: RuleDef, fn: ExprVisitor): void {
  d.params.forEach((p) => visitPattern(p, fn));
  visitBlock(d.body, fn);
  d.keys.forEach((k) => visitExpr(k, fn));
  visitExpr(d.value, fn);
  if (d.else) visitDef(d.else, fn);
}

export function visitBlock(b: Block, fn: ExprVisitor): void {
  for (const s of b) visitStmt(s, fn);
}

function visitStmt(s: Stmt, fn: ExprVisitor): void {
  switch (s.k) {
    case 'let':
    case 'test':
    case 'capture':
      return visitExpr(s.expr, fn);
    case 'equal':
      visitExpr(s.a, fn);
      return visitExpr(s.b, fn);
    case 'match':
      visitPattern(s.pattern, fn);
      return visitExpr(s.expr, fn);
    case 'scan':
      visitExpr(s.source, fn);
      visitPattern(s.key, fn);
      return visitPattern(s.value, fn);
    case 'relation':
      s.args.forEach((a) => visitExpr(a, fn));
      return visitPattern(s.out, fn);
    case 'not':
      return visitBlock(s.body, fn);
    case 'every':
      visitExpr(s.domain, fn);
      visitPattern(s.key, fn);
      visitPattern(s.value, fn);
      return visitBlock(s.body, fn);
    case 'with':
      for (const m of s.mods) if (!('k' in m.value && m.value.k === 'fnref')) visitExpr(m.value as Expr, fn);
      return visitBlock(s.body, fn);
    case 'print':
      return s.args.forEach((a) => visitExpr(a, fn));
  }
}

function visitPattern(p: Pattern, fn: ExprVisitor): void {
  if (p.k === 'value') visitExpr(p.expr, fn);
  else if (p.k === 'array') p.items.forEach((x) => visitPattern(x, fn));
  else if (p.k === 'object') p.entries.forEach(([k, v]) => (visitExpr(k, fn), visitPattern(v, fn)));
}

export function visitExpr(e: Expr, fn: ExprVisitor): void {
  fn(e);
  switch (e.k) {
    case 'dot':
      visitExpr(e.base, fn);
      return visitExpr(e.key, fn);
    case 'vdocdot':
      return visitExpr(e.key, fn);
    case 'call':
    case 'callfn':
      return e.args.forEach((a) => visitExpr(a, fn));
    case 'array':
    case 'set':
      return e.items.forEach((a) => visitExpr(a, fn));
    case 'object':
      return e.entries.forEach(([k, v]) => (visitExpr(k, fn), visitExpr(v, fn)));
    case 'compr':
      visitBlock(e.body, fn);
      visitExpr(e.head, fn);
      if (e.key) visitExpr(e.key, fn);
      return;
    case 'template':
      return e.parts.forEach((p) => typeof p !== 'string' && visitExpr(p, fn));
    default:
      return;
  }
}
