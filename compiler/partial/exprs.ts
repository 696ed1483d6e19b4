// Partial evaluation of IR expressions (the statement half is eval.ts).
//
// Evaluation is continuation-passing like the reference interpreter, because an
// expression may branch: an inlined rule with two definitions gives two values,
// each under its own residual conditions. `ex(e, f, k)` calls `k` per partial
// value; true stops. An expression that reads no unknown (Deps) and only known
// slots is evaluated by the reference interpreter (compiler/interp) in one step,
// so builtins, known rules and virtual documents keep their exact semantics;
// only what touches unknowns is handled here, building residual AST terms.
import type { Expr as AstExpr, Body, Location, Term } from '../ast/nodes.js';
import type { Block, Expr, Pattern } from '../ir/ir.js';
import type { Value } from '../../runtime/value/value.js';
import { blockBody, type Slots } from '../interp/frames.js';
import type { Interpreter } from '../interp/interpreter.js';
import { RUNTIME } from '../../runtime/scope.js';
import { matches } from '../passes/check-types.js';
import { eqExpr, LOC, mkCall, mkRef, PartialUnsupported, refAppend, Sym, toTerm, valueToTerm, type PVal, groundRootPath } from './terms.js';
import { isPrefix, localsOf, type Root, type World } from './world.js';
import type { PartialRules } from './rules.js';
import { boundInside, findComprehension, saveComprehension, type OuterBinding } from './comprehension.js';

export type K = () => boolean;
export type KV = (v: PVal) => boolean;

/** One rule body's or query's slots: known values, or residual terms. */
export class Frame {
  readonly vals: Slots;
  readonly syms: (Term | undefined)[];
  constructor(
    size: number,
    readonly id: number,
    readonly names: string[],
    /** The query's own frame: user vars keep their names in the residual. */
    readonly query = false,
  ) {
    this.vals = new Array(size);
    this.syms = new Array(size);
  }

  /** Generated vars named so far (see PartialExprs.fresh). */
  generated = 0;

  get(slot: number): PVal | undefined {
    const s = this.syms[slot];
    return s !== undefined ? new Sym(s) : this.vals[slot];
  }

  set(slot: number, v: PVal): void {
    if (v instanceof Sym) {
      this.syms[slot] = v.t;
      this.vals[slot] = undefined;
    } else {
      this.vals[slot] = v;
      this.syms[slot] = undefined;
    }
  }
}

export abstract class PartialExprs {
  /** The residual expressions of the current search path. */
  saved: AstExpr[] = [];
  private frameIds = 0;
  private readonly used = new Set<string>();
  /** Order in which residual vars were made (vars older than a mark are "outer"). */
  readonly varSeq = new Map<string, number>();
  abstract rules: PartialRules;

  constructor(
    public world: World,
    readonly ip: Interpreter,
  ) {}

  abstract block(b: Block, i: number, f: Frame, k: K): boolean;
  abstract match(p: Pattern, v: PVal, f: Frame, k: K): boolean;

  frame(size: number, names: string[] | undefined, query = false): Frame {
    return new Frame(size, query ? 0 : ++this.frameIds, names ?? [], query);
  }

  reserve(name: string): void {
    this.used.add(name);
  }

  /** A fresh residual var named after a slot (OPA appends the frame id: `x1`, `$02`). */
  fresh(f: Frame | undefined, slot?: number, key = false): Term & { kind: 'var' } {
    let base = f && slot !== undefined ? (f.names[slot] ?? '$t') : '$t';
    if (f?.query && !base.startsWith('$')) return { kind: 'var', name: base, loc: LOC };
    // An iteration key the compiler generated: OPA's compiler names those `__localN__`,
    // numbered after the rule's declared locals.
    if (f && key && base.startsWith('$t')) base = `__local${f.names.filter((n) => !n.startsWith('$')).length + f.generated++}__`;
    const stem = base + String(f?.id ?? 0);
    let name = stem;
    for (let n = 1; this.used.has(name); n++) name = `${stem}_${n}`;
    this.used.add(name);
    this.varSeq.set(name, this.varSeq.size);
    return { kind: 'var', name, loc: LOC };
  }

  /** The source location of the statement being evaluated (residual expressions get it). */
  curLoc: Location = LOC;

  /** The source expression of the statement being evaluated. */
  src: AstExpr | undefined;

  /** The document at a constant data path as a term, when nothing under it is unknown (else undefined). */
  knownData(path: string[]): Term | undefined {
    const ir = this.ip.ir;
    let node = ir.nodes[0];
    let depth = 0;
    while (node && depth < path.length) {
      const child = node.children.get(path[depth]!);
      if (child === undefined) break;
      node = ir.nodes[child];
      depth++;
    }
    let v: Value | undefined | 'sym' | 'opaque';
    if (!node || depth === 0) v = this.world.resolve('data', path);
    else {
      if (this.world.deps.node(node.id) || this.world.unknowns.data.some((u) => isPrefix(u, path) || isPrefix(path, u))) return undefined;
      v = this.ip.rules.vdoc(node.id, this.world.ctx);
      if (v !== undefined && depth < path.length) v = RUNTIME.dig(v, path.slice(depth));
    }
    return v === undefined || v === 'sym' || v === 'opaque' ? undefined : valueToTerm(v);
  }

  /**
   * A nested body's search (negation, every, comprehension) as a traced child query,
   * as the interpreter traces them: Enter, then Exit and Redo around each solution.
   * `run` calls `solution(k)` where the body has a solution.
   */
  nested<T>(b: Block, f: Frame, run: (solution: (k: () => boolean) => boolean) => T, fallback?: AstExpr): T {
    const rec = this.ip.rec;
    if (!rec) return run((k) => k());
    return this.ip.child(undefined, (q) => {
      const body = blockBody(b);
      // A body planned without source expressions (`not x == 1`) is shown as its expression.
      const node = { type: 'body', node: body.length === 0 && fallback ? [fallback] : body } as const;
      const loc = node.node[0]?.loc;
      rec.emit('Enter', q, f.vals, node, loc);
      return run((k) => {
        rec.emit('Exit', q, f.vals, node, loc);
        const stop = k();
        if (!stop) rec.emit('Redo', q, f.vals, node, loc);
        return stop;
      });
    });
  }

  /** A fresh var name from a source name, numbered by frame (a saved comprehension's vars). */
  freshName(base: string, f: Frame | undefined): string {
    const stem = base + String(f?.id ?? 0);
    let name = stem;
    for (let n = 1; this.used.has(name); n++) name = `${stem}_${n}`;
    this.used.add(name);
    return name;
  }

  /** Add a residual expression for the rest of this path. */
  save(e: AstExpr, k: K): boolean {
    const s = this.saved;
    const x = e.loc.row === 0 && this.curLoc.row !== 0 ? { ...e, loc: this.curLoc } : e;
    s.push(x);
    this.ip.rec?.emit('Save', this.ip.q, undefined, { type: 'expr', node: x }, x.loc);
    try {
      return k();
    } finally {
      s.pop();
    }
  }

  /** Run a sub-search; each solution's residual body with what `k` captured. */
  sub<T>(run: (k: (x: T) => boolean) => boolean): { body: Body; x: T }[] {
    const outer = this.saved;
    this.saved = [];
    const out: { body: Body; x: T }[] = [];
    try {
      run((x) => {
        out.push({ body: this.saved.slice(), x });
        return false;
      });
    } finally {
      this.saved = outer;
    }
    return out;
  }

  /** True when `e` reads no unknown and only known slots. */
  known(e: Expr, f: Frame): boolean {
    if (e.k === 'const') return true;
    if (this.world.deps.expr(e)) return false;
    for (const s of localsOf(e)) if (f.syms[s] !== undefined) return false;
    return true;
  }

  ex(e: Expr, f: Frame, k: KV): boolean {
    if (this.known(e, f)) {
      const v = this.ip.expr(e, f.vals, this.world.ctx);
      return v === undefined ? false : k(v);
    }
    switch (e.k) {
      case 'const':
        return k(e.value);
      case 'local': {
        const v = f.get(e.slot);
        return v === undefined ? false : k(v);
      }
      case 'input':
        return this.root('input', [], k);
      case 'base':
        return this.root('data', e.path, k);
      case 'rule':
        return this.rules.group(e.group, k);
      case 'vdoc':
        return this.rules.vdoc(e.node, k);
      case 'vdocdot':
        return this.ex(e.key, f, (key) => this.rules.vdocKey(e.node, key, k));
      case 'dot':
        if (e.base.k === 'rule' && this.rules.inlinableCollection(e.base.group)) {
          return this.ex(e.key, f, (key) => this.rules.member(e.base.k === 'rule' ? e.base.group : -1, key, k));
        }
        return this.ex(e.base, f, (b) => this.ex(e.key, f, (key) => this.dot(b, key, k)));
      case 'call':
        return this.exs(e.args, f, (args) => this.call(e.name, args, e.loc, k, e.opLoc));
      case 'callfn':
        return this.exs(e.args, f, (args) => this.rules.callFn(e.group, args, e.loc, k, e.opLoc));
      case 'array':
        return this.exs(e.items, f, (xs) => k(xs.some((x) => x instanceof Sym) ? new Sym({ kind: 'array', items: xs.map(toTerm), loc: LOC }) : (xs as Value[])));
      case 'set':
        return this.exs(e.items, f, (xs) => k(xs.some((x) => x instanceof Sym) ? new Sym({ kind: 'set', items: xs.map(toTerm), loc: LOC }) : RUNTIME.RSet.of(xs as Value[])));
      case 'object': {
        const flat = e.entries.flat();
        return this.exs(flat, f, (xs) => {
          if (xs.some((x) => x instanceof Sym)) {
            const entries: [Term, Term][] = [];
            for (let i = 0; i < xs.length; i += 2) entries.push([toTerm(xs[i]!), toTerm(xs[i + 1]!)]);
            return k(new Sym({ kind: 'object', entries, loc: LOC }));
          }
          const o = new RUNTIME.RObject();
          for (let i = 0; i < xs.length; i += 2) RUNTIME.setUnique(o, xs[i] as Value, xs[i + 1] as Value, e.loc);
          return k(o);
        });
      }
      case 'compr':
        return this.comprehension(e, f, k);
      case 'template':
        return this.template(e, f, k);
    }
  }

  /** Evaluate a list left to right (each may branch). */
  exs(items: Expr[], f: Frame, k: (vs: PVal[]) => boolean, i = 0, acc: PVal[] = []): boolean {
    if (i >= items.length) return k(acc.slice());
    return this.ex(items[i]!, f, (v) => {
      acc[i] = v;
      return this.exs(items, f, k, i + 1, acc);
    });
  }

  /** The document at `root.path`: known, undefined, or a residual ref. */
  root(root: Root, path: Value[], k: KV): boolean {
    const r = this.world.resolve(root, path);
    if (r === 'sym') return k(new Sym(mkRef(root, path.map(valueToTerm)), undefined, true));
    if (r === 'opaque') return k(new Sym(mkRef(root, path.map(valueToTerm)), `the unknown ${root} as a whole after 'with' replaced part of it`, true));
    return r === undefined ? false : k(r);
  }

  dot(b: PVal, key: PVal, k: KV): boolean {
    if (!(b instanceof Sym)) {
      if (!(key instanceof Sym)) {
        const v = RUNTIME.dot(b, key);
        return v === undefined ? false : k(v);
      }
      return k(new Sym(refAppend(valueToTerm(b), key.t)));
    }
    if (!(key instanceof Sym) && b.doc) {
      const g = groundRootPath(b.raw);
      if (g && g.root === 'data' && typeof key !== 'string' && this.world.resolve('data', [...g.path, key]) === 'sym') {
        // `x[2]` on a value of unknown data is not the store's `data.a[2]` (which reads key "2").
        const x = this.fresh(undefined);
        return this.save(eqExpr(x, b.t), () => k(new Sym(refAppend(x, valueToTerm(key)))));
      }
      if (g) return this.root(g.root, [...g.path, key], k);
    }
    return k(new Sym(refAppend(b.t, toTerm(key))));
  }

  call(name: string, args: PVal[], loc: AstExpr['loc'], k: KV, opLoc: AstExpr['loc'] = loc): boolean {
    const c = this.world.ctx;
    const allKnown = !args.some((a) => a instanceof Sym);
    if (c.fnOverrides?.has(name)) {
      if (!allKnown) throw new PartialUnsupported(`'with' replacing ${name} called on unknowns`);
      const v = this.ip.rules.callByName(name, args as Value[], c, loc);
      return v === undefined ? false : k(v);
    }
    const def = this.ip.builtin(name, loc);
    if (allKnown && !(def.decl.nondeterministic && !this.world.deps.ndb)) {
      const v = this.ip.invoke(def, name, args as Value[], c, loc);
      return v === undefined ? false : k(v);
    }
    // OPA drops a residual body that fails to type-check (PassesTypeCheck): a known
    // argument of the wrong type makes the call undefined (an error in strict mode).
    const types = def.decl.args;
    if (args.some((a, i) => !(a instanceof Sym) && types[i] !== undefined && !matches(a, types[i]!))) return false;
    return k(new Sym(mkCall(name, args.map(toTerm), loc, opLoc)));
  }

  /**
   * A string template never fails: an undefined part prints as `<undefined>`. Known
   * parts become text; a part over unknowns stays a term of a residual template
   * (it must not branch or add conditions, or the template would no longer be total).
   */
  private template(e: Expr & { k: 'template' }, f: Frame, k: KV): boolean {
    const parts: (string | Term)[] = [];
    for (const p of e.parts) {
      if (typeof p === 'string' || this.known(p, f)) {
        const text = typeof p === 'string' ? p : RUNTIME.templateText(this.ip.expr(p, f.vals, this.world.ctx));
        if (typeof parts[parts.length - 1] === 'string') parts[parts.length - 1] += text;
        else parts.push(text);
        continue;
      }
      const alts = this.sub<PVal>((emit) => this.ex(p, f, emit));
      if (alts.length > 1 || alts.some((a) => a.body.length > 0)) throw new PartialUnsupported('string template parts that add residual conditions');
      const v = alts[0]?.x;
      if (v === undefined || !(v instanceof Sym)) {
        const text = RUNTIME.templateText(v as Value | undefined);
        if (typeof parts[parts.length - 1] === 'string') parts[parts.length - 1] += text;
        else parts.push(text);
      } else parts.push(v.t);
    }
    if (!parts.some((p) => typeof p !== 'string')) return k(parts.join(''));
    return k(new Sym({ kind: 'template', parts, loc: LOC }));
  }

  /** A comprehension over unknowns: its value when the body resolves, else a residual comprehension. */
  private comprehension(e: Expr & { k: 'compr' }, f: Frame, k: KV): boolean {
    const mark = this.varSeq.size;
    const src = this.src; // the body's statements set their own while it is searched
    // What the comprehension reads from the enclosing body, as bound before its search.
    const inside = boundInside(e);
    const outer: OuterBinding[] = [];
    for (const slot of localsOf(e)) {
      const v = inside.has(slot) ? undefined : f.get(slot);
      const name = f.names[slot];
      if (v !== undefined && name !== undefined) outer.push({ name, term: toTerm(v) });
    }
    const alts = this.nested(e.body, f, (solution) =>
      this.sub<[PVal, PVal | undefined]>((emit) =>
        this.block(e.body, 0, f, () => this.ex(e.head, f, (h) => (e.key ? this.ex(e.key, f, (key) => solution(() => emit([h, key]))) : solution(() => emit([h, undefined]))))),
      ),
    );
    this.src = src;
    if (alts.every((a) => a.body.length === 0 && !(a.x[0] instanceof Sym) && !(a.x[1] instanceof Sym))) {
      if (e.kind === 'object') {
        const o = new RUNTIME.RObject();
        for (const a of alts) RUNTIME.setUnique(o, a.x[1] as Value, a.x[0] as Value, e.loc);
        return k(o);
      }
      const xs = alts.map((a) => a.x[0] as Value);
      return k(e.kind === 'set' ? RUNTIME.RSet.of(xs) : xs);
    }
    if (alts.length > 1 && e.kind === 'set') {
      // A set comprehension over alternatives is the union of one comprehension per alternative.
      const parts: Term[] = alts.map((a) => ({ kind: 'setcomp', head: toTerm(a.x[0]), body: this.rules.finish(a.body, [a.x[0]], mark), loc: LOC }));
      return k(new Sym(parts.reduce((acc, t) => mkCall('or', [acc, t], e.loc))));
    }
    if (alts.length !== 1) {
      // As OPA: the whole comprehension, its outer bindings appended (comprehension.ts).
      const c = findComprehension(src, e.loc, this.ip.ir);
      if (!c) throw new PartialUnsupported('array and object comprehensions whose body has several residual alternatives');
      return k(new Sym(saveComprehension(c, outer, (n) => this.freshName(n, f), (path) => this.knownData(path))));
    }
    const [h, key] = alts[0]!.x;
    const body = this.rules.finish(alts[0]!.body, [h, key], mark);
    if (e.kind === 'object') return k(new Sym({ kind: 'objectcomp', key: toTerm(key!), value: toTerm(h), body, loc: LOC }));
    return k(new Sym({ kind: e.kind === 'set' ? 'setcomp' : 'arraycomp', head: toTerm(h), body, loc: LOC }));
  }
}
