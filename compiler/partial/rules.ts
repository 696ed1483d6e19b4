// Partial evaluation of rules: inlining, and support rules when a rule cannot be
// inlined (as OPA's evalVirtualComplete / evalVirtualPartial / evalCall do).
//
// A rule group that reads no unknown is evaluated by the reference interpreter
// (memoized in the World's EvalContext), so conflicts, defaults, `else` and the
// virtual document tree keep the semantics shared by every back end. A group
// that depends on unknowns is:
//   * inlined — each definition's body is partially evaluated in a fresh frame
//     and each solution continues with the definition's value: complete rules
//     used as values, functions called with their arguments, and set/object
//     rules iterated (`p[x]`) or looked up (`p[k]`);
//   * or, when it has a `default`, an `else` chain, is named by
//     `disableInlining`, or is needed whole (`count(p)` of a set rule), written as
//     support rules in the package `data.partial.<package>` with residual bodies,
//     and referred to from the residual (`data.partial.example.allow`).
// Generated negations (`not` over several residual bodies) are support rules
// too: `data.partial.__notQ_I_N__`, functions of the outer vars they use.
import type { Body, Module, Rule, RuleHead, Term } from '../ast/nodes.js';
import type { Location } from '../source/location.js';
import type { Value } from '../../runtime/value/value.js';
import type { RuleDef, RuleGroup } from '../ir/ir.js';
import { RUNTIME } from '../../runtime/scope.js';
import type { PartialEvaluator } from './eval.js';
import type { Frame, K, KV } from './exprs.js';
import { exprVars as exprVarsOf, eqExpr, LOC, mkCall, mkExpr, mkRef, mkVar, PartialUnsupported, Sym, termVars, toTerm, valueToTerm, type PVal } from './terms.js';
import { copyPropagate } from './residual.js';
import { isPrefix } from './world.js';
import { dataRefText } from '../../runtime/value/format.js';

export class PartialRules {
  private readonly inProgress = new Set<number>();
  private readonly supported = new Set<string>();
  private readonly packages = new Map<string, { path: string[]; rules: Rule[] }>();
  disabled: string[][] = [];

  constructor(private readonly pe: PartialEvaluator) {}

  private get ir() {
    return this.pe.ip.ir;
  }

  private isDisabled(g: RuleGroup): boolean {
    return this.disabled.some((d) => isPrefix(d, g.path));
  }

  /** Overridden by `with data…`: true when the interpreter computes it; throws when only part is. */
  private overridden(g: RuleGroup): boolean {
    const os = this.pe.world.ctx.dataOverrides;
    if (!os) return false;
    if (os.some((o) => isPrefix(o.path, g.path))) return true;
    if (os.some((o) => isPrefix(g.path, o.path))) throw new PartialUnsupported(`'with' replacing part of data.${g.path.join('.')}, which depends on unknowns`);
    return false;
  }

  /** Under an unknown `data` ref: the rule stays a residual ref. */
  private unknownPath(path: string[]): boolean {
    return this.pe.world.unknowns.data.some((u) => isPrefix(u, path));
  }

  private inlinable(g: RuleGroup): boolean {
    return g.default === undefined && !this.isDisabled(g) && !this.inProgress.has(g.id) && g.defs.every((d) => d.else === undefined);
  }

  /** Run each definition of `g` in a fresh frame (params matched first); `k` sees the frame per solution. */
  private eachDef(g: RuleGroup, args: PVal[] | undefined, k: (d: RuleDef, f: Frame) => boolean): boolean {
    this.inProgress.add(g.id);
    try {
      for (const d of g.defs) {
        const f = this.pe.frame(d.frameSize, d.names);
        const body = (): boolean => this.traceRule(g, d, f, (kd) => this.pe.block(d.body, 0, f, kd), () => k(d, f));
        const params = (i: number): boolean => (!args || i >= d.params.length ? body() : this.pe.match(d.params[i]!, args[i]!, f, () => params(i + 1)));
        if (params(0)) return true;
      }
      return false;
    } finally {
      this.inProgress.delete(g.id);
    }
  }

  /**
   * An inlined definition's body as a traced child query (Enter/Exit/Redo of the
   * rule, as interp/rules.ts traces rule bodies). The continuation `k` belongs to
   * the referring query, so it runs with that query current.
   */
  private traceRule(g: RuleGroup, d: RuleDef, f: Frame, run: (k: K) => boolean, k: K): boolean {
    const ip = this.pe.ip;
    const rec = ip.rec;
    if (!rec || !d.src) return run(k);
    const outer = ip.q;
    return ip.child([], (q) => {
      rec.exprIndex.addRule(d.src!);
      const node = { type: 'rule', node: d.src!, path: dataRefText(g.path) } as const;
      rec.emit('Enter', q, f.vals, node, d.loc);
      return run(() => {
        rec.emit('Exit', q, f.vals, node, d.loc);
        ip.q = outer;
        let stop: boolean;
        try {
          stop = k();
        } finally {
          ip.q = q;
        }
        if (!stop) rec.emit('Redo', q, f.vals, node, d.loc);
        return stop;
      });
    });
  }

  /** The whole value of a rule group. */
  group(id: number, k: KV): boolean {
    const pe = this.pe;
    const g = this.ir.groups[id]!;
    const c = pe.world.ctx;
    if (this.overridden(g) || !pe.world.deps.group(id)) {
      const v = pe.ip.rules.evalGroup(id, c);
      return v === undefined ? false : k(v);
    }
    if (this.unknownPath(g.path)) return k(new Sym(mkRef('data', g.path)));
    if (g.kind === 'complete' && this.inlinable(g)) return this.eachDef(g, undefined, (d, f) => pe.ex(d.value, f, k));
    return k(new Sym(this.support(g)));
  }

  /** A set or object rule that `p[x]` / `p[k]` can inline. */
  inlinableCollection(id: number): boolean {
    const g = this.ir.groups[id]!;
    if (g.kind !== 'set' && g.kind !== 'object') return false;
    if (g.kind === 'object' && (g.leafSet || g.defs.some((d) => d.keys.length !== 1))) return false;
    if (!this.pe.world.deps.group(id) || this.unknownPath(g.path) || this.overridden(g)) return false;
    return this.inlinable(g);
  }

  /** `p[key]` of an inlinable set/object rule. */
  member(id: number, key: PVal, k: KV): boolean {
    return this.scanGroup(id, (kk, v) => this.unify(key, kk, () => k(v)));
  }

  /** Each member of an inlinable set/object rule: `k(key, value)`. */
  scanGroup(id: number, k: (key: PVal, value: PVal) => boolean): boolean {
    const pe = this.pe;
    const g = this.ir.groups[id]!;
    return this.eachDef(g, undefined, (d, f) => {
      if (g.kind === 'set') return pe.ex(d.value, f, (v) => k(v, v));
      return pe.ex(d.keys[0]!, f, (kk) => pe.ex(d.value, f, (v) => k(kk, v)));
    });
  }

  private unify(a: PVal, b: PVal, k: K): boolean {
    if (a instanceof Sym || b instanceof Sym) return this.pe.save(eqExpr(toTerm(a), toTerm(b)), k);
    return RUNTIME.equal(a, b) ? k() : false;
  }

  vdoc(node: number, k: KV): boolean {
    const pe = this.pe;
    const n = this.ir.nodes[node]!;
    if (!pe.world.deps.node(node)) {
      const v = pe.ip.rules.vdoc(node, pe.world.ctx);
      return v === undefined ? false : k(v);
    }
    if (this.unknownPath(n.path)) return k(new Sym(mkRef('data', n.path)));
    // The whole document: every rule below it as support rules, when no base data mixes in.
    if (!pe.world.base || RUNTIME.dig(pe.world.ctx.data, n.path) !== undefined || pe.world.ctx.dataOverrides) {
      throw new PartialUnsupported(`the whole document data.${n.path.join('.')} mixing base data and rules over unknowns`);
    }
    const all = (id: number): void => {
      const x = this.ir.nodes[id]!;
      for (const g of x.groups) if (this.ir.groups[g]!.kind !== 'function') this.support(this.ir.groups[g]!);
      for (const c of x.children.values()) all(c);
    };
    all(node);
    return k(new Sym(mkRef('data', ['partial', ...n.path])));
  }

  vdocKey(node: number, key: PVal, k: KV): boolean {
    const pe = this.pe;
    const n = this.ir.nodes[node]!;
    if (key instanceof Sym) {
      if (this.unknownPath(n.path)) return k(new Sym(mkRef('data', [...n.path, key.t])));
      if (n.groups.some((g) => this.ir.groups[g]!.kind !== 'function')) throw new PartialUnsupported(`data.${n.path.join('.')}[…] with an unknown key over rules with computed keys`);
      // One alternative per key the document can have: its child nodes and base data.
      const base = RUNTIME.dig(pe.world.ctx.data, n.path);
      const names = new Set<string>(n.children.keys());
      if (base instanceof RUNTIME.RObject) for (const x of base.keys()) if (typeof x === 'string') names.add(x);
      for (const name of names) if (pe.save(eqExpr(key.t, valueToTerm(name)), () => this.vdocKey(node, name, k))) return true;
      return false;
    }
    const child = typeof key === 'string' ? n.children.get(key) : undefined;
    if (child === undefined) return pe.root('data', [...n.path, key], k);
    const cn = this.ir.nodes[child]!;
    const groups = cn.groups.filter((g) => this.ir.groups[g]!.kind !== 'function');
    if (cn.children.size === 0 && groups.length === 1) return this.group(groups[0]!, k);
    return this.vdoc(child, k);
  }

  callFn(id: number, args: PVal[], loc: Location, k: KV, opLoc: Location = loc): boolean {
    const pe = this.pe;
    const g = this.ir.groups[id]!;
    const c = pe.world.ctx;
    const known = !args.some((a) => a instanceof Sym);
    const name = 'data.' + g.path.join('.');
    if (c.fnOverrides?.has(name) || !pe.world.deps.group(id)) {
      if (!known) {
        if (c.fnOverrides?.has(name)) throw new PartialUnsupported(`'with' replacing ${name} called on unknowns`);
      } else {
        const v = pe.ip.rules.callFunction(id, args as Value[], c, loc);
        return v === undefined ? false : k(v);
      }
    }
    if (this.inlinable(g)) return this.eachDef(g, args, (d, f) => pe.ex(d.value, f, k));
    return k(new Sym(mkCall({ ...this.support(g), loc: opLoc }, args.map(toTerm), loc)));
  }

  /** Copy propagation for a nested body: vars made before `mark` and those in `keep` stay. */
  finish(body: Body, keep: (PVal | undefined)[], mark: number): Body {
    const live = new Set<string>();
    for (const [v, seq] of this.pe.varSeq) if (seq < mark) live.add(v);
    for (const x of keep) if (x instanceof Sym) termVars(x.t, live);
    const out = copyPropagate(body, live);
    return out.length > 0 ? out : [mkExpr({ kind: 'boolean', value: true, loc: LOC })];
  }

  /**
   * Where support rules go: `data.partial…`; inside a `with` (whose replacements the
   * rules are evaluated under) a package of that World's own, `data.partial.__withN…`.
   */
  private prefix(): string[] {
    const w = this.pe.world;
    if (w.base) return ['partial'];
    let n = this.worlds.get(w);
    if (n === undefined) this.worlds.set(w, (n = ++this.worldCount));
    return ['partial', `__with${n}`];
  }

  private readonly worlds = new WeakMap<object, number>();
  private worldCount = 0;

  /** Write `g` as support rules under data.partial; returns the ref to use. */
  support(g: RuleGroup): Term & { kind: 'ref' } {
    const prefix = this.prefix();
    const ref = mkRef('data', [...prefix, ...g.path]);
    const key = `${prefix.join('.')}#${g.id}`;
    if (this.supported.has(key)) return ref;
    this.supported.add(key);
    const name = g.path[g.path.length - 1]!;
    const rules: Rule[] = [];
    for (const first of g.defs) {
      let top: Rule | undefined;
      let last: Rule | undefined;
      for (let d: RuleDef | undefined = first; d; d = d.else) {
        const made = this.supportDef(g, d, name);
        if (made.length === 0) continue;
        if (first.else === undefined) {
          rules.push(...made);
          continue;
        }
        if (made.length > 1) throw new PartialUnsupported(`an else branch of data.${g.path.join('.')} with several residual alternatives`);
        const r = made[0]!;
        if (!last) top = r;
        else last.else = r;
        last = r;
        if (r.body.length === 0) break;
      }
      if (top) rules.push(top);
    }
    if (g.default !== undefined) {
      const args = g.kind === 'function' ? Array.from({ length: g.arity ?? 0 }, () => this.pe.fresh(undefined)) : undefined;
      rules.push({ kind: 'rule', default: true, head: { ref: [mkVar(name)], args, value: valueToTerm(g.default), assign: true, contains: false, loc: LOC }, body: [], loc: LOC });
    }
    this.addRules([...prefix, ...g.path.slice(0, -1)], rules);
    return ref;
  }

  /** One definition as support rules: one per residual alternative of its body. */
  private supportDef(g: RuleGroup, d: RuleDef, name: string): Rule[] {
    const pe = this.pe;
    const mark = pe.varSeq.size;
    const f = pe.frame(d.frameSize, d.names);
    const args = d.params.map((p) => (p.k === 'bind' ? pe.fresh(f, p.slot) : pe.fresh(undefined)));
    const alts = pe.sub<{ keys: PVal[]; value: PVal }>((emit) => {
      const params = (i: number): boolean => (i >= d.params.length ? pe.block(d.body, 0, f, () => pe.exs(d.keys, f, (keys) => pe.ex(d.value, f, (value) => emit({ keys, value })))) : pe.match(d.params[i]!, new Sym(args[i]!), f, () => params(i + 1)));
      return params(0);
    });
    return alts.map((a) => {
      const body = this.finish(a.body, [...args.map((x) => new Sym(x)), ...a.x.keys, a.x.value], mark);
      const value = toTerm(a.x.value);
      const keys = a.x.keys.map(toTerm);
      const head: RuleHead = { ref: [mkVar(name), ...keys], assign: false, contains: false, loc: LOC };
      if (g.kind === 'function') Object.assign(head, { args, value });
      else if (g.kind === 'set' || (g.kind === 'object' && g.leafSet)) Object.assign(head, { key: value, contains: true });
      const trivial = body.length === 1 && body[0]!.body.type === 'term' && body[0]!.body.term.kind === 'boolean' && body[0]!.body.term.value === true;
      // `p if …` implies true; a rule without a body needs its value written.
      if (g.kind !== 'function' && g.kind !== 'set' && !(g.kind === 'object' && g.leafSet) && (trivial || !(value.kind === 'boolean' && value.value === true))) head.value = value;
      return { kind: 'rule' as const, default: false, head, body: trivial ? [] : body, loc: LOC };
    });
  }

  /** Support rules for a disjunction (a negation's, an `every` body's); returns the outer vars they take as arguments. */
  negationSupport(name: string, alts: Body[], outer: (v: string) => boolean): Term[] {
    const vars = new Set<string>();
    for (const alt of alts) for (const e of alt) for (const v of exprVarsOf(e)) if (outer(v)) vars.add(v);
    const args = [...vars].sort().map((v) => mkVar(v));
    const rules: Rule[] = alts.map((body) => ({
      kind: 'rule',
      default: false,
      head: { ref: [mkVar(name)], ...(args.length > 0 ? { args } : {}), assign: false, contains: false, loc: LOC },
      body,
      loc: LOC,
    }));
    this.addRules(['partial'], rules);
    return args;
  }

  private addRules(path: string[], rules: Rule[]): void {
    const key = path.join('\u0000');
    let p = this.packages.get(key);
    if (!p) this.packages.set(key, (p = { path, rules: [] }));
    p.rules.push(...rules);
  }

  modules(): Module[] {
    return [...this.packages.values()].map((p) => ({
      kind: 'module',
      file: '',
      package: { kind: 'package', path: [mkVar('data'), ...p.path.map((s) => ({ kind: 'string' as const, value: s, loc: LOC }))], loc: LOC },
      imports: [],
      rules: p.rules,
      annotations: [],
      comments: [],
      regoVersion: 1,
    }));
  }
}

