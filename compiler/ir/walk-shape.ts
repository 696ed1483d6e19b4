// What a `walk` relation's output pattern fixes, for the evaluators to hand the builtin
// (runtime/builtins/graph.ts shapedWalk), as OPA's evalWalk reads its output operand:
// `walk(x, [_, v])` needs no paths (walkNoPath); `walk(x, [["a", k], v])` only reaches
// paths of two keys, the first "a" (getOutputPath's filter). Only constant keys count
// here; a key bound at run time is "any key", which prunes less and gives the same
// solutions.
import type { Pattern, Stmt } from './ir.js';
import type { Value } from '../../runtime/value/value.js';
import type { WalkShape } from '../../runtime/builtins/graph.js';

/** The shape of relation statement `s` when it is a one-argument `walk` whose output fixes one; else undefined. */
export function walkShape(s: Stmt & { k: 'relation' }): WalkShape | undefined {
  if (s.name !== 'walk' || s.args.length !== 1 || s.out.k !== 'array' || s.out.items.length !== 2) return undefined;
  const path = s.out.items[0]!;
  if (path.k === 'wild' || (path.k === 'bind' && path.wildcard === true)) return { paths: false };
  // A path that is constant as a whole (`[["a", "b"], v]`) is planned as one value.
  if (path.k === 'value' && path.expr.k === 'const' && Array.isArray(path.expr.value)) return { prefix: path.expr.value as Value[] };
  if (path.k !== 'array') return undefined;
  return { prefix: path.items.map(groundKey) };
}

function groundKey(p: Pattern): Value | undefined {
  return p.k === 'value' && p.expr.k === 'const' ? (p.expr.value as Value) : undefined;
}
