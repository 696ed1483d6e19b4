// Partial evaluation of IR statements and patterns: the search that produces
// residual queries. Statements whose operands are all known run in the reference
// interpreter (same frame, same EvalContext); the others add residual
// expressions to the current path (`save`) and continue:
//   let/match   a residual value binds its slot to a fresh var `$v` with `$v = T`
//               saved (copy propagation later writes T where `$v` is used);
//   test/equal  the residual expression itself (`gt(input.x, 0)`, `eq(a, b)`);
//   scan        over a residual collection: a fresh key var, the element as `T[$k]`;
//   not         the negated body's residual alternatives, inlined as their
//               complement or as a `data.partial.__not…__` support rule;
//   every       a known domain expands per member; an unknown one stays `every`;
//   with        known replacement values give a derived World (input/data/functions).
import type { Expr as AstExpr, Location, Term } from '../ast/nodes.js';
import { evalWith } from './with.js';
import type { Block, Pattern, Stmt, Expr } from '../ir/ir.js';
import type { Value } from '../../runtime/value/value.js';
import { RUNTIME } from '../../runtime/scope.js';
import { Frame, PartialExprs, type K } from './exprs.js';
import { alwaysDefined, bodyVars, eqExpr, LOC, mkCall, mkExpr, mkRef, PartialUnsupported, refAppend, Sym, toTerm, type PVal } from './terms.js';
import { bindsOf, localsOf } from './world.js';
import { canInlineNegation, complementProduct, copyPropagate } from './residual.js';
import { PartialRules } from './rules.js';
import { segmentEnd } from '../interp/frames.js';

/** Per statement of a block, the location of the source expression it belongs to. */
const LOCS = new WeakMap<Block, Location[]>();
function locsOf(b: Block): Location[] {
  let out = LOCS.get(b);
  if (!out) {
    let cur = LOC;
    out = b.map((s) => (cur = s.src?.loc ?? cur));
    LOCS.set(b, out);
  }
  return out;
}

/** Per statement of a block, the source expression it belongs to. */
const SRCS = new WeakMap<Block, (AstExpr | undefined)[]>();
function srcsOf(b: Block): (AstExpr | undefined)[] {
  let out = SRCS.get(b);
  if (!out) {
    let cur: AstExpr | undefined;
    out = b.map((s) => (cur = s.src ?? cur));
    SRCS.set(b, out);
  }
  return out;
}

/** Most residual alternatives a known `every` domain may multiply into. */
const MAX_EVERY_BRANCHES = 64;

export class PartialEvaluator extends PartialExprs {
  rules: PartialRules = new PartialRules(this);
  private negations = 0;

  block(b: Block, i: number, f: Frame, k: K): boolean {
    if (i >= b.length) return k();
    if (this.ip.rec && b[i]!.src) return this.traced(b, i, f, k);
    this.world.ctx.tick(); // the deadline (every 1024 steps)
    this.src = srcsOf(b)[i];
    return this.stmt(b[i]!, f, () => this.block(b, i + 1, f, k), locsOf(b)[i]!);
  }

  /**
   * With a trace recorder: the statements planned from one source expression as
   * the interpreter traces them (interp/interpreter.ts): Eval, then Redo after
   * each solution's continuation, or Fail when there was none.
   */
  private traced(b: Block, i: number, f: Frame, k: K): boolean {
    const rec = this.ip.rec!;
    const src = b[i]!.src!;
    const end = segmentEnd(b, i);
    const q = this.ip.q;
    const node = { type: 'expr', node: src } as const;
    rec.emit('Eval', q, f.vals, node, src.loc);
    let defined = false;
    const range = (j: number): boolean => {
      if (j >= end) {
        defined = true;
        const stop = this.block(b, end, f, k);
        if (!stop) rec.emit('Redo', q, f.vals, node, src.loc);
        return stop;
      }
      this.world.ctx.tick();
      this.src = srcsOf(b)[j];
      return this.stmt(b[j]!, f, () => range(j + 1), locsOf(b)[j]!);
    };
    const stop = range(i);
    if (!defined) rec.emit('Fail', q, f.vals, node, src.loc);
    return stop;
  }

  private knownStmt(s: Stmt, f: Frame): boolean {
    if (this.world.deps.stmt(s)) return false;
    for (const slot of localsOf(s)) if (f.syms[slot] !== undefined) return false;
    return true;
  }


  stmt(s: Stmt, f: Frame, k: K, loc: Location = LOC): boolean {
    const src = this.src;
    // Residual expressions saved for this statement carry its source location; inlined
    // rules change `curLoc`, so each callback sets it back before saving.
    this.curLoc = loc;
    const at = <T>(fn: (v: T) => boolean) => (v: T): boolean => {
      this.curLoc = loc;
      return fn(v);
    };
    if (this.knownStmt(s, f)) {
      const binds = bindsOf(s);
      return this.ip.stmt(s, f.vals, this.world.ctx, () => {
        for (const b of binds) f.syms[b] = undefined;
        return k();
      });
    }
    switch (s.k) {
      case 'let':
        return this.ex(s.expr, f, at((v) => this.bind(s.slot, v, f, k)));
      case 'capture':
        return this.ex(s.expr, f, at((v) => this.bind(s.slot, v, f, k)));
      case 'test':
        return this.ex(s.expr, f, at((v) => {
          if (v instanceof Sym) return this.save(mkExpr(this.moduleEquals(s.expr, v.t, f), false, loc), k);
          return v === false ? false : k();
        }));
      case 'equal':
        return this.ex(s.a, f, (a) =>
          this.ex(s.b, f, at((b) => {
            if (a instanceof Sym || b instanceof Sym) return this.save(eqExpr(toTerm(a), toTerm(b)), k);
            return RUNTIME.equal(a, b) ? k() : false;
          })),
        );
      case 'match':
        return this.ex(s.expr, f, at((v) => this.match(s.pattern, v, f, k)));
      case 'scan':
        return this.scan(s, f, () => ((this.curLoc = loc), k()));
      case 'relation':
        // `walk(T, [path, value])` over unknowns stays a call with its output pattern.
        return this.exs(s.args, f, at((args) => {
          if (!args.some((a) => a instanceof Sym)) {
            const results = this.ip.invoke(this.ip.builtin(s.name, s.loc), s.name, args as Value[], this.world.ctx, s.loc);
            if (!Array.isArray(results)) return false;
            for (const r of results) if (this.match(s.out, r, f, k)) return true;
            return false;
          }
          return this.patternTerm(s.out, f, (out) => this.save(mkExpr(mkCall(s.name, [...args.map(toTerm), out], s.loc), false, loc), k));
        }));
      case 'not':
        return this.not(s.body, f, k, loc);
      case 'every':
        return this.every(s, f, k, loc);
      case 'with':
        return evalWith(this, s.mods, s.body, f, k, src);
      case 'print':
        return k();
    }
  }

  /**
   * OPA's module compiler rewrites a top-level `a == b` to `a = b` (RewriteEquals);
   * its query compiler does not. A residual `equal` from a rule body becomes `eq`.
   */
  private moduleEquals(e: Expr, t: Term, f: Frame): Term {
    if (f.query || e.k !== 'call' || e.name !== 'equal' || t.kind !== 'call' || t.op.kind !== 'var' || t.op.name !== 'equal') return t;
    return { ...t, op: { ...t.op, name: 'eq' } };
  }

  /** Bind a slot; a residual value that is not a plain var gets a var of its own. */
  bind(slot: number, v: PVal, f: Frame, k: K): boolean {
    if (!(v instanceof Sym) || v.t.kind === 'var') {
      f.set(slot, v);
      return k();
    }
    const x = this.fresh(f, slot);
    f.set(slot, new Sym(x));
    return this.save(eqExpr(x, v.t), k);
  }

  match(p: Pattern, v: PVal, f: Frame, k: K): boolean {
    switch (p.k) {
      case 'bind':
        return this.bind(p.slot, v, f, k);
      case 'wild':
        if (v instanceof Sym && !alwaysDefined(v.t)) return this.save(eqExpr(this.fresh(undefined), v.t), k);
        return k();
      case 'value':
        return this.ex(p.expr, f, (w) => {
          if (v instanceof Sym || w instanceof Sym) return this.save(eqExpr(toTerm(v), toTerm(w)), k);
          return RUNTIME.equal(v, w) ? k() : false;
        });
      case 'array': {
        if (v instanceof Sym) return this.patternTerm(p, f, (t) => this.save(eqExpr(v.t, t), k));
        if (!Array.isArray(v) || v.length !== p.items.length) return false;
        const step = (i: number): boolean => (i >= p.items.length ? k() : this.match(p.items[i]!, v[i]!, f, () => step(i + 1)));
        return step(0);
      }
      case 'object': {
        if (v instanceof Sym) return this.patternTerm(p, f, (t) => this.save(eqExpr(v.t, t), k));
        if (!(v instanceof RUNTIME.RObject) || v.size !== p.entries.length) return false;
        const step = (i: number): boolean => {
          if (i >= p.entries.length) return k();
          const [ke, pe] = p.entries[i]!;
          return this.ex(ke, f, (key) => {
            if (key instanceof Sym) throw new PartialUnsupported('object patterns with unknown keys');
            const x = v.get(key);
            return x === undefined ? false : this.match(pe, x, f, () => step(i + 1));
          });
        };
        return step(0);
      }
    }
  }

  /** A pattern as a term, binding its slots to fresh vars (for `T = [a, b]` residuals). */
  private patternTerm(p: Pattern, f: Frame, k: (t: Term) => boolean): boolean {
    switch (p.k) {
      case 'bind': {
        const x = this.fresh(f, p.slot);
        f.set(p.slot, new Sym(x));
        return k(x);
      }
      case 'wild':
        return k(this.fresh(undefined));
      case 'value':
        return this.ex(p.expr, f, (w) => k(toTerm(w)));
      case 'array': {
        const items: Term[] = [];
        const step = (i: number): boolean =>
          i >= p.items.length ? k({ kind: 'array', items: items.slice(), loc: LOC }) : this.patternTerm(p.items[i]!, f, (t) => ((items[i] = t), step(i + 1)));
        return step(0);
      }
      case 'object': {
        const entries: [Term, Term][] = [];
        const step = (i: number): boolean => {
          if (i >= p.entries.length) return k({ kind: 'object', entries: entries.slice(), loc: LOC });
          const [ke, pe] = p.entries[i]!;
          return this.ex(ke, f, (key) => this.patternTerm(pe, f, (t) => ((entries[i] = [toTerm(key), t]), step(i + 1))));
        };
        return step(0);
      }
    }
  }

  private scan(s: Stmt & { k: 'scan' }, f: Frame, k: K): boolean {
    if (s.source.k === 'rule' && this.rules.inlinableCollection(s.source.group)) {
      return this.rules.scanGroup(s.source.group, (key, value) => this.match(s.key, key, f, () => this.match(s.value, value, f, k)));
    }
    return this.ex(s.source, f, (src) => {
      if (s.key.k === 'value') return this.ex(s.key.expr, f, (key) => this.dot(src, key, (v) => this.match(s.value, v, f, k)));
      if (!(src instanceof Sym)) {
        return RUNTIME.forEachMember(src, (key, v) => {
          this.world.ctx.tick();
          return this.match(s.key, key, f, () => this.match(s.value, v, f, k));
        });
      }
      if (s.key.k !== 'bind' && s.key.k !== 'wild') throw new PartialUnsupported('destructuring keys of an unknown collection');
      const kv = this.fresh(f, s.key.k === 'bind' ? s.key.slot : undefined, true);
      if (s.key.k === 'bind') f.set(s.key.slot, new Sym(kv));
      return this.match(s.value, new Sym(refAppend(src.t, kv)), f, k);
    });
  }

  /** The vars made before `mark` (bound outside a nested body). */
  outer(mark: number): (v: string) => boolean {
    return (v) => (this.varSeq.get(v) ?? Infinity) < mark;
  }

  private not(body: Block, f: Frame, k: K, loc: Location): boolean {
    const mark = this.varSeq.size;
    const src = this.src;
    const alts = this.nested(body, f, (solution) => this.sub<null>((emit) => this.block(body, 0, f, () => solution(() => emit(null)))), src && { ...src, negated: false }).map((a) => copyPropagate(a.body, new Set([...this.varSeq.keys()].filter(this.outer(mark)))));
    this.curLoc = loc;
    if (alts.length === 0) return k();
    if (alts.some((a) => a.length === 0)) return false;
    const outer = this.outer(mark);
    if (canInlineNegation(alts, outer)) {
      for (const conj of complementProduct(alts)) {
        const step = (i: number): boolean => (i >= conj.length ? k() : this.save(conj[i]!, () => step(i + 1)));
        if (step(0)) return true;
      }
      return false;
    }
    const name = `__not${this.world.base ? 1 : 2}_${this.negations}_${++this.negations}__`;
    const args = this.rules.negationSupport(name, alts, outer);
    const ref = mkRef('data', ['partial', name]);
    return this.save(mkExpr(args.length > 0 ? mkCall(ref, args, loc) : ref, true, loc), k);
  }

  private every(s: Stmt & { k: 'every' }, f: Frame, k: K, loc: Location): boolean {
    return this.ex(s.domain, f, (d) => {
      this.curLoc = loc;
      const mark = this.varSeq.size;
      if (!(d instanceof Sym)) {
        const members: [Value, Value][] = [];
        RUNTIME.forEachMember(d, (key, v) => (members.push([key, v]), false));
        let branches = 1;
        const step = (i: number): boolean => {
          if (i >= members.length) return k();
          const [key, v] = members[i]!;
          const alts = this.nested(s.body, f, (solution) => this.sub<null>((emit) => this.match(s.key, key, f, () => this.match(s.value, v, f, () => this.block(s.body, 0, f, () => solution(() => emit(null)))))));
          this.curLoc = loc;
          if (alts.length === 0) return false;
          if (alts.some((a) => a.body.length === 0)) return step(i + 1);
          if ((branches *= alts.length) > MAX_EVERY_BRANCHES) throw new PartialUnsupported('every over a known domain with too many residual alternatives');
          for (const a of alts) {
            const body = copyPropagate(a.body, new Set([...this.varSeq.keys()].filter(this.outer(mark))));
            const push = (j: number): boolean => (j >= body.length ? step(i + 1) : this.save(body[j]!, () => push(j + 1)));
            if (push(0)) return true;
          }
          return false;
        };
        return step(0);
      }
      const slotOf = (p: Pattern): number | undefined => (p.k === 'bind' ? p.slot : p.k === 'wild' ? undefined : -1);
      const ks = slotOf(s.key);
      const vs = slotOf(s.value);
      if (ks === -1 || vs === -1) throw new PartialUnsupported('every with patterns over an unknown domain');
      const kv = this.fresh(f, ks);
      const vv = this.fresh(f, vs);
      if (ks !== undefined) f.set(ks, new Sym(kv));
      if (vs !== undefined) f.set(vs, new Sym(vv));
      const alts = this.nested(s.body, f, (solution) => this.sub<null>((emit) => this.block(s.body, 0, f, () => solution(() => emit(null)))));
      this.curLoc = loc;
      if (alts.some((a) => a.body.length === 0)) return k();
      const live = new Set([...this.varSeq.keys()].filter(this.outer(mark)));
      live.add(kv.name).add(vv.name);
      let body = alts.length === 0 ? [mkExpr({ kind: 'boolean', value: false, loc: LOC })] : copyPropagate(alts[0]!.body, live);
      if (alts.length > 1) {
        // Several alternatives per member: a support function holds them (one rule each),
        // called with the member and the outer vars the alternatives use.
        const name = `__every${this.world.base ? 1 : 2}_${this.negations}_${++this.negations}__`;
        const args = this.rules.negationSupport(name, alts.map((a) => copyPropagate(a.body, live)), (v) => live.has(v));
        const ref = mkRef('data', ['partial', name]);
        body = [mkExpr(args.length > 0 ? mkCall(ref, args, loc) : ref, false, loc)];
      }
      // A var the body does not use is written `_` (Rego rejects unused declared vars).
      const used = bodyVars(body);
      const wild = (v: typeof kv): typeof kv => (used.has(v.name) ? v : { ...v, wildcard: true });
      const expr = { kind: 'expr' as const, negated: false, with: [], loc, body: { type: 'every' as const, key: s.key.k === 'bind' ? wild(kv) : undefined, value: wild(vv), domain: d.t, body } };
      return this.save(expr, k);
    });
  }


}

