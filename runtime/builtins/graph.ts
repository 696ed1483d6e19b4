// Graph builtins (OPA's topdown/walk.go and reachable.go): the `walk` relation,
// graph.reachable and graph.reachable_paths. `walk` returns every [path, value]
// pair as an array of alternative results (decl.relation). Traversals are
// iterative and bounded by MAX_DEPTH so deep documents cannot overflow the stack.
import type { Value } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import type { BuiltinDef, TypeSpec } from './types.js';
import { T } from './types.js';
import { BuiltinError, operandError } from './errors.js';
import { asObject } from './args.js';

/** Deepest nesting walk and graph.reachable_paths will follow. */
export const MAX_DEPTH = 4096;

/** All [path, value] pairs of `x`, pre-order, children in Rego order (as OPA). */
export function walkPairs(x: Value): Value[] {
  const out: Value[] = [];
  // Explicit stack of [path, value]; children pushed in reverse so they pop in order.
  const stack: [Value[], Value][] = [[[], x]];
  while (stack.length > 0) {
    const [path, v] = stack.pop()!;
    out.push([path, v]);
    if (path.length >= MAX_DEPTH) throw new BuiltinError(`maximum nesting depth ${MAX_DEPTH} exceeded`);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([[...path, i], v[i]!]);
    } else if (v instanceof RObject) {
      const es = v.entries();
      for (let i = es.length - 1; i >= 0; i--) stack.push([[...path, es[i]![0]], es[i]![1]]);
    } else if (v instanceof RSet) {
      const vs = v.values();
      for (let i = vs.length - 1; i >= 0; i--) stack.push([[...path, vs[i]!], vs[i]!]);
    }
  }
  return out;
}

/** Members of an edge collection (array or set); anything else has none. */
function vertices(v: Value | undefined): Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof RSet) return v.values();
  return [];
}

function initialVertices(v: Value): Value[] {
  if (Array.isArray(v) || v instanceof RSet) return vertices(v);
  throw operandError(2, '{array, set}', v);
}

export function reachable(graph: RObject, initial: Value[]): RSet {
  const reached = new RSet();
  const queue = [...initial];
  for (let qi = 0; qi < queue.length; qi++) {
    const node = queue[qi]!;
    const edges = graph.get(node);
    if (edges === undefined) continue;
    for (const nb of vertices(edges)) if (!reached.has(nb)) queue.push(nb);
    reached.add(node);
  }
  return reached;
}

/**
 * OPA's pathBuilder, iteratively: every maximal path from `start`, stopping at
 * leaves (no edges), at nodes missing from the graph (left out of the path) and
 * at cycles (the path up to the repeated node).
 */
function pathsFrom(graph: RObject, first: Value, start: Value, result: RSet): void {
  type Frame = { node: Value; path: Value[]; seen: RSet };
  const stack: Frame[] = [{ node: start, path: [first], seen: RSet.of([first]) }];
  while (stack.length > 0) {
    const { node, path, seen } = stack.pop()!;
    const edges = graph.get(node);
    if (edges === undefined) {
      result.add(path);
      continue;
    }
    const here = [...path, node];
    if (here.length > MAX_DEPTH) throw new BuiltinError(`maximum path length ${MAX_DEPTH} exceeded`);
    const nbs = vertices(edges);
    if (nbs.length === 0) {
      result.add(here);
      continue;
    }
    const seenHere = seen.clone().add(node);
    for (let i = nbs.length - 1; i >= 0; i--) {
      const nb = nbs[i]!;
      if (seenHere.has(nb)) result.add(here);
      else stack.push({ node: nb, path: here, seen: seenHere });
    }
  }
}

export function reachablePaths(graph: RObject, initial: Value[]): RSet {
  const result = new RSet();
  for (const node of initial) {
    const edges = graph.get(node);
    if (edges === undefined) continue;
    const nbs = vertices(edges);
    if (nbs.length === 0) result.add([node]);
    else for (const nb of nbs) pathsFrom(graph, node, nb, result);
  }
  return result;
}

const graphArg: TypeSpec = T.objectOf(T.any, T.anyOf(T.setOf(T.any), T.arrayOf(T.any)));
const initialArg: TypeSpec = T.anyOf(T.setOf(T.any), T.arrayOf(T.any));

export const builtins: BuiltinDef[] = [
  {
    decl: {
      name: 'walk',
      args: [T.any],
      result: T.tuple(T.arrayOf(T.any), T.any),
      relation: true,
      categories: ['graph'],
    },
    impl: ([x]) => walkPairs(x!),
  },
  {
    decl: { name: 'graph.reachable', args: [graphArg, initialArg], result: T.setOf(T.any) },
    impl: ([g, init]) => {
      const graph = asObject(g!, 1);
      return reachable(graph, initialVertices(init!));
    },
  },
  {
    decl: { name: 'graph.reachable_paths', args: [graphArg, initialArg], result: T.setOf(T.arrayOf(T.any)) },
    impl: ([g, init]) => {
      const graph = asObject(g!, 1);
      return reachablePaths(graph, initialVertices(init!));
    },
  },
];
