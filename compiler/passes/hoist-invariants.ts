// Pass `hoist-invariants`: loop-invariant lookups move out of iterations.
// In a block, a statement after the first iteration (scan, relation, every) runs
// once per solution. Sub-expressions of it that read only `input`, base documents
// and constants (dots over those, no calls, no rule evaluation, no locals) give
// the same value every time, so they are computed once, in a `let` just before
// the first iteration. This cannot change results: such lookups never raise
// errors, and if one is undefined the block has no solutions either way (print's
// arguments excepted: an undefined one prints `<undefined>`, so print is left alone).
import { keepOrigin } from '../plan/origins.js';
import type { Block, Expr, PolicyIR, QueryPlan, RuleDef, Stmt } from '../ir/ir.js';
import type { Pass } from './pass.js';

export const hoistInvariants: Pass = {
  name: 'hoist-invariants',
  run(state) {
    const ir: PolicyIR = state.ir!;
    for (const g of ir.groups) for (const d of g.defs) hoistDef(d);
  },
};

function hoistDef(d: RuleDef): void {
  const frame = { size: d.frameSize };
  d.body = hoistBlock(d.body, frame);
  d.frameSize = frame.size;
  if (d.else) hoistDef(d.else);
}

/** Hoist within a query plan (used by prepare()). */
export function hoistQuery(q: QueryPlan): QueryPlan {
  const frame = { size: q.frameSize };
  const body = hoistBlock(q.body, frame);
  return { ...q, body, frameSize: frame.size };
}

/** An expression that is the same on every iteration: input, base data, constants. */
function invariant(e: Expr): boolean {
  switch (e.k) {
    case 'const':
    case 'input':
    case 'base':
      return true;
    case 'dot':
      return invariant(e.base) && invariant(e.key);
    default:
      return false;
  }
}

/** Worth a slot: a lookup, not a bare constant or input. */
function worthHoisting(e: Expr): boolean {
  return (e.k === 'dot' || e.k === 'base') && invariant(e);
}

function hoistBlock(block: Block, frame: { size: number }): Block {
  const body = block.map((s) => hoistNested(s, frame));
  const first = body.findIndex((s) => s.k === 'scan' || s.k === 'relation' || s.k === 'every');
  if (first < 0) return body;
  const hoisted = new Map<string, { slot: number; expr: Expr }>();
  const replace = (e: Expr): Expr => {
    if (worthHoisting(e)) {
      const key = exprKey(e);
      if (key !== undefined) {
        let h = hoisted.get(key);
        if (!h) {
          h = { slot: frame.size++, expr: e };
          hoisted.set(key, h);
        }
        return { k: 'local', slot: h.slot };
      }
    }
    return mapExpr(e, replace);
  };
  // print() takes undefined arguments (`<undefined>`), so its lookups stay in place.
  const tail = body.slice(first + 1).map((s) => (s.k === 'print' ? s : mapStmtExprs(s, replace)));
  if (hoisted.size === 0) return body;
  const lets: Stmt[] = [...hoisted.values()].map((h) => ({ k: 'let', slot: h.slot, expr: h.expr }));
  return [...body.slice(0, first), ...lets, body[first]!, ...tail];
}

/** Recurse into nested blocks (not, every, with, comprehensions) first. */
function hoistNested(s: Stmt, frame: { size: number }): Stmt {
  const inExprs = (e: Expr): Expr => (e.k === 'compr' ? keepOrigin(e, { ...e, body: hoistBlock(e.body, frame) }) : mapExpr(e, inExprs));
  switch (s.k) {
    case 'not':
    case 'with':
      return mapStmtExprs({ ...s, body: hoistBlock(s.body, frame) }, inExprs);
    case 'every':
      return mapStmtExprs({ ...s, body: hoistBlock(s.body, frame) }, inExprs);
    default:
      return mapStmtExprs(s, inExprs);
  }
}

/** A stable text key for expressions made of scalars (others are not deduplicated). */
function exprKey(e: Expr): string | undefined {
  switch (e.k) {
    case 'const':
      return typeof e.value === 'object' && e.value !== null ? undefined : `c:${typeof e.value}:${String(e.value)}`;
    case 'input':
      return 'i';
    case 'base':
      return `b:${JSON.stringify(e.path)}`;
    case 'dot': {
      const b = exprKey(e.base);
      const k = exprKey(e.key);
      return b === undefined || k === undefined ? undefined : `(${b})[${k}]`;
    }
    default:
      return undefined;
  }
}

/** Rebuild an expression with `fn` applied to its direct sub-expressions (keeping its source term, plan/origins.ts). */
function mapExpr(e: Expr, fn: (e: Expr) => Expr): Expr {
  return keepOrigin(e, rebuild(e, fn));
}

function rebuild(e: Expr, fn: (e: Expr) => Expr): Expr {
  switch (e.k) {
    case 'dot':
      return { ...e, base: fn(e.base), key: fn(e.key) };
    case 'vdocdot':
      return { ...e, key: fn(e.key) };
    case 'call':
    case 'callfn':
      return { ...e, args: e.args.map(fn) };
    case 'array':
    case 'set':
      return { ...e, items: e.items.map(fn) };
    case 'object':
      return { ...e, entries: e.entries.map(([k, v]) => [fn(k), fn(v)] as [Expr, Expr]) };
    case 'compr':
      return { ...e, head: fn(e.head), key: e.key && fn(e.key) };
    case 'template':
      return { ...e, parts: e.parts.map((p) => (typeof p === 'string' ? p : fn(p))) };
    default:
      return e;
  }
}

/** Apply `fn` to the expressions a statement evaluates (not those of nested blocks). */
function mapStmtExprs(s: Stmt, fn: (e: Expr) => Expr): Stmt {
  switch (s.k) {
    case 'let':
    case 'test':
    case 'capture':
      return { ...s, expr: fn(s.expr) };
    case 'equal':
      return { ...s, a: fn(s.a), b: fn(s.b) };
    case 'match':
      return { ...s, expr: fn(s.expr) };
    case 'scan':
      return { ...s, source: fn(s.source) };
    case 'relation':
      return { ...s, args: s.args.map(fn) };
    case 'every':
      return { ...s, domain: fn(s.domain) };
    case 'print':
      return { ...s, args: s.args.map(fn) };
    case 'with':
      return {
        ...s,
        mods: s.mods.map((m) => (m.k === 'function' ? ('k' in m.value && m.value.k === 'fnref' ? m : { ...m, value: fn(m.value as Expr) }) : { ...m, value: fn(m.value) })),
      };
    default:
      return s;
  }
}
