// The JS back end: IR statements become closures (expressions and patterns are
// in closure-exprs.ts, the base class). A block compiles back to front, each
// statement wrapping its continuation, so a body runs as nested calls and
// backtracking is the return path. No source text is generated: user values
// only ever live in closure variables.
import type { Block, Expr, Stmt, WithMod } from '../../ir/ir.js';
import type { Location } from '../../source/location.js';
import type { Value } from '../../../runtime/value/value.js';
import type { EvalContext } from '../../../runtime/eval/context.js';
import type { K } from './types.js';
import { ExprClosures } from './closure-exprs.js';

/** Rule-level operations the closures call back into (see program.ts). */
export interface ProgramOps {
  evalGroup(id: number, c: EvalContext): Value | undefined;
  vdoc(node: number, c: EvalContext): Value | undefined;
  vdocKey(node: number, key: Value, c: EvalContext): Value | undefined;
  /** Set-rule group `id`, or undefined when it is not a plain set rule. */
  isSetGroup(id: number): boolean;
  /** Produce the members of a set rule one by one (memoized value first); true = stopped. */
  generateSet(id: number, c: EvalContext, fn: (v: Value) => boolean): boolean;
  callFunction(id: number, args: Value[], c: EvalContext, loc: Location): Value | undefined;
  callByName(name: string, args: Value[], c: EvalContext, loc: Location): Value | undefined;
}

const STOP: K = () => true;

export class ClosureCompiler extends ExprClosures {
  /**
   * Compile a block. `generators` marks a rule body: there, a scan over a set
   * rule that no earlier iteration precedes runs the rule's definitions directly
   * instead of building the set (the order and duplicates cannot be observed).
   */
  block(stmts: Block, k: K, ordered = this.ordered, generators = false): K {
    const saved = [this.ordered, this.generators] as const;
    this.ordered = ordered;
    try {
      const firstIteration = stmts.findIndex((st) => st.k === 'scan' || st.k === 'relation' || st.k === 'every');
      let next = k;
      for (let i = stmts.length - 1; i >= 0; i--) {
        this.generators = generators && !ordered && i === firstIteration;
        next = this.stmt(stmts[i]!, next);
      }
      return next;
    } finally {
      [this.ordered, this.generators] = saved;
    }
  }

  stmt(s: Stmt, next: K): K {
    const rt = this.rt;
    switch (s.k) {
      case 'let': {
        const e = this.expr(s.expr);
        const slot = s.slot;
        return (f, c) => {
          const v = e(f, c);
          if (v === undefined) return false;
          f[slot] = v;
          return next(f, c);
        };
      }
      case 'test': {
        const e = this.expr(s.expr);
        return (f, c) => {
          const v = e(f, c);
          return v === undefined || v === false ? false : next(f, c);
        };
      }
      case 'capture': {
        const e = this.expr(s.expr);
        return (f, c) => {
          f[s.slot] = e(f, c);
          return next(f, c);
        };
      }
      case 'equal': {
        const a = this.expr(s.a);
        const b = this.expr(s.b);
        return (f, c) => {
          const x = a(f, c);
          if (x === undefined) return false;
          const y = b(f, c);
          return y !== undefined && rt.equal(x, y) ? next(f, c) : false;
        };
      }
      case 'match': {
        const e = this.expr(s.expr);
        const p = this.pattern(s.pattern);
        return (f, c) => {
          const v = e(f, c);
          return v !== undefined && p(v, f, c) ? next(f, c) : false;
        };
      }
      case 'scan':
        return this.scan(s, next);
      case 'relation': {
        const def = this.relationBuiltin(s);
        const args = s.args.map((a) => this.expr(a));
        const out = this.pattern(s.out);
        return (f, c) => {
          const vals = this.evalArgs(args, f, c);
          if (vals === undefined) return false;
          const results = this.invoke(def, s.name, vals, c, s.loc);
          if (!Array.isArray(results)) return false;
          for (const r of results) {
            c.tick();
            if (out(r, f, c) && next(f, c)) return true;
          }
          return false;
        };
      }
      case 'not': {
        const inner = this.block(s.body, STOP, false);
        return (f, c) => (inner(f, c) ? false : next(f, c));
      }
      case 'every':
        return this.every(s, next);
      case 'with':
        return this.with(s.mods, s.body, next);
      case 'print': {
        const args = s.args.map((a) => this.expr(a));
        return (f, c) => {
          const parts = args.map((a) => rt.templateText(a(f, c)));
          c.builtins.print(parts.join(' '));
          return next(f, c);
        };
      }
    }
  }

  private scan(s: Stmt & { k: 'scan' }, next: K): K {
    const rt = this.rt;
    if (this.generators && s.source.k === 'rule' && this.ops.isSetGroup(s.source.group)) return this.generatorScan(s, s.source.group, next);
    const src = this.expr(s.source);
    if (s.key.k === 'value') {
      // A bound key: a lookup, not an iteration.
      const key = this.expr(s.key.expr);
      const pv = this.pattern(s.value);
      return (f, c) => {
        const o = src(f, c);
        const k = key(f, c);
        if (o === undefined || k === undefined) return false;
        const v = rt.dot(o, k);
        return v !== undefined && pv(v, f, c) ? next(f, c) : false;
      };
    }
    const pk = this.pattern(s.key);
    const pv = this.pattern(s.value);
    const each = this.ordered ? rt.forEachMember : rt.forEachMemberUnordered;
    const kslot = s.key.k === 'bind' ? s.key.slot : -1;
    const vslot = s.value.k === 'bind' ? s.value.slot : -1;
    if (kslot >= 0 || s.key.k === 'wild') {
      if (vslot >= 0) {
        return (f, c) => {
          const o = src(f, c);
          if (o === undefined || o === null || typeof o !== 'object') return false;
          if (Array.isArray(o)) {
            for (let i = 0; i < o.length; i++) {
              c.tick();
              if (kslot >= 0) f[kslot] = i;
              f[vslot] = o[i];
              if (next(f, c)) return true;
            }
            return false;
          }
          return each(o, (k, v) => {
            c.tick();
            if (kslot >= 0) f[kslot] = k;
            f[vslot] = v;
            return next(f, c);
          });
        };
      }
    }
    return (f, c) =>
      each(src(f, c), (k, v) => {
        c.tick();
        return pk(k, f, c) && pv(v, f, c) && next(f, c);
      });
  }

  private generatorScan(s: Stmt & { k: 'scan' }, group: number, next: K): K {
    const pk = this.pattern(s.key);
    const pv = this.pattern(s.value);
    return (f, c) =>
      this.ops.generateSet(group, c, (v) => {
        c.tick();
        return pk(v, f, c) && pv(v, f, c) && next(f, c);
      });
  }

  private every(s: Stmt & { k: 'every' }, next: K): K {
    const rt = this.rt;
    const dom = this.expr(s.domain);
    const pk = this.pattern(s.key);
    const pv = this.pattern(s.value);
    const inner = this.block(s.body, STOP, false);
    return (f, c) => {
      const d = dom(f, c);
      if (d === undefined) return false;
      const failed = rt.forEachMember(d, (k, v) => {
        c.tick();
        if (!pk(k, f, c) || !pv(v, f, c)) return true;
        return !inner(f, c);
      });
      return failed ? false : next(f, c);
    };
  }

  private with(mods: WithMod[], body: Block, next: K): K {
    const rt = this.rt;
    const inner = this.block(body, (f, c) => next(f, c.parent!));
    const compiled = mods.map((m) => {
      if (m.k === 'function') {
        const v = m.value;
        if ('k' in v && v.k === 'fnref') {
          const target = v;
          return { m, value: undefined, fn: target };
        }
        return { m, value: this.expr(v as Expr), fn: undefined };
      }
      return { m, value: this.expr(m.value), fn: undefined };
    });
    return (f, c) => {
      const nc = c.derive();
      for (const { m, value, fn } of compiled) {
        if (m.k === 'function') {
          const map = new Map(nc.fnOverrides ?? []);
          if (fn) map.set(m.name, fn.group !== undefined ? { kind: 'group', group: fn.group } : { kind: 'builtin', name: fn.name });
          else {
            const v = value!(f, c);
            if (v === undefined) return false;
            map.set(m.name, { kind: 'value', value: v });
          }
          nc.fnOverrides = map;
          continue;
        }
        const v = value!(f, c);
        if (v === undefined) return false;
        if (m.k === 'input') nc.input = m.path.length === 0 ? v : rt.setPath(nc.input, m.path, v);
        else {
          nc.data = rt.setPath(nc.data, m.path, v);
          nc.dataOverrides = [...(nc.dataOverrides ?? []), { path: m.path, value: v }];
        }
      }
      return inner(f, nc);
    };
  }
}
