// Body planning: declare a body's variables, order its expressions for safety,
// and emit IR statements for each (see ir/ir.ts). Terms become value expressions
// (terms.ts); unification becomes let/equal/match statements (unify.ts).
import type { Body, Expr, Term, VarTerm } from '../ast/nodes.js';
import type { Block, Stmt, WithMod } from '../ir/ir.js';
import { RegoError, throwErrors } from '../source/diagnostics.js';
import { refName } from '../ast/transform.js';
import { Analyzer, exprTerms, isAssign, isEq, namesIn } from './analyze.js';
import type { Scope } from './scope.js';
import { directVars } from './scope.js';
import type { PlanContext } from './context.js';
import { TermPlanner } from './terms.js';
import { arityError } from './call-checks.js';
import { hoistNegatedOperands } from './negation.js';
import { checkBuiltinTarget, checkDataTarget, unknownTargetError } from './with-target.js';
import { displayVarName } from '../passes/resolve-refs.js';
import { printArgs, undeclaredPrintVars } from './print-check.js';

export class BodyPlanner {
  /**
   * `query`: planning an ad-hoc query. OPA's module compiler rewrites `==` to `=`
   * (RewriteEquals) before binding negated operands; its query compiler does not.
   */
  constructor(
    readonly ctx: PlanContext,
    readonly query = false,
  ) {}

  /** Plan a body in `scope`; `bound` holds slots bound on entry and grows. */
  planBody(body: Body, scope: Scope, bound: Set<number>, capture?: (i: number, e: Expr, out: Block) => void): Block {
    declareBody(body, scope, (t) => this.isFunctionName(t));
    const analyzer = new Analyzer(scope, (op) => this.ctx.callInfo(op));
    const order = this.schedule(body, analyzer, bound);
    const out: Block = [];
    try {
    for (const i of order) {
      const e = body[i]!;
      scope.cursor = i;
      const start = out.length;
      this.planExpr(e, scope, bound, out);
      if (out.length > start) out[start]!.src = e;
      capture?.(i, e, out);
    }
    } finally {
      scope.cursor = Number.MAX_SAFE_INTEGER;
    }
    return out;
  }

  private schedule(body: Body, analyzer: Analyzer, bound: Set<number>): number[] {
    const order: number[] = [];
    const B = new Set(bound);
    // Each round takes the first expression, in body order, that is safe now. One
    // found unsafe is parked until one of its slots gets bound (its analysis depends
    // on nothing else), so a long body written in reverse order plans in about
    // linear time instead of cubic. `fresh` holds the unparked candidates sorted
    // descending, so pop() gives the first in body order.
    const fresh = body.map((_, i) => body.length - 1 - i);
    // The expression that first bound each slot, for print()'s source-order check.
    const boundAt = new Map<number, number>();
    const printDeclared = (i: number) => (name: string) => {
      const s = analyzer.scope.lookup(name);
      return s === undefined || bound.has(s) || (boundAt.get(s) ?? Infinity) < i;
    };
    const waiting = new Map<number, number[]>();
    const parked = new Uint8Array(body.length);
    const done = new Uint8Array(body.length);
    const wake = (s: number): void => {
      const ws = waiting.get(s);
      if (!ws) return;
      waiting.delete(s);
      for (const x of ws) {
        if (!parked[x] || done[x]) continue;
        parked[x] = 0;
        let lo = 0;
        let hi = fresh.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (fresh[mid]! > x) lo = mid + 1;
          else hi = mid;
        }
        fresh.splice(lo, 0, x);
      }
    };
    while (order.length < body.length) {
      let picked = -1;
      while (fresh.length > 0) {
        const i = fresh.pop()!;
        analyzer.scope.cursor = i;
        const a = analyzer.analyze(body[i]!, B);
        if ([...a.needs].every((s) => B.has(s))) {
          picked = i;
          const printed = printArgs(body[i]!);
          if (printed) throwErrors(undeclaredPrintVars(printed, printDeclared(i)));
          a.outs.forEach((s) => boundAt.has(s) || boundAt.set(s, i));
          a.outs.forEach((s) => B.add(s));
          a.outs.forEach(wake);
          break;
        }
        parked[i] = 1;
        for (const s of [...a.needs, ...a.outs]) {
          if (B.has(s)) continue;
          const ws = waiting.get(s);
          if (ws) ws.push(i);
          else waiting.set(s, [i]);
        }
      }
      if (picked < 0) {
        const remaining = body.map((_, i) => i).filter((i) => !done[i]);
        // OPA checks print() arguments before safety: a print left waiting reports first.
        for (const i of remaining) {
          const printed = printArgs(body[i]!);
          analyzer.scope.cursor = i;
          if (printed) throwErrors(undeclaredPrintVars(printed, printDeclared(i)));
        }
        this.reportUnsafe(body, remaining, analyzer, B);
        return order.concat(remaining);
      }
      done[picked] = 1;
      order.push(picked);
    }
    return order;
  }

  /**
   * Report every unsafe variable of the body, as OPA's safetyErrorSlice does: each
   * variable once, at the first remaining expression that holds it, sorted by
   * location (ties by name); `expression is unsafe` only when no variable can be named.
   * One error throws a RegoError, several a RegoErrors.
   */
  private reportUnsafe(body: Body, remaining: number[], analyzer: Analyzer, B: Set<number>): void {
    const found = new Map<string, RegoError>();
    for (const i of remaining) {
      const e = body[i]!;
      analyzer.scope.cursor = i;
      const a = analyzer.analyze(e, B);
      for (const s of [...a.needs, ...a.outs]) {
        if (B.has(s)) continue;
        const name = analyzer.scope.layout.names[s]!;
        if (found.has(name) || (!a.needs.has(s) && name.startsWith('$'))) continue;
        const display = name.startsWith('$') ? '_' : displayVarName(name);
        found.set(name, new RegoError('rego_unsafe_var_error', `var ${display} is unsafe`, e.loc));
      }
    }
    const errors = [...found.entries()]
      .sort(([an, a], [bn, b]) => a.location!.row - b.location!.row || a.location!.col - b.location!.col || (an < bn ? -1 : an > bn ? 1 : 0))
      .map(([, err]) => err);
    throwErrors(errors);
    throw new RegoError('rego_unsafe_var_error', 'expression is unsafe', body[remaining[0]!]!.loc);
  }

  /** Emit one expression's statements into `out`. */
  planExpr(e: Expr, scope: Scope, bound: Set<number>, out: Block): void {
    if (e.with.length > 0) {
      const mods = e.with.map((w) => this.planWith(w.target, w.value, scope, bound, out));
      const inner: Block = [];
      this.planExprCore({ ...e, with: [] }, scope, bound, inner);
      out.push({ k: 'with', mods, body: inner, loc: e.loc });
      return;
    }
    this.planExprCore(e, scope, bound, out);
  }

  private planExprCore(e: Expr, scope: Scope, bound: Set<number>, out: Block): void {
    if (e.notBody) {
      const body = this.planBody(e.notBody, scope.child(), new Set(bound));
      out.push({ k: 'not', body });
      return;
    }
    if (e.negated) {
      const inner: Block = [];
      const negated = e.wholeNegation ? e : hoistNegatedOperands(e, new TermPlanner(this, scope, bound), out, !this.query);
      const innerBound = new Set(bound);
      this.planPositive(negated, scope, innerBound, inner);
      out.push({ k: 'not', body: inner });
      return;
    }
    this.planPositive(e, scope, bound, out);
  }

  private planPositive(e: Expr, scope: Scope, bound: Set<number>, out: Block): void {
    const terms = new TermPlanner(this, scope, bound);
    const b = e.body;
    switch (b.type) {
      case 'some':
        return;
      case 'somein': {
        const src = terms.value(b.collection, out);
        const key = b.key ? terms.pattern(b.key, out) : ({ k: 'wild' } as const);
        const value = terms.pattern(b.value, out);
        out.push({ k: 'scan', source: src, key, value, loc: e.loc });
        return;
      }
      case 'every': {
        const domain = terms.value(b.domain, out);
        const child = scope.child();
        const kslot = b.key ? child.declare(b.key.name) : undefined;
        const vslot = child.declare(b.value.name);
        const innerBound = new Set(bound);
        if (kslot !== undefined) innerBound.add(kslot);
        innerBound.add(vslot);
        const body = this.planBody(b.body, child, innerBound);
        out.push({
          k: 'every',
          domain,
          key: kslot !== undefined ? { k: 'bind', slot: kslot } : { k: 'wild' },
          value: { k: 'bind', slot: vslot },
          body,
          loc: e.loc,
        });
        return;
      }
      case 'term':
        return this.planTermExpr(b.term, terms, out, e);
    }
  }

  private planTermExpr(t: Term, terms: TermPlanner, out: Block, e: Expr): void {
    if (t.kind === 'call' && (isEq(t) || isAssign(t)) && t.args.length === 2) {
      terms.unify(t.args[0]!, t.args[1]!, out, e.loc);
      return;
    }
    if (t.kind === 'call') {
      const name = refName(t.op);
      if (name === 'print' || name === 'internal.print') {
        out.push({ k: 'print', args: t.args.map((a) => terms.valueOrUndefined(a, out)), loc: t.loc });
        return;
      }
      const info = this.ctx.callInfo(t.op);
      if (info && !info.variadic && t.args.length === info.arity + 1) {
        const call = { ...t, args: t.args.slice(0, info.arity) };
        const outTerm = t.args[info.arity]!;
        if (info.relation) {
          const args = call.args.map((a) => terms.value(a, out));
          out.push({ k: 'relation', name: name!, args, out: terms.pattern(outTerm, out), loc: t.loc });
          return;
        }
        terms.unifyWithExpr(outTerm, terms.value(call, out), out);
        return;
      }
      if (info && !info.variadic && t.args.length !== info.arity) throw arityError(name!, t, info.arity, true, name!.startsWith('data.') ? undefined : this.ctx.builtinDecl(name!));
    }
    out.push({ k: 'test', expr: t.kind === 'call' ? terms.statementValue(t, out) : terms.value(t, out) });
  }

  /** True for a with-value that names a builtin or function rather than a variable. */
  isFunctionName(t: Term): boolean {
    const name = refName(t);
    if (!name || (t.kind !== 'var' && t.kind !== 'ref')) return false;
    if (name.startsWith('data.')) return this.ctx.groupAt(name.split('.').slice(1))?.kind === 'function';
    return this.ctx.isBuiltin(name);
  }

  planWith(target: Term, value: Term, scope: Scope, bound: Set<number>, out: Block): WithMod {
    const terms = new TermPlanner(this, scope, bound);
    const path = withPath(target);
    if (path && path[0] === 'input') return { k: 'input', path: path.slice(1), value: terms.value(value, out) };
    if (path && path[0] === 'data') {
      checkDataTarget(path, target, this.ctx);
      const group = this.ctx.groupAt(path.slice(1));
      if (group?.kind === 'function') return { k: 'function', name: path.join('.'), value: this.fnValue(value, terms, out) };
      return { k: 'data', path: path.slice(1), value: terms.value(value, out) };
    }
    const name = refName(target);
    if (name && this.ctx.isBuiltin(name)) {
      checkBuiltinTarget(name, target, this.ctx);
      return { k: 'function', name, value: this.fnValue(value, terms, out) };
    }
    throw unknownTargetError(target);
  }

  private fnValue(value: Term, terms: TermPlanner, out: Block): WithMod extends infer M ? (M extends { k: 'function'; value: infer V } ? V : never) : never {
    const name = refName(value);
    if (name && (value.kind === 'var' || value.kind === 'ref')) {
      if (name.startsWith('data.')) {
        const g = this.ctx.groupAt(name.split('.').slice(1));
        if (g?.kind === 'function') return { k: 'fnref', name, group: g.id };
      } else if (this.ctx.isBuiltin(name) && !terms.isLocalVar(value)) return { k: 'fnref', name };
    }
    return terms.value(value, out);
  }
}

function withPath(t: Term): string[] | undefined {
  if (t.kind === 'var') return [t.name];
  if (t.kind !== 'ref' || t.head.kind !== 'var') return undefined;
  const out = [t.head.name];
  for (const p of t.path) {
    if (p.kind !== 'string') return undefined;
    out.push(p.value);
  }
  return out;
}

/** Declare a body's variables: declarations first (they shadow), then the rest. */
export function declareBody(body: Body, scope: Scope, isFunctionName: (t: Term) => boolean = () => false): void {
  let index = 0;
  const assigned = new Set<string>();
  const declare = (v: VarTerm) => {
    if (!scope.vars.has(v.name)) {
      scope.declare(v.name);
      if (!v.wildcard) scope.declaredAt.set(v.name, index);
    }
  };
  const usedHere = new Set<string>();
  for (const e of body) if (e.body.type !== 'some') for (const t of exprTerms(e)) for (const v of directVars(t)) usedHere.add(v.name);
  for (const [i, e] of body.entries()) {
    index = i;
    const b = e.body;
    if (b.type === 'term' && isAssign(b.term)) {
      for (const v of directVars((b.term as { args: Term[] }).args[0]!)) {
        if (v.wildcard) continue;
        if (assigned.has(v.name)) throw new RegoError('rego_compile_error', `var ${v.name} assigned above`, e.loc);
        assigned.add(v.name);
      }
    }
    // A `some` var that only closures (comprehensions, `every`) mention is theirs:
    // OPA renames it away from this body, so each closure iterates it on its own.
    if (b.type === 'some') b.vars.filter((v) => usedHere.has(v.name)).forEach(declare);
    else if (b.type === 'somein') {
      for (const t of [b.key, b.value]) if (t) directVars(t).forEach(declare);
    } else if (b.type === 'term' && isAssign(b.term)) directVars((b.term as { args: Term[] }).args[0]!).forEach(declare);
  }
  const ensure = (v: VarTerm) => {
    if (v.wildcard) declare(v);
    else scope.ensure(v.name);
  };
  for (const e of body) {
    const b = e.body;
    for (const w of e.with) if (!isFunctionName(w.value) || scope.lookup(refName(w.value)!) !== undefined) directVars(w.value).forEach(ensure);
    if (b.type === 'term') directVars(b.term).forEach(ensure);
    else if (b.type === 'somein') directVars(b.collection).forEach(ensure);
    else if (b.type === 'every') directVars(b.domain).forEach(ensure);
  }
}

export { namesIn };
export type { Stmt };
