// Generic AST traversal keyed by node `kind`: `children(node)` lists a node's direct
// child nodes in source order; `walk` / `walkTerms` visit a tree depth-first.
// Annotations and comments are not traversed (they hold no terms).
import type { Body, Expr, Node, Rule, RuleHead, Term } from './nodes.js';

function exprChildren(e: Expr): Node[] {
  const out: Node[] = [];
  const b = e.body;
  switch (b.type) {
    case 'term': out.push(b.term); break;
    case 'some': out.push(...b.vars); break;
    case 'somein':
      if (b.key) out.push(b.key);
      out.push(b.value, b.collection);
      break;
    case 'every':
      if (b.key) out.push(b.key);
      out.push(b.value, b.domain, ...b.body);
      break;
  }
  if (e.notBody) out.push(...e.notBody);
  out.push(...e.with);
  return out;
}

function ruleChildren(r: Rule): Node[] {
  const out: Node[] = [r.head, ...r.body];
  if (r.else) out.push(r.else);
  return out;
}

function headChildren(h: RuleHead): Node[] {
  const out: Node[] = [...h.ref];
  if (h.args) out.push(...h.args);
  if (h.key) out.push(h.key);
  if (h.value) out.push(h.value);
  return out;
}

/** The name of a node's kind (`head` for rule heads, which have no `kind`). */
export function kindOf(n: Node): string {
  return 'kind' in n ? n.kind : 'head';
}

/** The direct children of a node, in source order. */
export function children(node: Node): Node[] {
  if (!('kind' in node)) return headChildren(node);
  switch (node.kind) {
    case 'null': case 'boolean': case 'number': case 'string': case 'var':
      return [];
    case 'ref': return [node.head, ...node.path];
    case 'array': case 'set': return node.items;
    case 'object': return node.entries.flat();
    case 'arraycomp': case 'setcomp': return [node.head, ...node.body];
    case 'objectcomp': return [node.key, node.value, ...node.body];
    case 'call': return [node.op, ...node.args];
    case 'template': {
      const out: Node[] = [];
      node.parts.forEach((p, i) => {
        if (typeof p !== 'string') out.push(p);
        const ws = node.withs?.[i];
        if (ws) out.push(...ws);
      });
      return out;
    }
    case 'expr': return exprChildren(node);
    case 'with': return [node.target, node.value];
    case 'rule': return ruleChildren(node);
    case 'package': return node.path;
    case 'import': return [node.path];
    case 'module': return [node.package, ...node.imports, ...node.rules];
  }
}

/**
 * Depth-first pre-order walk over nodes. Return `false` from `fn` to skip the
 * children of that node.
 */
export function walk(node: Node | Body, fn: (n: Node) => boolean | void): void {
  const stack: Node[] = Array.isArray(node) ? [...node].reverse() : [node];
  while (stack.length) {
    const n = stack.pop()!;
    if (fn(n) === false) continue;
    const cs = children(n);
    for (let i = cs.length - 1; i >= 0; i--) stack.push(cs[i]!);
  }
}

const TERM_KINDS = new Set([
  'null', 'boolean', 'number', 'string', 'var', 'ref', 'array', 'object', 'set',
  'arraycomp', 'setcomp', 'objectcomp', 'call', 'template',
]);

export function isTerm(n: Node): n is Term {
  return 'kind' in n && TERM_KINDS.has((n as { kind: string }).kind);
}

/** Visit every term under `node` (pre-order). Return `false` to skip a term's children. */
export function walkTerms(node: Node | Body, fn: (t: Term) => boolean | void): void {
  walk(node, (n) => (isTerm(n) ? fn(n) : undefined));
}

/** OPA's ValueName of a term (`arraycomprehension`, `templatestring`, `ref` …), as its error messages name it. */
export function valueName(t: Term): string {
  switch (t.kind) {
    case 'arraycomp': return 'arraycomprehension';
    case 'setcomp': return 'setcomprehension';
    case 'objectcomp': return 'objectcomprehension';
    case 'template': return 'templatestring';
    default: return t.kind;
  }
}
