// Bookkeeping of the reference interpreter that is not evaluation proper:
//   - Slots: one frame of local values per rule body or query (as the JS back end);
//   - QueryFrame: the query a statement runs in, for trace ids. OPA gives every
//     query its own id — the top-level query is 0, and each rule body, function
//     call, comprehension, negation and `every` iteration evaluated from it is a
//     child query with a fresh id whose parent is the referring query;
//   - segments: the statements planned from one source expression (the first one
//     carries `src`), which is the unit OPA's Eval/Fail/Redo events talk about;
//   - ExprIndex: each AST expression's position in its body (OPA's Expr.Index),
//     for the JSON form of trace nodes;
//   - Recorder: collects events, allocating query ids.
import type { Body, Expr, Node, Rule } from '../ast/nodes.js';
import type { Block, QueryPlan } from '../ir/ir.js';
import type { Value } from '../../runtime/value/value.js';
import type { Location } from '../source/location.js';
import { walk } from '../ast/walk.js';
import type { TermValue, TraceEvent, TraceNode, TraceOp } from './trace.js';

export type Slots = (Value | undefined)[];

export interface QueryFrame {
  id: number;
  parent: number;
  /** User-visible variables of this query's frame (for locals); empty in rule bodies. */
  names: readonly { name: string; slot: number }[];
}

export const ROOT_QUERY: QueryFrame = { id: 0, parent: 0, names: [] };

/**
 * Index of the first statement after the segment starting at `i`: segments start
 * at statements carrying `src` and run up to the next one.
 */
export function segmentEnd(b: Block, i: number): number {
  let j = i + 1;
  while (j < b.length && b[j]!.src === undefined) j++;
  return j;
}

/** The source expressions of a block, in planned order (the body a trace shows). */
export function blockBody(b: Block): Body {
  const out: Body = [];
  for (const s of b) if (s.src) out.push(s.src);
  return out;
}

/** Positions of expressions within their bodies. */
export class ExprIndex {
  private readonly index = new WeakMap<Expr, number>();
  private readonly seen = new WeakSet<object>();

  readonly indexOf = (e: Expr): number => this.index.get(e) ?? 0;

  /** Register every body inside a rule (its body, else branches, nested bodies). */
  addRule(r: Rule): void {
    if (this.seen.has(r)) return;
    this.seen.add(r);
    walk(r, (n: Node) => this.visit(n));
    this.addBody(r.body);
  }

  /** Register the bodies a node holds directly (comprehensions, every, not-bodies, rules). */
  private visit(n: Node): void {
    if (!('kind' in n)) return;
    if (n.kind === 'rule' || n.kind === 'arraycomp' || n.kind === 'setcomp' || n.kind === 'objectcomp') this.addBody(n.body);
    else if (n.kind === 'expr') {
      if (n.body.type === 'every') this.addBody(n.body.body);
      if (n.notBody) this.addBody(n.notBody);
    }
  }

  /** Top-level query expressions are indexed by their position in the query text. */
  addQuery(plan: QueryPlan): Body {
    const body = blockBody(plan.body);
    for (const e of body) {
      const i = plan.exprs.findIndex((x) => x.loc.offset === e.loc.offset && x.loc.row === e.loc.row);
      if (i >= 0) this.index.set(e, i);
      walk(e, (n: Node) => this.visit(n));
    }
    return body.sort((a, b) => this.indexOf(a) - this.indexOf(b));
  }

  private addBody(b: Body): void {
    b.forEach((e, i) => this.index.set(e, i));
  }
}

/** Collects trace events; hands out query ids. */
export class Recorder {
  readonly events: TraceEvent[] = [];
  private nextId = 1;
  readonly exprIndex = new ExprIndex();

  child(parent: QueryFrame, names: QueryFrame['names'] = parent.names): QueryFrame {
    return { id: this.nextId++, parent: parent.id, names };
  }

  emit(op: TraceOp, q: QueryFrame, f: Slots | undefined, node: TraceNode | undefined, location?: Location, message?: string, values?: TermValue[]): void {
    const locals: TraceEvent['locals'] = [];
    if (f) for (const { name, slot } of q.names) if (f[slot] !== undefined) locals.push({ name, value: f[slot] as Value });
    const e: TraceEvent = { op, queryId: q.id, parentId: q.parent, locals, indexOf: this.exprIndex.indexOf };
    if (node) e.node = node;
    if (location) e.location = location;
    if (message !== undefined) e.message = message;
    if (values !== undefined && values.length > 0) e.values = values;
    this.events.push(e);
  }
}

const USER_NAMES = new WeakMap<{ names?: string[] }, QueryFrame['names']>();

/** The user-visible variables of a planned rule body (not the `$` generated ones), for trace locals. */
export function userNames(def: { names?: string[] }): QueryFrame['names'] {
  let out = USER_NAMES.get(def);
  if (out === undefined) {
    out = (def.names ?? []).flatMap((name, slot) => (name.startsWith('$') ? [] : [{ name, slot }]));
    USER_NAMES.set(def, out);
  }
  return out;
}
