// The reference interpreter: evaluates the IR by walking it — a `switch` on each
// statement, expression and pattern kind — instead of compiling it to closures.
// It exists to (1) check the JS back end by differential testing (same PolicyIR,
// same RuntimeScope helpers, same EvalContext, so the two must agree exactly;
// codegen/js/closures.ts is the authority on semantics), (2) produce OPA-style
// trace events for explanations, `regent eval --explain` and `regent test`, and
// (3) stay small enough to read as an executable description of the IR.
//
// Evaluation is continuation-passing like the closures: running a block calls
// `k(frame, ctx)` once per solution; returning true stops the enumeration. When a
// Recorder is attached, each source expression (a segment of statements, see
// frames.ts) emits Eval before it runs, Redo after each solution's continuation
// returns, and Fail when it produced no solution; child queries (rule bodies,
// comprehensions, negations, every) get their own query ids. Rule-level
// operations (rule groups, virtual documents, functions) live in rules.ts.
import type { Block, Expr, Pattern, PolicyIR, Stmt, WithMod } from '../ir/ir.js';
import type { Expr as AstExpr } from '../ast/nodes.js';
import type { Location } from '../source/location.js';
import type { Value } from '../../runtime/value/value.js';
import type { RuntimeScope } from '../../runtime/scope.js';
import type { EvalContext } from '../../runtime/eval/context.js';
import type { BuiltinDef } from '../../runtime/builtins/types.js';
import { ROOT_QUERY, blockBody, segmentEnd, type QueryFrame, type Recorder, type Slots } from './frames.js';
import { Rules } from './rules.js';
import { originOf } from '../plan/origins.js';
import { walkShape } from '../ir/walk-shape.js';
import type { TermValue } from './trace.js';

/** A continuation: the rest of the body; true stops the enumeration. */
export type K = (f: Slots, c: EvalContext) => boolean;
const STOP: K = () => true;

export class Interpreter {
  readonly rules: Rules;
  /** The query the running statements belong to (trace ids). */
  q: QueryFrame = ROOT_QUERY;
  /** The source expression being evaluated (trace node of negations and notes). */
  cur: AstExpr | undefined;
  private readonly builtins = new Map<string, BuiltinDef>();
  /** Per relation statement, the definition it calls (relationBuiltin). */
  private readonly relations = new Map<Stmt, BuiltinDef>();

  constructor(
    readonly ir: PolicyIR,
    readonly rt: RuntimeScope,
    readonly rec?: Recorder,
  ) {
    this.rules = new Rules(this);
  }

  // ---------------------------------------------------------------- blocks

  /** Run `b` from statement `i`, calling `k` per solution. */
  block(b: Block, i: number, f: Slots, c: EvalContext, k: K): boolean {
    if (i >= b.length) return k(f, c);
    if (!this.rec) return this.stmt(b[i]!, f, c, (f2, c2) => this.block(b, i + 1, f2, c2, k));
    const end = segmentEnd(b, i);
    const rest: K = (f2, c2) => this.block(b, end, f2, c2, k);
    const src = b[i]!.src;
    if (!src) return this.range(b, i, end, f, c, rest);
    return this.traced(src, f, (k2) => this.range(b, i, end, f, c, k2), rest);
  }

  /** Run statements `i` up to `end` (one segment), then `k`. */
  private range(b: Block, i: number, end: number, f: Slots, c: EvalContext, k: K): boolean {
    if (i >= end) return k(f, c);
    return this.stmt(b[i]!, f, c, (f2, c2) => this.range(b, i + 1, end, f2, c2, k));
  }

  /** One traced expression: Eval, then Redo after each solution, or Fail if none. */
  private traced(src: AstExpr, f: Slots, body: (k: K) => boolean, rest: K): boolean {
    const rec = this.rec!;
    const q = this.q;
    const node = { type: 'expr', node: src } as const;
    const saved = this.cur;
    this.cur = src;
    rec.emit('Eval', q, f, node, src.loc);
    let defined = false;
    const savedLog = this.log;
    const log = new Map<Expr, Value | undefined>();
    this.log = log;
    try {
      const stop = body((f2, c2) => {
        defined = true;
        // The rest of the body runs under its own expressions' logs.
        this.log = savedLog;
        try {
          const r = rest(f2, c2);
          if (!r) rec.emit('Redo', q, f2, node, src.loc);
          return r;
        } finally {
          this.log = log;
        }
      });
      if (!defined) rec.emit('Fail', q, f, node, src.loc, undefined, termValues(log));
      return stop;
    } finally {
      this.cur = saved;
      this.log = savedLog;
      // An enclosing expression sees what its nested bodies evaluated (`not a`: a's value).
      if (savedLog !== undefined) for (const [e, v] of log) savedLog.set(e, v);
    }
  }

  /**
   * Run `fn` as a child query (rule body, comprehension, negation, every): with a
   * recorder, under a fresh query id whose parent is the current query.
   */
  child<T>(names: QueryFrame['names'] | undefined, fn: (q: QueryFrame) => T): T {
    if (!this.rec) return fn(this.q);
    const saved = this.q;
    const savedCur = this.cur;
    this.q = this.rec.child(saved, names ?? saved.names);
    try {
      return fn(this.q);
    } finally {
      this.q = saved;
      this.cur = savedCur;
    }
  }

  /** A nested body (negation, every, comprehension) as a traced child query. */
  private nested(b: Block, f: Slots, c: EvalContext, k: K, fallback?: AstExpr): boolean {
    if (!this.rec) return this.block(b, 0, f, c, k);
    return this.child(undefined, (q) => {
      const rec = this.rec!;
      const synthetic = fallback !== undefined && b.length > 0 && b[0]!.src === undefined;
      const body = synthetic ? [fallback] : blockBody(b);
      const node = { type: 'body', node: body } as const;
      const loc = body[0]?.loc;
      rec.emit('Enter', q, f, node, loc);
      const exit: K = (f2, c2) => {
        rec.emit('Exit', q, f2, node, loc);
        const r = k(f2, c2);
        if (!r) rec.emit('Redo', q, f2, node, loc);
        return r;
      };
      if (synthetic) return this.traced(fallback, f, (k2) => this.range(b, 0, b.length, f, c, k2), exit);
      return this.block(b, 0, f, c, exit);
    });
  }

  // ---------------------------------------------------------------- statements

  stmt(s: Stmt, f: Slots, c: EvalContext, next: K): boolean {
    const rt = this.rt;
    switch (s.k) {
      case 'let': {
        const v = this.expr(s.expr, f, c);
        if (v === undefined) return false;
        f[s.slot] = v;
        return next(f, c);
      }
      case 'test': {
        const v = this.expr(s.expr, f, c);
        return v === undefined || v === false ? false : next(f, c);
      }
      case 'capture':
        f[s.slot] = this.expr(s.expr, f, c);
        return next(f, c);
      case 'equal': {
        const x = this.expr(s.a, f, c);
        if (x === undefined) return false;
        const y = this.expr(s.b, f, c);
        return y !== undefined && rt.equal(x, y) ? next(f, c) : false;
      }
      case 'match': {
        const v = this.expr(s.expr, f, c);
        return v !== undefined && this.match(s.pattern, v, f, c) ? next(f, c) : false;
      }
      case 'scan':
        return this.scan(s, f, c, next);
      case 'relation': {
        const def = this.relationBuiltin(s);
        const vals = this.args(s.args, f, c);
        if (vals === undefined) return false;
        const results = this.invoke(def, s.name, vals, c, s.loc);
        if (!Array.isArray(results)) return false;
        for (const r of results) {
          c.tick();
          if (this.match(s.out, r, f, c) && next(f, c)) return true;
        }
        return false;
      }
      case 'not': {
        const negated = this.cur && this.cur.negated ? { ...this.cur, negated: false } : this.cur;
        return this.nested(s.body, f, c, STOP, negated) ? false : next(f, c);
      }
      case 'every':
        return this.every(s, f, c, next);
      case 'with':
        return this.with(s.mods, s.body, f, c, next);
      case 'print': {
        const parts = s.args.map((a) => rt.templateText(this.expr(a, f, c)));
        c.builtins.print(parts.join(' '));
        return next(f, c);
      }
    }
  }

  private scan(s: Stmt & { k: 'scan' }, f: Slots, c: EvalContext, next: K): boolean {
    const rt = this.rt;
    if (s.key.k === 'value') {
      // A bound key: a lookup, not an iteration.
      const o = this.expr(s.source, f, c);
      const k = this.expr(s.key.expr, f, c);
      if (o === undefined || k === undefined) return false;
      const v = rt.dot(o, k);
      return v !== undefined && this.match(s.value, v, f, c) ? next(f, c) : false;
    }
    return rt.forEachMember(this.expr(s.source, f, c), (k, v) => {
      c.tick();
      return this.match(s.key, k, f, c) && this.match(s.value, v, f, c) && next(f, c);
    });
  }

  private every(s: Stmt & { k: 'every' }, f: Slots, c: EvalContext, next: K): boolean {
    const d = this.expr(s.domain, f, c);
    if (d === undefined) return false;
    const failed = this.rt.forEachMember(d, (k, v) => {
      c.tick();
      if (!this.match(s.key, k, f, c) || !this.match(s.value, v, f, c)) return true;
      return !this.nested(s.body, f, c, STOP);
    });
    return failed ? false : next(f, c);
  }

  private with(mods: WithMod[], body: Block, f: Slots, c: EvalContext, next: K): boolean {
    const rt = this.rt;
    const nc = c.derive();
    for (const m of mods) {
      if (m.k === 'function') {
        const map = new Map(nc.fnOverrides ?? []);
        const v = m.value;
        if ('k' in v && v.k === 'fnref') {
          map.set(m.name, v.group !== undefined ? { kind: 'group', group: v.group } : { kind: 'builtin', name: v.name });
        } else {
          const x = this.expr(v as Expr, f, c);
          if (x === undefined) return false;
          map.set(m.name, { kind: 'value', value: x });
        }
        nc.fnOverrides = map;
        continue;
      }
      const v = this.expr(m.value, f, c);
      if (v === undefined) return false;
      if (m.k === 'input') nc.input = m.path.length === 0 ? v : rt.setPath(nc.input, m.path, v);
      else {
        nc.data = rt.setPath(nc.data, m.path, v);
        nc.dataOverrides = [...(nc.dataOverrides ?? []), { path: m.path, value: v }];
      }
    }
    return this.block(body, 0, f, nc, (f2, c2) => next(f2, c2.parent!));
  }

  // ---------------------------------------------------------------- patterns

  match(p: Pattern, v: Value, f: Slots, c: EvalContext): boolean {
    switch (p.k) {
      case 'bind':
        f[p.slot] = v;
        return true;
      case 'wild':
        return true;
      case 'value': {
        const w = this.expr(p.expr, f, c);
        return w !== undefined && this.rt.equal(v, w);
      }
      case 'array': {
        const n = p.items.length;
        if (!Array.isArray(v) || v.length !== n) return false;
        for (let i = 0; i < n; i++) if (!this.match(p.items[i]!, v[i]!, f, c)) return false;
        return true;
      }
      case 'object': {
        if (!(v instanceof this.rt.RObject) || v.size !== p.entries.length) return false;
        for (const [ke, pe] of p.entries) {
          const k = this.expr(ke, f, c);
          const x = k === undefined ? undefined : v.get(k);
          if (x === undefined || !this.match(pe, x, f, c)) return false;
        }
        return true;
      }
    }
  }

  // ---------------------------------------------------------------- expressions

  /**
   * While a traced expression is evaluated (traced), the values its IR expressions took,
   * for the refs, calls and comprehensions of its Fail event (termValues).
   */
  private log: Map<Expr, Value | undefined> | undefined;

  expr(e: Expr, f: Slots, c: EvalContext): Value | undefined {
    const v = this.exprValue(e, f, c);
    // Only expressions planned from a source ref, call or comprehension are drawn.
    if (this.log !== undefined && originOf(e) !== undefined) this.log.set(e, v);
    return v;
  }

  private exprValue(e: Expr, f: Slots, c: EvalContext): Value | undefined {
    const rt = this.rt;
    switch (e.k) {
      case 'const':
        return e.value;
      case 'local':
        return f[e.slot];
      case 'input':
        return c.input;
      case 'base':
        return rt.dig(c.data, e.path);
      case 'rule':
        return this.rules.evalGroup(e.group, c);
      case 'vdoc':
        return this.rules.vdoc(e.node, c);
      case 'vdocdot': {
        const k = this.expr(e.key, f, c);
        return k === undefined ? undefined : this.rules.vdocKey(e.node, k, c);
      }
      case 'dot': {
        const o = this.expr(e.base, f, c);
        if (o === undefined) return undefined;
        const k = this.expr(e.key, f, c);
        return k === undefined ? undefined : rt.dot(o, k);
      }
      case 'call': {
        const def = this.builtin(e.name, e.loc);
        const vals = this.args(e.args, f, c);
        if (vals === undefined) return undefined;
        if (c.fnOverrides !== undefined && c.fnOverrides.has(e.name)) return this.rules.callByName(e.name, vals, c, e.loc);
        return this.invoke(def, e.name, vals, c, e.loc);
      }
      case 'callfn': {
        const vals = this.args(e.args, f, c);
        return vals === undefined ? undefined : this.rules.callFunction(e.group, vals, c, e.loc);
      }
      case 'array':
        return this.args(e.items, f, c);
      case 'set': {
        const vals = this.args(e.items, f, c);
        return vals === undefined ? undefined : rt.RSet.of(vals);
      }
      case 'object': {
        const o = new rt.RObject();
        for (const [ke, ve] of e.entries) {
          const k = this.expr(ke, f, c);
          const v = this.expr(ve, f, c);
          if (k === undefined || v === undefined) return undefined;
          rt.setUnique(o, k, v, e.loc);
        }
        return o;
      }
      case 'compr':
        return this.comprehension(e, f, c);
      case 'template': {
        let s = '';
        for (const p of e.parts) s += typeof p === 'string' ? p : rt.templateText(this.expr(p, f, c));
        return s;
      }
    }
  }

  private comprehension(e: Expr & { k: 'compr' }, f: Slots, c: EvalContext): Value {
    const rt = this.rt;
    const ix = e.index;
    if (ix !== undefined) {
      // An indexed comprehension (passes/comprehension-index.ts): a lookup in the table
      // its keyed body builds once per context.
      const keys = this.args(ix.keys, f, c);
      if (keys !== undefined) return rt.comprehensionLookup(c, ix.id, keys, e.kind, () => this.expr(ix.pairs, new Array(ix.frameSize), c));
    }
    if (e.kind === 'object') {
      const obj = new rt.RObject();
      this.nested(e.body, f, c, (f2, c2) => {
        const k = this.expr(e.key!, f2, c2);
        const v = this.expr(e.head, f2, c2);
        if (k === undefined || v === undefined) return false;
        rt.setUnique(obj, k, v, e.loc);
        return false;
      });
      return obj;
    }
    const acc: Value[] = [];
    this.nested(e.body, f, c, (f2, c2) => {
      const v = this.expr(e.head, f2, c2);
      if (v !== undefined && acc.push(v) > rt.limits.maxCollectionSize) rt.collectionTooLarge();
      return false;
    });
    return e.kind === 'set' ? rt.RSet.of(acc) : acc;
  }

  /** Evaluate arguments left to right; undefined as soon as one is. */
  args(items: Expr[], f: Slots, c: EvalContext): Value[] | undefined {
    const out = new Array<Value>(items.length);
    for (let i = 0; i < items.length; i++) {
      const v = this.expr(items[i]!, f, c);
      if (v === undefined) return undefined;
      out[i] = v;
    }
    return out;
  }

  // ---------------------------------------------------------------- builtins

  builtin(name: string, loc: Location): BuiltinDef {
    let def = this.builtins.get(name);
    if (def === undefined) {
      def = this.rt.getBuiltin(name);
      if (!def) throw new this.rt.EvalError('eval_builtin_error', `undefined builtin ${name}`, loc);
      this.builtins.set(name, def);
    }
    return def;
  }

  /** The definition a relation statement calls: `walk` shaped by its output pattern (ir/walk-shape.ts), made once per statement. */
  relationBuiltin(s: Stmt & { k: 'relation' }): BuiltinDef {
    let def = this.relations.get(s);
    if (def === undefined) {
      const shape = walkShape(s);
      def = shape === undefined ? this.builtin(s.name, s.loc) : this.rt.shapedWalk(this.builtin(s.name, s.loc), shape);
      this.relations.set(s, def);
    }
    return def;
  }

  invoke(def: BuiltinDef, name: string, vals: Value[], c: EvalContext, loc: Location): Value | undefined {
    return this.rt.invokeBuiltin(def, name, vals, c, loc);
  }
}

/** The logged values of expressions planned from source refs, calls and comprehensions. */
function termValues(log: Map<Expr, Value | undefined>): TermValue[] {
  const out: TermValue[] = [];
  for (const [e, value] of log) {
    const term = originOf(e);
    if (term === undefined) continue;
    let base = e;
    while (base.k === 'dot') base = base.base;
    out.push({ term, value, virtual: base.k === 'rule' || base.k === 'vdoc' || base.k === 'vdocdot' });
  }
  return out;
}
