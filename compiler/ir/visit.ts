// Read-only traversal of the IR: visit every expression of a rule definition or a
// block, depth first, including those inside patterns, `with` values and nested
// blocks (not, every, with, comprehensions). Passes that inspect expressions
// (check-types, check-recursion) use this instead of walking the IR themselves;
// `someNode` asks about node kinds anywhere below (prints, slots read or bound) for
// rule-index, comprehension-index and the JS back end's inlining.
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

/** Any IR node: an expression, statement or pattern (each has its `k`). */
export type IRNode = { k?: unknown; slot?: unknown; name?: unknown };

/**
 * Whether some IR node at or below `node` (expressions, statements and patterns, in
 * blocks at any depth) satisfies `test`: the untyped companion of the visitors above,
 * for questions about node kinds (does a body print, which slots does it read). Does
 * not look into constants' values, locations, AST sources or comprehension indexes.
 */
export function someNode(node: unknown, test: (n: IRNode) => boolean): boolean {
  if (Array.isArray(node)) return node.some((x) => someNode(x, test));
  if (node === null || typeof node !== 'object') return false;
  const n = node as IRNode;
  if (n.k === 'const') return false;
  if (test(n)) return true;
  for (const [key, v] of Object.entries(node)) if (key !== 'loc' && key !== 'src' && key !== 'opLoc' && key !== 'index' && someNode(v, test)) return true;
  return false;
}
