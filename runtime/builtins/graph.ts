// Graph builtins (OPA's topdown/walk.go and reachable.go): the `walk` relation,
// graph.reachable and graph.reachable_paths. `walk` returns every [path, value]
// pair as an array of alternative results (decl.relation); a compiled `walk` whose
// output pattern fixes the path's shape gets its own definition (shapedWalk), as OPA's
// walk filters on its output operand. Traversals are iterative and bounded by
// MAX_DEPTH so deep documents cannot overflow the stack.
import type { Value } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import type { BuiltinDef, TypeSpec } from './types.js';
import { T } from './types.js';
import { BuiltinError, operandError } from './errors.js';
import { asObject } from './args.js';

/** Deepest nesting walk and graph.reachable_paths will follow. */
export const MAX_DEPTH = 4096;

/**
 * What a `walk` call's output pattern fixes, known when it is compiled (OPA's evalWalk
 * looks at its plugged output operand the same way): `paths: false` for
 * `walk(x, [_, v])`, whose paths nobody reads (OPA's walkNoPath: every pair carries the
 * same empty path); `prefix` for `walk(x, [["a", k], v])`, the path's length and its
 * ground keys (undefined: any key). Only nodes whose path has that length can match.
 */
export type WalkShape = { paths: false } | { prefix: (Value | undefined)[] };

const NO_PATH: Value[] = [];

/**
 * All [path, value] pairs of `x`, pre-order, children in Rego order (as OPA). With a
 * `prefix` shape, as OPA's walk filter: a ground key is followed alone (no pairs when
 * the node lacks it), and only the pairs whose path has the prefix's length are made
 * (OPA also makes the deeper ones, which cannot match the pattern); with `paths:
 * false`, every pair has the same empty path and no path is built.
 */
export function walkPairs(x: Value, shape?: WalkShape): Value[] {
  const out: Value[] = [];
  const prefix = shape !== undefined && 'prefix' in shape ? shape.prefix : undefined;
  const paths = shape === undefined || 'prefix' in shape;
  // Explicit stack of [path, value, depth]; children pushed in reverse so they pop in order.
  const stack: [Value[], Value, number][] = [[NO_PATH, x, 0]];
  const push = (path: Value[], key: Value, v: Value, depth: number): void => {
    stack.push([paths ? [...path, key] : NO_PATH, v, depth]);
  };
  while (stack.length > 0) {
    const [path, v, depth] = stack.pop()!;
    if (prefix === undefined || depth === prefix.length) {
      out.push([paths ? path : NO_PATH, v]);
      if (prefix !== undefined) continue; // deeper paths are longer than the pattern's
    }
    if (depth >= MAX_DEPTH) throw new BuiltinError(`maximum nesting depth ${MAX_DEPTH} exceeded`);
    const key = prefix !== undefined && depth < prefix.length ? prefix[depth] : undefined;
    if (key !== undefined) {
      const child = childAt(v, key);
      if (child !== undefined) push(path, key, child, depth + 1);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) push(path, i, v[i]!, depth + 1);
    } else if (v instanceof RObject) {
      const es = v.entries();
      for (let i = es.length - 1; i >= 0; i--) push(path, es[i]![0], es[i]![1], depth + 1);
    } else if (v instanceof RSet) {
      const vs = v.values();
      for (let i = vs.length - 1; i >= 0; i--) push(path, vs[i]!, vs[i]!, depth + 1);
    }
  }
  return out;
}

/** The member of `v` under `key` (OPA's Term.Get: an array index, an object key, a set member). */
function childAt(v: Value, key: Value): Value | undefined {
  if (Array.isArray(v)) return typeof key === 'number' && Number.isInteger(key) && key >= 0 && key < v.length ? v[key] : undefined;
  if (v instanceof RObject) return v.get(key);
  if (v instanceof RSet) return v.has(key) ? key : undefined;
  return undefined;
}

/** Builtin `walk` answering for output pattern `shape` (the compiled relation's own definition). */
export function shapedWalk(def: BuiltinDef, shape: WalkShape): BuiltinDef {
  return def.impl === walkImpl ? { decl: def.decl, impl: ([x]) => walkPairs(x!, shape) } : def;
}

const walkImpl: BuiltinDef['impl'] = ([x]) => walkPairs(x!);

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
    impl: walkImpl,
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
