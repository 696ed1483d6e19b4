// Term planning: an AST term becomes an IR value expression, with any iteration it
// implies (unbound vars in ref keys) emitted as `scan` statements first. Refs into
// `data` are resolved against the rule tree: a rule becomes `rule`, a package
// `vdoc`, anything else base-document lookups.
import type { Body, Term, VarTerm } from '../ast/nodes.js';
import type { Block, Expr, Pattern } from '../ir/ir.js';
import type { Location } from '../source/location.js';
import { RegoError } from '../source/diagnostics.js';
import { forEachTerm, refName } from '../ast/transform.js';
import { formatTerm } from '../ast/print.js';
import { RObject, RSet, type Value } from '../../runtime/value/index.js';
import type { Scope } from './scope.js';
import { ROOT_VARS } from './scope.js';
import type { BodyPlanner } from './body.js';
import { Analyzer, sameConst, withSlots } from './analyze.js';
import { noteOrigin } from './origins.js';
import { arityError } from './call-checks.js';

export class TermPlanner {
  private readonly analyzer: Analyzer;
  constructor(
    readonly body: BodyPlanner,
    readonly scope: Scope,
    readonly bound: Set<number>,
  ) {
    this.analyzer = new Analyzer(scope, (op) => body.ctx.callInfo(op));
  }

  /** True when every variable the term reads is bound. */
  evaluable(t: Term): boolean {
    return this.analyzer.evaluable(t, this.bound);
  }

  /** Bind a new generated variable `name` to the value of `t` (planned into `out`). */
  bindValue(name: string, t: Term, out: Block): void {
    const slot = this.scope.declare(name);
    out.push({ k: 'let', slot, expr: this.value(t, out) });
    this.bound.add(slot);
  }

  isLocalVar(t: Term): boolean {
    return t.kind === 'var' && !ROOT_VARS.has(t.name) && this.scope.lookup(t.name) !== undefined;
  }

  private slotOf(v: VarTerm): number {
    const s = this.scope.lookup(v.name);
    if (s === undefined) throw new RegoError('rego_unsafe_var_error', `var ${v.name} is unsafe`, v.loc);
    return s;
  }

  /** Plan a term as a value; scans for its unbound ref keys go to `out` first. */
  value(t: Term, out: Block): Expr {
    const e = this.planValue(t, out);
    noteOrigin(e, t);
    return e;
  }

  private planValue(t: Term, out: Block): Expr {
    switch (t.kind) {
      case 'null':
        return { k: 'const', value: null };
      case 'boolean':
      case 'string':
        return { k: 'const', value: t.value };
      case 'number':
        return { k: 'const', value: t.value };
      case 'var': {
        if (t.name === 'input') return { k: 'input' };
        if (t.name === 'data') return { k: 'vdoc', node: 0 };
        const s = this.slotOf(t);
        if (!this.bound.has(s)) {
          const name = t.wildcard ? '_' : t.name;
          throw new RegoError('rego_unsafe_var_error', `var ${name} is unsafe`, t.loc);
        }
        return { k: 'local', slot: s };
      }
      case 'ref':
        return this.ref(t, out);
      case 'array': {
        const items = this.planAll(t.items, out);
        return allConst(items) ? { k: 'const', value: items.map(constOf) } : { k: 'array', items };
      }
      case 'set': {
        const items = this.planAll(t.items, out);
        return allConst(items) ? { k: 'const', value: RSet.of(items.map(constOf)) } : { k: 'set', items };
      }
      case 'object': {
        const entries = t.entries.map(([k, v]) => [this.value(k, out), this.value(v, out)] as [Expr, Expr]);
        if (entries.every(([k, v]) => k.k === 'const' && v.k === 'const')) {
          const o = new RObject();
          let dup = false;
          for (const [k, v] of entries) {
            if (o.has(constOf(k))) dup = true;
            o.set(constOf(k), constOf(v));
          }
          if (!dup) return { k: 'const', value: o };
        }
        return { k: 'object', entries, loc: t.loc };
      }
      case 'arraycomp':
      case 'setcomp':
      case 'objectcomp':
        return this.comprehension(t);
      case 'call':
        return this.call(t, out);
      case 'template':
        return {
          k: 'template',
          parts: t.parts.map((p, i) => (typeof p === 'string' ? p : this.templatePart(p, t.withs?.[i] ?? [], out))),
        };
    }
  }

  /** A template part; `{x with input as y}` evaluates x under the replacement. */
  private templatePart(t: Term, withs: { target: Term; value: Term }[], out: Block): Expr {
    if (withs.length === 0) return this.value(t, out);
    const mods = withs.map((w) => this.body.planWith(w.target, w.value, this.scope, this.bound, out));
    const inner: Block = [];
    const slot = this.scope.temp();
    inner.push({ k: 'let', slot, expr: this.value(t, inner) });
    out.push({ k: 'with', mods, body: inner, loc: t.loc });
    this.bound.add(slot);
    return { k: 'local', slot };
  }

  /** Plan several terms; those that iterate (ref generators) are planned first. */
  planAll(ts: Term[], out: Block): Expr[] {
    const res = new Array<Expr>(ts.length);
    const iterates = ts.map((t) => this.analyzer.gens(t, this.bound).size > 0);
    for (let i = 0; i < ts.length; i++) if (iterates[i]) res[i] = this.value(ts[i]!, out);
    for (let i = 0; i < ts.length; i++) if (!iterates[i]) res[i] = this.value(ts[i]!, out);
    return res;
  }

  /** The call a body expression makes at its top (a void builtin is allowed there). */
  private statementCall: Term | undefined;

  /** The value of a call that is a body expression of its own (`internal.test_case(…)`). */
  statementValue(t: Term & { kind: 'call' }, out: Block): Expr {
    this.statementCall = t;
    try {
      return this.value(t, out);
    } finally {
      this.statementCall = undefined;
    }
  }

  /** Like value(), but for print(): an undefined argument must not fail the body. */
  valueOrUndefined(t: Term, out: Block): Expr {
    return this.value(t, out);
  }

  private comprehension(t: Term & { kind: 'arraycomp' | 'setcomp' | 'objectcomp' }): Expr {
    t = bindComprehensionHead(t);
    const child = this.scope.child();
    const innerBound = new Set(this.bound);
    const body = this.body.planBody(t.body, child, innerBound);
    const inner = new TermPlanner(this.body, child, innerBound);
    const tail: Block = [];
    if (t.kind === 'objectcomp') {
      const key = inner.value(t.key, tail);
      const head = inner.value(t.value, tail);
      return { k: 'compr', kind: 'object', body: [...body, ...tail], head, key, loc: t.loc };
    }
    const head = inner.value(t.head, tail);
    return { k: 'compr', kind: t.kind === 'arraycomp' ? 'array' : 'set', body: [...body, ...tail], head, loc: t.loc };
  }

  private call(t: Term & { kind: 'call' }, out: Block): Expr {
    const name = refName(t.op);
    const args = this.planAll(t.args, out);
    if (name && name.startsWith('data.')) {
      const g = this.body.ctx.groupAt(name.split('.').slice(1));
      if (g && g.kind === 'function') {
        if (args.length !== g.arity) throw arityError(name, t, g.arity ?? 0, false, undefined);
        return { k: 'callfn', group: g.id, args, loc: t.loc, opLoc: t.op.loc };
      }
      // `f()` on a rule without parameters (`f() := v`, or a mock value) is its value.
      if (g && args.length === 0) return { k: 'rule', group: g.id };
      throw new RegoError('rego_type_error', `undefined function ${name}`, t.loc);
    }
    if (!name) throw new RegoError('rego_type_error', 'illegal call', t.loc);
    // OPA's checkVoidCalls: a builtin without a result (print) is no value.
    const decl = this.body.ctx.builtinDecl(name);
    if (t !== this.statementCall && (name === 'print' || name === 'internal.print' || (decl && !decl.result && !decl.relation))) {
      throw new RegoError('rego_type_error', `${formatTerm(t)} used as value`, t.loc);
    }
    const info = this.body.ctx.callInfo(t.op);
    if (!info) throw new RegoError('rego_type_error', `undefined function ${name}`, t.loc);
    if (!info.variadic && args.length !== info.arity) throw arityError(name, t, info.arity, false, decl);
    if (info.relation) {
      const slot = this.scope.temp();
      out.push({ k: 'relation', name, args, out: { k: 'bind', slot }, loc: t.loc });
      this.bound.add(slot);
      return { k: 'local', slot };
    }
    return { k: 'call', name, args, loc: t.loc, opLoc: t.op.loc };
  }

  /** A reference: resolve its head, then apply each path element as a lookup or a scan. */
  private ref(t: Term & { kind: 'ref' }, out: Block): Expr {
    let base: Expr;
    let rest = t.path;
    if (t.head.kind === 'var' && t.head.name === 'data') {
      const r = this.dataRef(t.path);
      base = r.expr;
      rest = t.path.slice(r.used);
      const next = rest[0];
      if (base.k === 'vdoc' && next && this.analyzer.evaluable(next, this.bound)) {
        base = { k: 'vdocdot', node: base.node, key: this.value(next, out) };
        rest = rest.slice(1);
      }
    } else base = this.value(t.head, out);
    for (const seg of rest) base = this.step(base, seg, out, t.loc);
    return base;
  }

  private step(base: Expr, seg: Term, out: Block, loc: Location): Expr {
    if (seg.kind === 'var' && !ROOT_VARS.has(seg.name)) {
      const s = this.slotOf(seg);
      if (!this.bound.has(s)) {
        const v = this.scope.temp();
        out.push({ k: 'scan', source: base, key: { k: 'bind', slot: s }, value: { k: 'bind', slot: v }, loc });
        this.bound.add(s);
        this.bound.add(v);
        return { k: 'local', slot: v };
      }
    } else if ((seg.kind === 'array' || seg.kind === 'object') && !this.analyzer.evaluable(seg, this.bound)) {
      const key = this.pattern(seg, out);
      const v = this.scope.temp();
      out.push({ k: 'scan', source: base, key, value: { k: 'bind', slot: v }, loc });
      this.bound.add(v);
      return { k: 'local', slot: v };
    }
    return { k: 'dot', base, key: this.value(seg, out) };
  }

  /** Walk the rule tree along the constant prefix of a data ref. */
  private dataRef(path: Term[]): { expr: Expr; used: number } {
    const ctx = this.body.ctx;
    let node = ctx.node(0);
    const names: string[] = [];
    let i = 0;
    for (; i < path.length; i++) {
      const seg = path[i]!;
      const key = baseKey(seg);
      if (key === undefined) break;
      const child = node.children.get(key);
      if (child === undefined) break;
      node = ctx.node(child);
      names.push(key);
      const groups = node.groups.map((g) => ctx.group(g)).filter((g) => g.kind !== 'function');
      if (groups.length > 0 && node.children.size === 0) return { expr: { k: 'rule', group: groups[0]!.id }, used: i + 1 };
    }
    if (i === path.length || baseKey(path[i]!) === undefined) return { expr: { k: 'vdoc', node: node.id }, used: i };
    if (node.groups.length > 0) return { expr: { k: 'vdoc', node: node.id }, used: i };
    // The next key is not in the rule tree: only base data lives there.
    const base: (string | number)[] = [...names];
    for (; i < path.length; i++) {
      const seg = path[i]!;
      if (seg.kind === 'string') base.push(seg.value);
      else if (seg.kind === 'number' && typeof seg.value === 'number') base.push(seg.value);
      else break;
    }
    return { expr: { k: 'base', path: base }, used: i };
  }

  /** A pattern: unbound vars bind, bound parts must equal. */
  pattern(t: Term, out: Block, fresh = new Set<number>()): Pattern {
    if (t.kind === 'var' && !ROOT_VARS.has(t.name)) {
      const s = this.slotOf(t);
      if (this.bound.has(s) && !fresh.has(s)) return { k: 'value', expr: { k: 'local', slot: s } };
      if (fresh.has(s)) return { k: 'value', expr: { k: 'local', slot: s } };
      fresh.add(s);
      this.bound.add(s);
      // A wildcard is never read: the mark lets a relation skip building it (ir/walk-shape.ts).
      return t.wildcard ? { k: 'bind', slot: s, wildcard: true } : { k: 'bind', slot: s };
    }
    if (t.kind === 'array' && !this.analyzer.evaluable(t, this.bound))
      return { k: 'array', items: t.items.map((x) => this.pattern(x, out, fresh)) };
    if (t.kind === 'object' && !this.analyzer.evaluable(t, this.bound))
      return { k: 'object', entries: t.entries.map(([k, v]) => [this.value(k, out), this.pattern(v, out, fresh)] as [Expr, Pattern]) };
    return { k: 'value', expr: this.value(t, out) };
  }

  /** Unify a term with an already-planned value. */
  unifyWithExpr(t: Term, e: Expr, out: Block): void {
    if (t.kind === 'var' && !ROOT_VARS.has(t.name)) {
      const s = this.slotOf(t);
      if (!this.bound.has(s)) {
        out.push({ k: 'let', slot: s, expr: e });
        this.bound.add(s);
        return;
      }
    }
    if ((t.kind === 'array' || t.kind === 'object') && !this.analyzer.evaluable(t, this.bound)) {
      out.push({ k: 'match', pattern: this.pattern(t, out), expr: e });
      return;
    }
    out.push({ k: 'equal', a: this.value(t, out), b: e });
  }

  /** Plan `a = b`, decomposing composite patterns so each side is evaluable when used. */
  unify(a: Term, b: Term, out: Block, loc: Location): void {
    const work: [Term, Term][] = [[a, b]];
    let guard = 0;
    while (work.length > 0) {
      if (guard++ > 10000) throw new RegoError('rego_compile_error', 'unification too deep', loc);
      let idx = work.findIndex(([x, y]) => this.readyToUnify(x, y));
      if (idx < 0) idx = 0;
      const [x, y] = work.splice(idx, 1)[0]!;
      const xe = this.evaluableAfterGens(x);
      const ye = this.evaluableAfterGens(y);
      if (x.kind === 'array' && y.kind === 'array' && !(xe && ye)) {
        if (x.items.length !== y.items.length) {
          out.push({ k: 'test', expr: { k: 'const', value: false } });
          return;
        }
        x.items.forEach((xi, i) => work.push([xi, y.items[i]!]));
        continue;
      }
      if (x.kind === 'object' && y.kind === 'object' && !(xe && ye)) {
        if (x.entries.length !== y.entries.length) {
          out.push({ k: 'test', expr: { k: 'const', value: false } });
          return;
        }
        for (const [k, v] of x.entries) {
          const other = y.entries.find(([k2]) => sameConst(k, k2));
          if (!other) {
            out.push({ k: 'test', expr: { k: 'const', value: false } });
            return;
          }
          work.push([v, other[1]]);
        }
        continue;
      }
      if (ye || !xe) this.unifyWithExpr(x, this.value(y, out), out);
      else this.unifyWithExpr(y, this.value(x, out), out);
    }
  }

  private evaluableAfterGens(t: Term): boolean {
    const g = this.analyzer.gens(t, this.bound);
    return this.analyzer.evaluable(t, withSlots(this.bound, g));
  }

  private readyToUnify(x: Term, y: Term): boolean {
    return this.evaluableAfterGens(x) || this.evaluableAfterGens(y);
  }
}

/**
 * OPA's RewriteComprehensionTerms: a head term that needs evaluation (it holds a
 * ref, a call or a comprehension) is bound to a generated var by an `=` appended to
 * the body, so the ref can bind body vars (`{k: labels[k] | startswith(k, "a")}`).
 */
let generatedHeads = 0;

function bindComprehensionHead(t: Term & { kind: 'arraycomp' | 'setcomp' | 'objectcomp' }): typeof t {
  const extra: Body = [];
  const bind = (head: Term): Term => {
    if (!needsEval(head)) return head;
    const v: VarTerm = { kind: 'var', name: `$head${generatedHeads++}`, loc: head.loc };
    const eq: Term = { kind: 'call', op: { kind: 'var', name: 'eq', loc: head.loc }, args: [v, head], loc: head.loc };
    extra.push({ kind: 'expr', negated: false, body: { type: 'term', term: eq }, with: [], loc: head.loc });
    return v;
  };
  if (t.kind === 'objectcomp') {
    const key = bind(t.key);
    const value = bind(t.value);
    return extra.length === 0 ? t : { ...t, key, value, body: [...t.body, ...extra] };
  }
  const head = bind(t.head);
  return extra.length === 0 ? t : { ...t, head, body: [...t.body, ...extra] };
}

/**
 * OPA's requiresEval: the term holds a ref, a call or a comprehension; with
 * `templates`, a template string too (OPA has rewritten it to a call by its head-safety stage).
 */
export function needsEval(t: Term, templates = false): boolean {
  let found = false;
  forEachTerm(t, (x) => {
    if (x.kind === 'ref' || x.kind === 'call' || x.kind === 'arraycomp' || x.kind === 'setcomp' || x.kind === 'objectcomp' || (templates && x.kind === 'template')) found = true;
  });
  return found;
}

/** A constant key into the data tree: strings, and numbers as their text (as OPA's storage). */
function baseKey(t: Term): string | undefined {
  if (t.kind === 'string') return t.value;
  if (t.kind === 'number') return t.text;
  return undefined;
}

function allConst(items: Expr[]): boolean {
  return items.every((x) => x.k === 'const');
}

function constOf(e: Expr): Value {
  return (e as { value: Value }).value;
}
