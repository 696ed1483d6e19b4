// Expression depth check, run by the parser entry points on every parsed module,
// query and term. The parser itself only recurses on bracketed nesting (bounded by
// MAX_NESTING_DEPTH), but a flat operator chain (`1 == 1 == … `, left associative)
// or a long ref (`input.a.a.…`, `x[0][0]…`) still becomes a deep tree: every later
// stage (the passes, the planner, the IR visitors, the JS back ends, V8 compiling
// the generated source) walks it recursively. This walk is iterative and rejects a
// tree deeper than MAX_EXPR_DEPTH with a located `rego_parse_error`, so no later
// stage can overflow the stack on user input.
//
// Depth counts one level per AST node on the path from the root, plus one per ref
// path step (a ref `x.a.b.c` becomes three nested lookups in the IR).
import type { Body, Location, Module, Node } from '../ast/nodes.js';
import { children } from '../ast/walk.js';
import { compileError, parseError, RegoErrors, type RegoError } from '../source/diagnostics.js';
import { MAX_EXPR_DEPTH } from '../source/limits.js';

/** One node on the explicit post-order stack: its children and the next one to visit. */
interface Frame {
  node: Node;
  kids: Node[];
  next: number;
  /** Largest height among the children visited so far. */
  max: number;
}

/** The height of a subtree whose children's largest height is `childMax`. */
function heightOf(n: Node, childMax: number): number {
  if ('kind' in n && n.kind === 'ref') return childMax + n.path.length;
  return childMax + 1;
}

/**
 * The deepest point of `root` when its height exceeds `limit`: the first node (in
 * post order) whose subtree is deeper than the limit, i.e. the innermost node that
 * crosses it. Undefined when the tree is within the limit.
 */
export function findTooDeep(root: Node | Body, limit: number = MAX_EXPR_DEPTH): { loc?: Location; height: number } | undefined {
  const m = measure(root, limit);
  return m.height > limit ? m : undefined;
}

/** The height of a tree (stopping early at the first node deeper than `limit`). */
export function treeHeight(root: Node | Body): number {
  return measure(root, Infinity).height;
}

function measure(root: Node | Body, limit: number): { loc?: Location; height: number } {
  const roots: Node[] = Array.isArray(root) ? root : [root];
  let height = 0;
  for (const r of roots) {
    const stack: Frame[] = [{ node: r, kids: children(r), next: 0, max: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next < top.kids.length) {
        const kid = top.kids[top.next++]!;
        stack.push({ node: kid, kids: children(kid), next: 0, max: 0 });
        continue;
      }
      stack.pop();
      const h = heightOf(top.node, top.max);
      if (h > limit) return { loc: locOf(top.node) ?? locOfStack(stack), height: h };
      const parent = stack[stack.length - 1];
      if (parent && h > parent.max) parent.max = h;
      if (!parent && h > height) height = h;
    }
  }
  return { height };
}

function locOf(n: Node): Location | undefined {
  return (n as { loc?: Location }).loc;
}

function locOfStack(stack: Frame[]): Location | undefined {
  for (let i = stack.length - 1; i >= 0; i--) {
    const l = locOf(stack[i]!.node);
    if (l) return l;
  }
  return undefined;
}

/** The `rego_parse_error` for a tree deeper than the limit, or undefined. */
export function depthError(root: Node | Body, limit: number = MAX_EXPR_DEPTH): RegoError | undefined {
  const hit = findTooDeep(root, limit);
  if (!hit) return undefined;
  return parseError(`max expression depth ${limit} exceeded`, hit.loc);
}

/**
 * The best location for a failure somewhere in compiling `modules` when nothing
 * more precise is known (a stack overflow in a pass): the deepest rule, or the
 * first rule of the largest module.
 */
export function deepestRuleLocation(modules: readonly Module[]): Location | undefined {
  let best: Location | undefined;
  let bestHeight = -1;
  for (const m of modules) {
    for (const r of m.rules) {
      const h = treeHeight(r);
      if (h > bestHeight) {
        bestHeight = h;
        best = r.loc;
      }
    }
  }
  return best;
}

/**
 * Turns a stack overflow (RangeError) escaping a compile stage into a located,
 * typed error; anything else is rethrown unchanged.
 */
export function stackOverflowError(e: unknown, stage: string, where: () => Location | undefined): unknown {
  if (!(e instanceof RangeError)) return e;
  let loc: Location | undefined;
  try {
    loc = where();
  } catch {
    loc = undefined;
  }
  return new RegoErrors([compileError(`${stage}: maximum depth exceeded (policy too deeply nested)`, loc)]);
}
