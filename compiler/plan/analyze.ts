// Safety analysis: which variables an expression needs bound before it can run,
// and which it binds (through ref iteration, unification or output arguments).
// The body planner schedules expressions in source order, skipping ahead only
// when an expression's needs are not yet met (OPA's reorder-for-safety).
import type { Body, Expr, Term } from '../ast/nodes.js';
import { refName } from '../ast/transform.js';
import type { Scope } from './scope.js';
import { ROOT_VARS } from './scope.js';

export interface Analysis {
  needs: Set<number>;
  outs: Set<number>;
}

/** How the planner sees a call operator. */
export interface CallInfo {
  arity: number;
  variadic: boolean;
  relation: boolean;
}

export type CallLookup = (op: Term) => CallInfo | undefined;

export class Analyzer {
  constructor(
    readonly scope: Scope,
    readonly callInfo: CallLookup,
  ) {}

  slot(name: string): number | undefined {
    return this.scope.lookup(name);
  }

  /** All slots a term reads: direct vars plus the free vars of nested bodies. */
  slotsIn(t: Term, out = new Set<number>()): Set<number> {
    switch (t.kind) {
      case 'var': {
        if (ROOT_VARS.has(t.name)) break;
        const s = this.slot(t.name);
        if (s !== undefined) out.add(s);
        break;
      }
      case 'ref':
        this.slotsIn(t.head, out);
        t.path.forEach((p) => this.slotsIn(p, out));
        break;
      case 'array':
      case 'set':
        t.items.forEach((x) => this.slotsIn(x, out));
        break;
      case 'object':
        t.entries.forEach(([k, v]) => {
          this.slotsIn(k, out);
          this.slotsIn(v, out);
        });
        break;
      case 'call':
        t.args.forEach((x) => this.slotsIn(x, out));
        break;
      case 'template':
        t.parts.forEach((p) => typeof p !== 'string' && this.slotsIn(p, out));
        break;
      case 'arraycomp':
      case 'setcomp':
        this.freeSlots([t.head], t.body, out);
        break;
      case 'objectcomp':
        this.freeSlots([t.key, t.value], t.body, out);
        break;
      default:
        break;
    }
    return out;
  }

  /** Outer slots that a nested body (comprehension, every) reads. */
  freeSlots(heads: Term[], body: Body, out: Set<number>, extraLocal: string[] = []): Set<number> {
    const declared = new Set<string>(extraLocal);
    for (const e of body) {
      const b = e.body;
      if (b.type === 'some') b.vars.forEach((v) => declared.add(v.name));
      else if (b.type === 'somein') {
        for (const t of [b.key, b.value]) if (t) namesIn(t).forEach((n) => declared.add(n));
      } else if (b.type === 'term' && isAssign(b.term)) namesIn((b.term as { args: Term[] }).args[0]!).forEach((n) => declared.add(n));
    }
    const visit = (t: Term) => {
      for (const n of namesIn(t)) {
        if (declared.has(n) || ROOT_VARS.has(n)) continue;
        const s = this.scope.lookupVisible(n);
        if (s !== undefined) out.add(s);
      }
    };
    heads.forEach(visit);
    for (const e of body) {
      exprTerms(e).forEach(visit);
      const b = e.body;
      if (b.type === 'every') this.freeSlots([], b.body, out, [...declared, ...(b.key ? [b.key.name] : []), b.value.name]);
    }
    return out;
  }

  /** Unbound vars in ref keys: iterating the ref binds them. */
  gens(t: Term, bound: Set<number>, out = new Set<number>()): Set<number> {
    switch (t.kind) {
      case 'ref':
        this.gens(t.head, bound, out);
        for (const p of t.path) {
          if (p.kind === 'var') {
            const s = this.slot(p.name);
            if (s !== undefined && !bound.has(s)) out.add(s);
          } else if (p.kind === 'array' || p.kind === 'object') {
            for (const s of this.patternSlots(p, bound)) out.add(s);
            this.gens(p, bound, out);
          } else this.gens(p, bound, out);
        }
        break;
      case 'array':
      case 'set':
        t.items.forEach((x) => this.gens(x, bound, out));
        break;
      case 'object':
        t.entries.forEach(([k, v]) => {
          this.gens(k, bound, out);
          this.gens(v, bound, out);
        });
        break;
      case 'call':
        t.args.forEach((x) => this.gens(x, bound, out));
        break;
      case 'template':
        t.parts.forEach((p) => typeof p !== 'string' && this.gens(p, bound, out));
        break;
      default:
        break;
    }
    return out;
  }

  /** Unbound vars in pattern positions of a term (var, array items, object values). */
  patternSlots(t: Term, bound: SlotTest, out = new Set<number>()): Set<number> {
    if (t.kind === 'var') {
      const s = this.slot(t.name);
      if (s !== undefined && !bound.has(s) && !ROOT_VARS.has(t.name)) out.add(s);
    } else if (t.kind === 'array') t.items.forEach((x) => this.patternSlots(x, bound, out));
    else if (t.kind === 'object') t.entries.forEach(([, v]) => this.patternSlots(v, bound, out));
    return out;
  }

  evaluable(t: Term, bound: SlotTest): boolean {
    for (const s of this.slotsIn(t)) if (!bound.has(s)) return false;
    return true;
  }

  isUnboundVar(t: Term, bound: SlotTest): boolean {
    if (t.kind !== 'var' || ROOT_VARS.has(t.name)) return false;
    const s = this.slot(t.name);
    return s !== undefined && !bound.has(s);
  }

  /** Slots that unifying a with b binds, given `bound`. */
  unifyOuts(a: Term, b: Term, bound: SlotTest): Set<number> {
    const outs = new Set<number>();
    const all = () => withSlots(bound, outs);
    let changed = true;
    while (changed) {
      changed = false;
      const before = outs.size;
      const work: [Term, Term][] = [[a, b]];
      while (work.length) {
        const [x, y] = work.pop()!;
        const B = all();
        if (this.isUnboundVar(x, B) && this.evaluable(y, B)) outs.add(this.slot((x as { name: string }).name)!);
        else if (this.isUnboundVar(y, B) && this.evaluable(x, B)) outs.add(this.slot((y as { name: string }).name)!);
        else if (x.kind === 'array' && y.kind === 'array' && x.items.length === y.items.length)
          x.items.forEach((xi, i) => work.push([xi, y.items[i]!]));
        else if (x.kind === 'object' && y.kind === 'object') {
          for (const [k, v] of x.entries) {
            const other = y.entries.find(([k2]) => sameConst(k, k2));
            if (other) work.push([v, other[1]]);
          }
        } else if ((x.kind === 'array' || x.kind === 'object') && this.evaluable(y, B)) this.patternSlots(x, B, outs);
        else if ((y.kind === 'array' || y.kind === 'object') && this.evaluable(x, B)) this.patternSlots(y, B, outs);
      }
      changed = outs.size !== before;
    }
    return outs;
  }

  analyze(e: Expr, bound: Set<number>): Analysis {
    if (e.notBody) {
      // `not { … }`: a nested body; it reads outer vars and binds nothing.
      const needs = this.freeSlots([], e.notBody, new Set());
      for (const w of e.with) this.slotsIn(w.value, needs);
      return { needs, outs: new Set() };
    }
    const inner = this.analyzeBody(e, bound);
    for (const w of e.with) this.slotsIn(w.value, inner.needs);
    if (!e.negated) return inner;
    const needs = new Set(inner.needs);
    for (const s of inner.outs) if (!this.scope.layout.names[s]!.startsWith('$')) needs.add(s);
    return { needs, outs: new Set() };
  }

  private analyzeBody(e: Expr, bound: Set<number>): Analysis {
    const b = e.body;
    switch (b.type) {
      case 'some':
        return { needs: new Set(), outs: new Set() };
      case 'somein': {
        const g = this.gens(b.collection, bound);
        const B = withSlots(bound, g);
        const outs = new Set(g);
        for (const t of [b.key, b.value]) if (t) this.patternSlots(t, B, outs);
        const needs = minus(this.slotsIn(b.collection), outs);
        for (const t of [b.key, b.value]) if (t) for (const s of this.slotsIn(t)) if (!outs.has(s)) needs.add(s);
        return { needs, outs };
      }
      case 'every': {
        const needs = this.slotsIn(b.domain);
        this.freeSlots([], b.body, needs, [...(b.key ? [b.key.name] : []), b.value.name]);
        return { needs, outs: new Set() };
      }
      case 'term':
        return this.analyzeTerm(b.term, bound);
    }
  }

  private analyzeTerm(t: Term, bound: Set<number>): Analysis {
    if (t.kind === 'call' && (isAssign(t) || isEq(t)) && t.args.length === 2) {
      const [a, c] = t.args as [Term, Term];
      const g = this.gens(a, bound);
      this.gens(c, bound, g);
      const u = this.unifyOuts(a, c, withSlots(bound, g));
      const outs = new Set([...g, ...u]);
      return { needs: minus(union(this.slotsIn(a), this.slotsIn(c)), outs), outs };
    }
    if (t.kind === 'call') {
      const info = this.callInfo(t.op);
      if (info && !info.variadic && t.args.length === info.arity + 1) {
        const inputs = t.args.slice(0, info.arity);
        const out = t.args[info.arity]!;
        const g = new Set<number>();
        inputs.forEach((x) => this.gens(x, bound, g));
        this.gens(out, bound, g);
        const outs = new Set(g);
        this.patternSlots(out, withSlots(bound, g), outs);
        const needs = new Set<number>();
        inputs.forEach((x) => this.slotsIn(x, needs));
        this.slotsIn(out, needs);
        return { needs: minus(needs, outs), outs };
      }
    }
    const g = this.gens(t, bound);
    return { needs: minus(this.slotsIn(t), g), outs: g };
  }
}

export function isAssign(t: Term): boolean {
  return t.kind === 'call' && t.op.kind === 'var' && t.op.name === 'assign';
}

export function isEq(t: Term): boolean {
  return t.kind === 'call' && t.op.kind === 'var' && t.op.name === 'eq';
}

export function callName(t: Term): string | undefined {
  return t.kind === 'call' ? refName(t.op) : undefined;
}

/** Terms of an expression visible to the enclosing scope (not nested bodies). */
export function exprTerms(e: Expr): Term[] {
  const b = e.body;
  const ws = e.with.map((w) => w.value);
  switch (b.type) {
    case 'term':
      return [b.term, ...ws];
    case 'some':
      return [...b.vars, ...ws];
    case 'somein':
      return [...(b.key ? [b.key] : []), b.value, b.collection, ...ws];
    case 'every':
      return [b.domain, ...ws];
  }
}

/** Var names anywhere in a term, including nested comprehension bodies. */
export function namesIn(t: Term, out = new Set<string>()): Set<string> {
  switch (t.kind) {
    case 'var':
      out.add(t.name);
      break;
    case 'ref':
      namesIn(t.head, out);
      t.path.forEach((p) => namesIn(p, out));
      break;
    case 'array':
    case 'set':
      t.items.forEach((x) => namesIn(x, out));
      break;
    case 'object':
      t.entries.forEach(([k, v]) => {
        namesIn(k, out);
        namesIn(v, out);
      });
      break;
    case 'call':
      t.args.forEach((x) => namesIn(x, out));
      break;
    case 'template':
      t.parts.forEach((p) => typeof p !== 'string' && namesIn(p, out));
      break;
    case 'arraycomp':
    case 'setcomp':
      namesIn(t.head, out);
      t.body.forEach((e) => exprTerms(e).forEach((x) => namesIn(x, out)));
      break;
    case 'objectcomp':
      namesIn(t.key, out);
      namesIn(t.value, out);
      t.body.forEach((e) => exprTerms(e).forEach((x) => namesIn(x, out)));
      break;
    default:
      break;
  }
  return out;
}

export function sameConst(a: Term, b: Term): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'string' || a.kind === 'boolean') return a.value === (b as typeof a).value;
  if (a.kind === 'number') return a.text === (b as typeof a).text;
  return a.kind === 'null';
}

function union(a: Set<number>, b: Set<number>): Set<number> {
  return new Set([...a, ...b]);
}

/** Membership test over bound slots (a Set, or a union view from `withSlots`). */
export interface SlotTest {
  has(slot: number): boolean;
}

/**
 * `bound ∪ extra` as a membership test, without copying: analyzing an expression
 * must not copy every slot the body has bound so far (which made long bodies plan
 * in quadratic time or worse).
 */
export function withSlots(bound: SlotTest, extra: SlotTest & { size: number }): SlotTest {
  return extra.size === 0 ? bound : { has: (s) => bound.has(s) || extra.has(s) };
}

function minus(a: Set<number>, b: Set<number>): Set<number> {
  const out = new Set<number>();
  for (const x of a) if (!b.has(x)) out.add(x);
  return out;
}
