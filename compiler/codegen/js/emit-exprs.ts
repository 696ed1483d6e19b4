// The expression half of the JS source back end (emit.ts): the emitter's state (local
// names, slot placement, the constant/closure/builtin tables) and the code for
// expressions and patterns. Each expression becomes a JS value; what it needs first
// (temps, undefined checks that `break` to the failing label) goes to `pre`. Emitter
// (emit.ts) extends this with statements, loops and function sources.
import type { Block, Expr, Pattern, Stmt } from '../../ir/ir.js';
import type { Location } from '../../source/location.js';
import type { BuiltinDef } from '../../../runtime/builtins/types.js';
import type { ClosureCompiler } from './closures.js';
import type { E } from './types.js';
import type { InlineFunction } from './emit-inline-call.js';
import { _, Code, join, Name, Names } from './code.js';
import { builtinCall, comparedByIdentity, constantStringKeys, stringKeyedObject } from './emit-direct.js';

export class Unsupported extends Error {}

/** Thrown while emitting with local slots when something needs the frame array. */
export class NeedsFrame extends Error {}

/**
 * V8 looks up a property key fastest when the key is an internalized string;
 * constants parsed from policy text need not be. A string used as an object
 * key and read back through Object.keys is the internalized copy.
 */
export function internalize(s: string): string {
  return Object.keys({ [s]: 0 })[0] ?? s;
}

/** Everything generated code refers to besides `f`, `c` and `sink`. */
export interface EmitTables {
  /** Constants: values, paths, names and locations, by index. */
  K: unknown[];
  /** Fallback expression closures. */
  CL: E[];
  /** Builtin definitions. */
  B: BuiltinDef[];
}

export interface EmitOptions {
  /** Whether solutions are observed in order (queries, array comprehensions). */
  ordered: boolean;
  /** Whether a leading scan over a set rule may run the rule as a generator. */
  generators: boolean;
  isSetGroup(id: number): boolean;
  /** A set rule's definitions when they may be inlined into a consumer's loop (program.ts). */
  inlineSet?(id: number): readonly { body: Block; value: Expr }[] | undefined;
  /** A complete rule's definitions when a test of it may run them in place (program.ts). */
  inlineTest?(id: number): readonly { body: Block }[] | undefined;
  /** A function's definitions when its calls may run in place (emit-inline-call.ts, rule-compiler.ts). */
  inlineFunction?(id: number): InlineFunction | undefined;
}

// A string equals only an identical string, so string comparisons skip the call.
const COMPARE: Record<string, (a: Code, b: Code) => Code> = {
  equal: (a, b) => _`(typeof ${a} === 'string' ? ${a} === ${b} : equal(${a}, ${b}))`,
  neq: (a, b) => _`(typeof ${a} === 'string' ? ${a} !== ${b} : !equal(${a}, ${b}))`,
  lt: (a, b) => _`compare(${a}, ${b}) < 0`,
  lte: (a, b) => _`compare(${a}, ${b}) <= 0`,
  gt: (a, b) => _`compare(${a}, ${b}) > 0`,
  gte: (a, b) => _`compare(${a}, ${b}) >= 0`,
};

/** A key that may be written as a JS property name: letters, digits, `_` and `$`. */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/;

/**
 * How generated code reads constant string key `key` (its constants-table entry `k`)
 * from an object's `props`: a named load (`.action`) when the key is an identifier,
 * else a keyed one (`[K[5]]`). A named load is a few percent faster (RBAC decision)
 * and means the same on `props`, whose prototype has no properties. Only a key that
 * matches IDENTIFIER reaches the source text, so no policy text can change its code.
 */
export function propKey(key: string, k: Code): Code {
  return IDENTIFIER.test(key) ? new Code(`.${key}`) : _`[${k}]`;
}

/** State and expression code shared by the statement emitter (emit.ts) and emit-inline.ts. */
export abstract class ExprEmitter {
  /** @internal (emit-inline.ts) */
  names = new Names();
  /** Slots as JS locals (`s3`) rather than frame entries (`f[3]`), when nothing else reads the frame. */
  /** @internal (emit-inline.ts) */
  locals = false;
  protected usedSlots = new Set<string>();
  /** Prefix of local slot names: inlined set definitions have their own slots. */
  /** @internal (emit-inline.ts) */
  slotPrefix = '';
  /** @internal (emit-inline.ts) */
  inlined = 0;
  /** Loops enclosing the statement being emitted. */
  /** @internal (emit-inline.ts) */
  loops = 0;
  /** In-place function calls (emit-inline-call.ts) enclosing the code being emitted. */
  /** @internal (emit-inline-call.ts) */
  fnDepth = 0;
  /** Whether the last functionSource() kept slots in locals (the caller then needs no frame). */
  usedLocals = false;
  /**
   * Code emitted so far that does work, or keeps memory, not bounded by the generated
   * code itself: calls of builtins, user functions, rules, closures and sinks, and
   * collection literals. A loop whose body adds none counts its steps on entry instead
   * of on every iteration (Emitter.steps).
   */
  /** @internal (emit-inline.ts, emit-inline-call.ts) */
  unbounded = 0;
  /**
   * Reads of input and data (`data.user_roles[input.user]`) repeated in one generated
   * function: their value cannot change during one call (the function's `c` is fixed), so
   * a second occurrence reuses the first's (see reuse). Counted in a first emission, used
   * in a second (Emitter.withReuse); off inside generator callbacks (closures over the
   * cache variables would put them in a heap context) and inside a cached computation.
   */
  protected reads: { mode: 'off' | 'count' | 'use'; counts: Map<string, number>; vars: Map<string, Name> } = { mode: 'off', counts: new Map(), vars: new Map() };

  constructor(
    readonly tables: EmitTables,
    readonly cc: ClosureCompiler,
    readonly opts: EmitOptions,
  ) {}

  /** Where a slot lives: a local variable or the frame array. */
  protected slot(n: number): Code {
    if (!this.locals) return _`f[${n}]`;
    const name = `s${this.slotPrefix}${n}`;
    this.usedSlots.add(name);
    return new Name(name);
  }

  /** @internal (emit-inline.ts) */
  k(v: unknown): Code {
    this.tables.K.push(typeof v === 'string' ? internalize(v) : v);
    return _`K[${this.tables.K.length - 1}]`;
  }

  protected closure(e: Expr): Code {
    if (this.locals) throw new NeedsFrame();
    this.unbounded++;
    this.tables.CL.push(this.cc.expr(e));
    return _`CL[${this.tables.CL.length - 1}](f, c)`;
  }

  /** @internal (emit-direct.ts) */
  builtin(name: string, loc: Location): Code {
    this.unbounded++;
    this.tables.B.push(this.cc.builtin(name, loc));
    return _`B[${this.tables.B.length - 1}]`;
  }

  /** The definition relation statement `s` calls (closure-exprs.ts relationBuiltin). */
  relationBuiltin(s: Stmt & { k: 'relation' }): Code {
    this.unbounded++;
    this.tables.B.push(this.cc.relationBuiltin(s));
    return _`B[${this.tables.B.length - 1}]`;
  }

  /**
   * Code testing Rego equality of `a` and `b` (the expressions they came from, when
   * known): `===` when either is a constant string, boolean or null, which no other
   * value equals (runtime/value/compare.ts equal); else the runtime's `equal`.
   */
  /** @internal (emit.ts) */
  equality(a: Code, b: Code, ae: Expr | undefined, be: Expr | undefined): Code {
    return comparedByIdentity(ae) || comparedByIdentity(be) ? _`${a} === ${b}` : _`equal(${a}, ${b})`;
  }

  /** Code that matches `v` against a pattern, binding slots; `break fail` on mismatch. */
  /** @internal (emit-inline.ts) */
  pattern(p: Pattern, v: Code, fail: Name): Code {
    switch (p.k) {
      case 'bind':
        return _`${this.slot(p.slot)} = ${v};`;
      case 'wild':
        return new Code('');
      case 'value': {
        const pre: Code[] = [];
        const w = this.expr(p.expr, fail, pre);
        return join([...pre, _`if (!(${this.equality(v, w, undefined, p.expr)})) break ${fail};`]);
      }
      case 'array': {
        const t = this.names.next('t');
        const parts = [_`const ${t} = ${v};`, _`if (!Array.isArray(${t}) || ${t}.length !== ${p.items.length}) break ${fail};`];
        p.items.forEach((item, idx) => parts.push(this.pattern(item, _`${t}[${idx}]`, fail)));
        return join(parts);
      }
      case 'object': {
        const t = this.names.next('t');
        const parts = [_`const ${t} = ${v};`, _`if (!(${t} instanceof RObject) || ${t}.size !== ${p.entries.length}) break ${fail};`];
        for (const [ke, pe] of p.entries) {
          const pre: Code[] = [];
          const key = this.expr(ke, fail, pre);
          const x = this.names.next('t');
          parts.push(...pre, _`const ${x} = ${t}.get(${key});`, _`if (${x} === undefined) break ${fail};`, this.pattern(pe, x, fail));
        }
        return join(parts);
      }
    }
  }

  /** Code for a value; statements it needs (and undefined checks) go to `pre`. */
  /** @internal (emit-inline.ts) */
  expr(e: Expr, fail: Name, pre: Code[]): Code {
    switch (e.k) {
      case 'const':
        return this.k(e.value);
      case 'local':
        return this.slot(e.slot);
      case 'input':
        return this.checked(_`c.input`, fail, pre);
      case 'base':
      case 'dot': {
        const reused = this.reuse(e, fail, pre);
        if (reused !== undefined) return reused;
        return this.read(e, fail, pre);
      }
      case 'rule':
        this.unbounded++;
        return this.checked(_`ops.evalGroup(${this.k(e.group)}, c)`, fail, pre);
      case 'vdoc':
        this.unbounded++;
        return this.checked(_`ops.vdoc(${this.k(e.node)}, c)`, fail, pre);
      case 'vdocdot': {
        this.unbounded++;
        const key = this.expr(e.key, fail, pre);
        return this.checked(_`ops.vdocKey(${this.k(e.node)}, ${key}, c)`, fail, pre);
      }
      case 'call': {
        const args = e.args.map((a) => this.expr(a, fail, pre));
        const cmp = COMPARE[e.name];
        const name = this.k(e.name);
        const loc = this.k(e.loc);
        const direct = e.name === 'internal.member_2' ? _`rt.member(${args[0] ?? _`undefined`}, ${args[1] ?? _`undefined`})` : undefined;
        if (direct && args.length === 2) {
          this.unbounded++;
          // Membership cannot fail either: call it directly unless `with` replaced it.
          return this.checked(_`(plain ? ${direct} : ops.callByName(${name}, [${args[0]!}, ${args[1]!}], c, ${loc}))`, fail, pre);
        }
        if (cmp && args.length === 2) {
          const [a, b] = [args[0]!, args[1]!];
          let test = cmp(a, b);
          if ((e.name === 'equal' || e.name === 'neq') && (comparedByIdentity(e.args[0]) || comparedByIdentity(e.args[1]))) {
            test = e.name === 'equal' ? _`${a} === ${b}` : _`${a} !== ${b}`;
          }
          return this.checked(_`(plain ? ${test} : ops.callByName(${name}, [${a}, ${b}], c, ${loc}))`, fail, pre);
        }
        return builtinCall(this, e, args, name, loc, fail, pre);
      }
      case 'callfn': {
        const args = e.args.map((a) => this.expr(a, fail, pre));
        const inlined = this.inlineCall(e, args, fail, pre);
        if (inlined !== undefined) return inlined;
        this.unbounded++;
        return this.checked(_`ops.callFunction(${this.k(e.group)}, [${join(args, new Code(', '))}], c, ${this.k(e.loc)})`, fail, pre);
      }
      case 'array': {
        this.unbounded++;
        const items = e.items.map((a) => this.expr(a, fail, pre));
        return _`[${join(items, new Code(', '))}]`;
      }
      case 'set': {
        this.unbounded++;
        const items = e.items.map((a) => this.expr(a, fail, pre));
        return _`RSet.of([${join(items, new Code(', '))}])`;
      }
      case 'compr':
        this.unbounded++;
        return this.comprehension(e, fail, pre);
      case 'object': {
        this.unbounded++;
        if (constantStringKeys(e.entries)) return stringKeyedObject(this, e.entries, fail, pre);
        // Entry by entry, as closures.ts: key, value (undefined leaves), then setUnique
        // (a repeated key with another value is an error).
        const o = this.names.next('o');
        pre.push(_`const ${o} = new RObject();`);
        const loc = e.entries.length > 0 ? this.k(e.loc) : undefined;
        for (const [ke, ve] of e.entries) {
          const k = this.expr(ke, fail, pre);
          const v = this.expr(ve, fail, pre);
          pre.push(_`rt.setUnique(${o}, ${k}, ${v}, ${loc!});`);
        }
        return o;
      }
      case 'template':
        return this.checked(this.closure(e), fail, pre);
    }
  }

  /** A read of data (`base`) or a key of a value (`dot`). */
  private read(e: Expr & { k: 'base' | 'dot' }, fail: Name, pre: Code[]): Code {
    if (e.k === 'base') {
      if (e.path.length === 1 && typeof e.path[0] === 'string') {
        const key = this.k(e.path[0]);
        // A `props` field test, as for `dot` below (instanceof costs more: about 4% of the RBAC decision).
        return this.checked(_`(c.data !== null && c.data.props !== undefined ? c.data.props${propKey(e.path[0], key)} : dig(c.data, [${key}]))`, fail, pre);
      }
      return this.checked(_`dig(c.data, ${this.k(e.path)})`, fail, pre);
    }
    const base = this.expr(e.base, fail, pre);
    // Only an RObject has a `props` field among values (null, booleans, numbers, strings,
    // BigNum, arrays, RSet have none): one field check, cheaper than `instanceof RObject`
    // against the factory's RObject parameter (about 5% of the RBAC decision).
    if (e.key.k === 'const' && typeof e.key.value === 'string') {
      const key = this.k(e.key.value);
      return this.checked(_`(${base} !== null && ${base}.props !== undefined ? ${base}.props${propKey(e.key.value, key)} : dot(${base}, ${key}))`, fail, pre);
    }
    const key = this.expr(e.key, fail, pre);
    return this.checked(_`(${base} !== null && ${base}.props !== undefined && typeof ${key} === 'string' ? ${base}.props[${key}] : dot(${base}, ${key}))`, fail, pre);
  }

  /** The cache key of a read that depends only on `c.input`, `c.data` and constants, or undefined. */
  private readKey(e: Expr): string | undefined {
    switch (e.k) {
      case 'input':
        return 'i';
      case 'base':
        return `b${JSON.stringify(e.path)}`;
      case 'const':
        return typeof e.value === 'string' || typeof e.value === 'number' ? JSON.stringify(e.value) : undefined;
      case 'dot': {
        const base = this.readKey(e.base);
        const key = base === undefined ? undefined : this.readKey(e.key);
        return key === undefined ? undefined : `d(${base},${key})`;
      }
      default:
        return undefined;
    }
  }

  /**
   * A read repeated in this function (see `reads`): its first evaluation stores the value
   * in a function-level variable, later ones use it (an undefined read is simply
   * evaluated again, and fails again). Undefined when this read is not shared.
   */
  private reuse(e: Expr & { k: 'base' | 'dot' }, fail: Name, pre: Code[]): Code | undefined {
    const r = this.reads;
    if (r.mode === 'off') return undefined;
    const key = this.readKey(e);
    if (key === undefined) return undefined;
    if (r.mode === 'count') {
      r.counts.set(key, (r.counts.get(key) ?? 0) + 1);
      return undefined;
    }
    if ((r.counts.get(key) ?? 0) < 2) return undefined;
    let x = r.vars.get(key);
    if (x === undefined) {
      x = this.names.next('x');
      r.vars.set(key, x);
    }
    const t = this.names.next('t');
    const inner: Code[] = [];
    r.mode = 'off';
    let v: Code;
    try {
      v = this.read(e, fail, inner);
    } finally {
      r.mode = 'use';
    }
    pre.push(_`let ${t} = ${x};`, _`if (${t} === undefined) {`, ...inner, _`${t} = ${x} = ${v};`, _`}`);
    return t;
  }

  /**
   * A comprehension as an inline loop in this function (the closure back end's
   * comprehension costs a closure call per solution and keeps the body's slots in the
   * frame): the body runs to completion, each solution's head (and key) going into a
   * fresh array, set members list or object. An array comprehension enumerates sets in
   * order; the collection cap applies as in closures.ts. Never undefined.
   */
  private comprehension(e: Expr & { k: 'compr' }, fail: Name, pre: Code[]): Code {
    const ix = e.index;
    if (ix !== undefined) {
      // An indexed comprehension (passes/comprehension-index.ts): the keyed body as a
      // closure (run once per context, in a fresh frame), the lookup in place.
      const keys = ix.keys.map((k) => this.expr(k, fail, pre));
      this.tables.CL.push(this.cc.expr(ix.pairs));
      const build = _`CL[${this.tables.CL.length - 1}]`;
      return _`rt.comprehensionLookup(c, ${this.k(ix.id)}, [${join(keys, new Code(', '))}], ${this.k(e.kind)}, () => ${build}(new Array(${this.k(ix.frameSize)}), c))`;
    }
    const acc = this.names.next('o');
    const label = this.names.next('L');
    const collect = (fail: Name): Code => {
      const at: Code[] = [];
      if (e.kind === 'object') {
        const k = this.expr(e.key!, fail, at);
        const v = this.expr(e.head, fail, at);
        return join([...at, _`rt.setUnique(${acc}, ${k}, ${v}, ${this.k(e.loc)});`]);
      }
      const v = this.expr(e.head, fail, at);
      return join([...at, _`if (${acc}.push(${v}) > rt.limits.maxCollectionSize) rt.collectionTooLarge();`]);
    };
    if (e.kind === 'array') this.orderedDepth++;
    let body: Code;
    try {
      body = this.block(e.body, 0, label, collect, false);
    } finally {
      if (e.kind === 'array') this.orderedDepth--;
    }
    pre.push(e.kind === 'object' ? _`const ${acc} = new RObject();` : _`const ${acc} = [];`, _`${label}: {`, body, _`}`);
    return e.kind === 'set' ? _`RSet.of(${acc})` : acc;
  }

  /** Array comprehensions being emitted: inside one, sets are enumerated in order. */
  protected orderedDepth = 0;

  /** A function call run in place (emit-inline-call.ts via emit.ts), or undefined. */
  protected abstract inlineCall(call: Expr & { k: 'callfn' }, args: Code[], fail: Name, pre: Code[]): Code | undefined;

  /** Statements i.. of a block, then `success` (emit.ts). */
  abstract block(stmts: Block, i: number, fail: Name, success: (fail: Name) => Code, first: boolean): Code;

  /** Put a value in a temp, leaving the path when it is undefined. */
  protected checked(value: Code, fail: Name, pre: Code[]): Code {
    const t = this.names.next('t');
    pre.push(_`const ${t} = ${value};`, _`if (${t} === undefined) break ${fail};`);
    return t;
  }
}
