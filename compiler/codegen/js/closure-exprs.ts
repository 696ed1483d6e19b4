// The closure back end's expressions and patterns (the base class of
// ClosureCompiler in closures.ts, which adds statements and blocks): IR
// expressions become functions of (slots, context) returning a value or
// undefined, patterns become matchers that bind slots. Comprehensions compile
// their bodies through the subclass's block().
import type { Block, Expr, Pattern, Stmt } from '../../ir/ir.js';
import { walkShape } from '../../ir/walk-shape.js';
import type { Location } from '../../source/location.js';
import type { Value } from '../../../runtime/value/value.js';
import type { RuntimeScope } from '../../../runtime/scope.js';
import type { EvalContext } from '../../../runtime/eval/context.js';
import type { BuiltinDef } from '../../../runtime/builtins/types.js';
import type { E, K, P, Slots } from './types.js';
import type { ProgramOps } from './closures.js';

export abstract class ExprClosures {
  /**
   * Whether the solutions of the block being compiled are observed in order.
   * Only query rows and array comprehensions are; rule bodies, `not`, `every`
   * and set/object comprehensions are not, so their scans skip sorting.
   */
  protected ordered = true;
  /** Whether scans over set rules may run the rule as a generator (see ClosureCompiler.scan()). */
  protected generators = false;

  constructor(
    readonly rt: RuntimeScope,
    readonly ops: ProgramOps,
  ) {}

  /** Compile a block (statements are the subclass's part). */
  abstract block(stmts: Block, k: K, ordered?: boolean, generators?: boolean): K;

  pattern(p: Pattern): P {
    const rt = this.rt;
    switch (p.k) {
      case 'bind': {
        const slot = p.slot;
        return (v, f) => {
          f[slot] = v;
          return true;
        };
      }
      case 'wild':
        return () => true;
      case 'value': {
        const e = this.expr(p.expr);
        return (v, f, c) => {
          const w = e(f, c);
          return w !== undefined && rt.equal(v, w);
        };
      }
      case 'array': {
        const items = p.items.map((x) => this.pattern(x));
        const n = items.length;
        return (v, f, c) => {
          if (!Array.isArray(v) || v.length !== n) return false;
          for (let i = 0; i < n; i++) if (!items[i]!(v[i]!, f, c)) return false;
          return true;
        };
      }
      case 'object': {
        const entries = p.entries.map(([k, x]) => [this.expr(k), this.pattern(x)] as const);
        const n = entries.length;
        return (v, f, c) => {
          if (!(v instanceof rt.RObject) || v.size !== n) return false;
          for (const [ke, pe] of entries) {
            const k = ke(f, c);
            const x = k === undefined ? undefined : v.get(k);
            if (x === undefined || !pe(x, f, c)) return false;
          }
          return true;
        };
      }
    }
  }

  expr(e: Expr): E {
    const rt = this.rt;
    switch (e.k) {
      case 'const': {
        const v = e.value;
        return () => v;
      }
      case 'local': {
        const slot = e.slot;
        return (f) => f[slot];
      }
      case 'input':
        return (_f, c) => c.input;
      case 'base': {
        const path = e.path;
        return (_f, c) => rt.dig(c.data, path);
      }
      case 'rule': {
        const id = e.group;
        return (_f, c) => this.ops.evalGroup(id, c);
      }
      case 'vdoc': {
        const id = e.node;
        return (_f, c) => this.ops.vdoc(id, c);
      }
      case 'vdocdot': {
        const id = e.node;
        const key = this.expr(e.key);
        return (f, c) => {
          const k = key(f, c);
          return k === undefined ? undefined : this.ops.vdocKey(id, k, c);
        };
      }
      case 'dot': {
        const base = this.expr(e.base);
        if (e.key.k === 'const' && typeof e.key.value === 'string') {
          const key = e.key.value;
          return (f, c) => {
            const o = base(f, c);
            return o instanceof rt.RObject ? o.getStr(key) : rt.dot(o, key);
          };
        }
        const key = this.expr(e.key);
        return (f, c) => {
          const o = base(f, c);
          if (o === undefined) return undefined;
          const k = key(f, c);
          return k === undefined ? undefined : rt.dot(o, k);
        };
      }
      case 'call':
        return this.call(e.name, e.args, e.loc);
      case 'callfn': {
        const args = e.args.map((a) => this.expr(a));
        const id = e.group;
        return (f, c) => {
          const vals = this.evalArgs(args, f, c);
          return vals === undefined ? undefined : this.ops.callFunction(id, vals, c, e.loc);
        };
      }
      case 'array': {
        const items = e.items.map((x) => this.expr(x));
        return (f, c) => this.evalArgs(items, f, c);
      }
      case 'set': {
        const items = e.items.map((x) => this.expr(x));
        return (f, c) => {
          const vals = this.evalArgs(items, f, c);
          return vals === undefined ? undefined : rt.RSet.of(vals);
        };
      }
      case 'object': {
        const entries = e.entries.map(([k, v]) => [this.expr(k), this.expr(v)] as const);
        return (f, c) => {
          const o = new rt.RObject();
          for (const [ke, ve] of entries) {
            const k = ke(f, c);
            const v = ve(f, c);
            if (k === undefined || v === undefined) return undefined;
            rt.setUnique(o, k, v, e.loc);
          }
          return o;
        };
      }
      case 'compr':
        return this.comprehension(e);
      case 'template': {
        const parts = e.parts.map((p) => (typeof p === 'string' ? p : this.expr(p)));
        return (f, c) => {
          let s = '';
          for (const p of parts) s += typeof p === 'string' ? p : rt.templateText(p(f, c));
          return s;
        };
      }
    }
  }

  private comprehension(e: Expr & { k: 'compr' }): E {
    const rt = this.rt;
    const ix = e.index;
    if (ix !== undefined) {
      // An indexed comprehension (passes/comprehension-index.ts): a lookup in the table
      // its keyed body builds once per context.
      const keys = ix.keys.map((k) => this.expr(k));
      const pairs = this.expr(ix.pairs);
      const { id, frameSize } = ix;
      const kind = e.kind;
      return (f, c) => {
        const values: Value[] = [];
        for (const k of keys) {
          const v = k(f, c);
          if (v === undefined) return undefined;
          values.push(v);
        }
        return rt.comprehensionLookup(c, id, values, kind, () => pairs(new Array(frameSize), c));
      };
    }
    const head = this.expr(e.head);
    const key = e.key ? this.expr(e.key) : undefined;
    let acc: Value[] | undefined;
    let obj: InstanceType<RuntimeScope['RObject']> | undefined;
    const collect: K =
      e.kind === 'object'
        ? (f, c) => {
            const k = key!(f, c);
            const v = head(f, c);
            if (k === undefined || v === undefined) return false;
            rt.setUnique(obj!, k, v, e.loc);
            return false;
          }
        : (f, c) => {
            const v = head(f, c);
            // The collection cap (runtime/eval/limits.ts) keeps a runaway comprehension below V8's array limit.
            if (v !== undefined && acc!.push(v) > rt.limits.maxCollectionSize) rt.collectionTooLarge();
            return false;
          };
    const body = this.block(e.body, collect, e.kind === 'array');
    if (e.kind === 'object') {
      return (f, c) => {
        const saved = obj;
        obj = new rt.RObject();
        try {
          body(f, c);
          return obj;
        } finally {
          obj = saved;
        }
      };
    }
    const asSet = e.kind === 'set';
    return (f, c) => {
      const saved = acc;
      acc = [];
      try {
        body(f, c);
        return asSet ? rt.RSet.of(acc) : acc;
      } finally {
        acc = saved;
      }
    };
  }

  private call(name: string, argExprs: Expr[], loc: Location): E {
    const def = this.builtin(name, loc);
    const fast = this.comparison(name);
    if (fast && argExprs.length === 2) {
      // Comparisons cannot fail: skip the generic call path unless `with` replaced them.
      const a = this.expr(argExprs[0]!);
      const b = this.expr(argExprs[1]!);
      return (f, c) => {
        const x = a(f, c);
        if (x === undefined) return undefined;
        const y = b(f, c);
        if (y === undefined) return undefined;
        if (c.fnOverrides !== undefined && c.fnOverrides.has(name)) return this.ops.callByName(name, [x, y], c, loc);
        return fast(x, y);
      };
    }
    const args = argExprs.map((a) => this.expr(a));
    return (f, c) => {
      const vals = this.evalArgs(args, f, c);
      if (vals === undefined) return undefined;
      if (c.fnOverrides !== undefined && c.fnOverrides.has(name)) return this.ops.callByName(name, vals, c, loc);
      return this.invoke(def, name, vals, c, loc);
    };
  }

  private comparison(name: string): ((a: Value, b: Value) => boolean) | undefined {
    const rt = this.rt;
    switch (name) {
      case 'equal':
        return rt.equal;
      case 'neq':
        return (a, b) => !rt.equal(a, b);
      case 'lt':
        return (a, b) => rt.compare(a, b) < 0;
      case 'lte':
        return (a, b) => rt.compare(a, b) <= 0;
      case 'gt':
        return (a, b) => rt.compare(a, b) > 0;
      case 'gte':
        return (a, b) => rt.compare(a, b) >= 0;
      default:
        return undefined;
    }
  }

  builtin(name: string, loc: Location): BuiltinDef {
    const def = this.rt.getBuiltin(name);
    if (!def) throw new this.rt.EvalError('eval_builtin_error', `undefined builtin ${name}`, loc);
    return def;
  }

  /** The definition a relation statement calls: `walk` shaped by its output pattern (ir/walk-shape.ts). */
  relationBuiltin(s: Stmt & { k: 'relation' }): BuiltinDef {
    const def = this.builtin(s.name, s.loc);
    const shape = walkShape(s);
    return shape === undefined ? def : this.rt.shapedWalk(def, shape);
  }

  invoke(def: BuiltinDef, name: string, vals: Value[], c: EvalContext, loc: Location): Value | undefined {
    return this.rt.invokeBuiltin(def, name, vals, c, loc);
  }

  evalArgs(args: E[], f: Slots, c: EvalContext): Value[] | undefined {
    const out = new Array<Value>(args.length);
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!(f, c);
      if (v === undefined) return undefined;
      out[i] = v;
    }
    return out;
  }
}
