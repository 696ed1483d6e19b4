// Pass `comprehension-index`: OPA's comprehension indexing (v1/ast/compile.go
// getComprehensionIndex). An array, set or object comprehension bound by a top-level `let` of
// a rule or function body (`ks := [k | some k; v == data.items[k]]`), or that is the
// definition's value (`f(v) := [k | …]`), that refers to
// variables bound before it (`v`) only through body tests `v == expr` (expr free of
// those variables, the test before any other use of them) can be evaluated once with
// those variables unbound: each test becomes a binding of a fresh slot, the solutions
// are grouped by the fresh slots' values, and every evaluation of the comprehension
// looks the current values up (runtime/eval/compr-index.ts; the table is built on first
// use, per evaluation context). A group-by inside a loop goes from O(n²) to O(n).
// The pass only marks the comprehension (`index` on the IR node, ComprehensionIndex):
// Wasm and partial evaluation ignore the mark and evaluate it as written. An indexed
// object comprehension's members are `[key, value]` pairs, and, as in OPA, a later value
// of a key replaces an earlier one (no conflict error; compr-index.ts). Not indexed:
// comprehensions that print or contain `with`.
import type { Block, ComprehensionIndex, Expr, RuleDef, Stmt } from '../ir/ir.js';
import type { Pass } from './pass.js';
import { someNode, type IRNode } from '../ir/visit.js';

export const comprehensionIndex: Pass = {
  name: 'comprehension-index',
  run(state) {
    let next = 0;
    for (const g of state.ir!.groups) {
      for (const first of g.defs) for (let d: RuleDef | undefined = first; d; d = d.else) indexDefinition(d, () => next++);
    }
  },
  dump: (state) =>
    state.ir?.groups.flatMap((g) =>
      g.defs.flatMap((d) => [...d.body.map((s) => (s.k === 'let' ? s.expr : undefined)), d.value].flatMap((e) => (e?.k === 'compr' && e.index ? [{ path: 'data.' + g.path.join('.'), keys: e.index.keys.length }] : []))),
    ),
};

/** Mark the indexable comprehensions among a definition's top-level `let` statements. */
function indexDefinition(d: RuleDef, nextId: () => number): void {
  const bound = new Set<number>();
  collect(d.params, 'binds', bound);
  for (const s of d.body) {
    if (s.k === 'let' && s.expr.k === 'compr') {
      const ix = indexFor(s.expr, bound, d.frameSize);
      if (ix !== undefined) s.expr.index = { ...ix, id: nextId() };
    }
    collect(s, 'binds', bound);
  }
  // A comprehension as the value (`f(v) := [k | …]`; OPA moves it into the body).
  if (d.value.k === 'compr') {
    const ix = indexFor(d.value, bound, d.frameSize);
    if (ix !== undefined) d.value.index = { ...ix, id: nextId() };
  }
}

/** The index of comprehension `e` whose enclosing body has bound `bound` before it, or undefined. */
function indexFor(e: Expr & { k: 'compr' }, bound: Set<number>, frameSize: number): Omit<ComprehensionIndex, 'id'> | undefined {
  if (someNode(e, (n) => n.k === 'print' || n.k === 'with')) return undefined;
  const used = new Set<number>();
  collect([e.body, e.head, e.key], 'refs', used);
  const outer = [...used].filter((s) => bound.has(s)).sort((a, b) => a - b);
  if (outer.length === 0) return undefined;
  const fresh = new Map(outer.map((s, i) => [s, frameSize + i]));
  const tests = new Map<number, { at: number; other: Expr }>();
  for (const o of outer) {
    const at = e.body.findIndex((s) => keyTest(s, o) !== undefined);
    if (at < 0) return undefined;
    const other = keyTest(e.body[at]!, o)!;
    const otherRefs = new Set<number>();
    collect(other, 'refs', otherRefs);
    if (outer.some((x) => otherRefs.has(x))) return undefined;
    // No use of `o` before its test: the fresh slot is bound there.
    const before = new Set<number>();
    collect(e.body.slice(0, at), 'refs', before);
    if (before.has(o)) return undefined;
    tests.set(o, { at, other });
  }
  const testAt = new Map([...tests].map(([o, t]) => [t.at, o]));
  if (testAt.size !== tests.size) return undefined; // two keys tested by one statement
  const body: Block = e.body.map((s, i) => {
    const o = testAt.get(i);
    if (o !== undefined) return { k: 'let', slot: fresh.get(o)!, expr: tests.get(o)!.other } as Stmt;
    return renamed(s, fresh);
  });
  const keyTuple: Expr = { k: 'array', items: outer.map((o) => ({ k: 'local', slot: fresh.get(o)! }) as Expr) };
  const member: Expr = e.kind === 'object' ? { k: 'array', items: [renamed(e.key!, fresh), renamed(e.head, fresh)] } : renamed(e.head, fresh);
  const pairs: Expr = { k: 'compr', kind: 'array', body, head: { k: 'array', items: [keyTuple, member] }, loc: e.loc };
  return { keys: outer.map((o) => ({ k: 'local', slot: o }) as Expr), pairs, frameSize: frameSize + outer.length };
}

/** The other side of a top-level test `local o == other` (or `=`), else undefined. */
function keyTest(s: Stmt, o: number): Expr | undefined {
  let a: Expr | undefined;
  let b: Expr | undefined;
  if (s.k === 'equal') [a, b] = [s.a, s.b];
  else if (s.k === 'test' && s.expr.k === 'call' && s.expr.name === 'equal' && s.expr.args.length === 2) [a, b] = s.expr.args as [Expr, Expr];
  if (a === undefined || b === undefined) return undefined;
  const isO = (x: Expr): boolean => x.k === 'local' && x.slot === o;
  if (isO(a) && !isO(b)) return b;
  if (isO(b) && !isO(a)) return a;
  return undefined;
}

/** The slots IR below `node` reads (`refs`: locals) or binds (`binds`: `let`, `capture`, pattern binds). */
function collect(node: unknown, what: 'refs' | 'binds', out: Set<number>): void {
  someNode(node, (n) => {
    if (typeof n.slot === 'number' && (what === 'refs' ? n.k === 'local' : n.k === 'bind' || n.k === 'let' || n.k === 'capture')) out.add(n.slot);
    return false;
  });
}

/** A copy of IR `node` with reads of the slots in `fresh` renamed (constants, locations and sources shared). */
function renamed<T>(node: T, fresh: Map<number, number>): T {
  if (Array.isArray(node)) return node.map((x) => renamed(x, fresh)) as T;
  if (node === null || typeof node !== 'object') return node;
  const n = node as IRNode;
  if (n.k === 'const') return node;
  if (n.k === 'local' && typeof n.slot === 'number' && fresh.has(n.slot)) return { ...node, slot: fresh.get(n.slot)! };
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(node)) out[key] = key === 'loc' || key === 'src' || key === 'opLoc' || key === 'index' ? v : renamed(v, fresh);
  return out as T;
}
