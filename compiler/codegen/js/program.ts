// An instantiated policy: rule groups as memoized evaluators, the virtual
// document tree, user functions, and query runners, all over ClosureCompiler.
// Conflict rules follow OPA: a complete rule or function yielding two different
// values is an eval_conflict_error; object rules must not repeat a key.
import type { PolicyIR, QueryPlan, RuleDef, RuleGroup } from '../../ir/ir.js';
import type { Location } from '../../source/location.js';
import type { Value } from '../../../runtime/value/value.js';
import type { RuntimeScope } from '../../../runtime/scope.js';
import type { EvalContext } from '../../../runtime/eval/context.js';
import { ClosureCompiler, type ProgramOps } from './closures.js';
import { Emitter, Unsupported, type EmitTables } from './emit.js';
import { inlinableSet, inlinableTest } from './emit-inline.js';
import type { BuiltinDef } from '../../../runtime/builtins/types.js';
import type { Block } from '../../ir/ir.js';
import { DocumentTree, NOT_OVERRIDDEN } from '../../ir/documents.js';
import type { E, K, P, Slots } from './types.js';
import { dataRefText } from '../../../runtime/value/format.js';

/** Receives one solution's head value; true stops enumeration. */
type ValueSink = (v: Value, f: Slots, c: EvalContext) => boolean;

interface CompiledDef {
  /** Run the body; `sink` gets each solution's value (undefined values are skipped). */
  runValue(f: Slots, c: EvalContext, sink: ValueSink): boolean;
  /** Does the body have a solution? (stops at the first) */
  exists(f: Slots, c: EvalContext): boolean;
  /** A fresh frame for runValue/exists (a shared empty one when generated code keeps slots in locals). */
  frame(): Slots;
  frameSize: number;
  params: P[];
  keys: E[];
  value: E;
  valueConst: boolean;
  else?: CompiledDef;
  loc: Location;
  run(f: Slots, c: EvalContext, sink: K): boolean;
}

type Sink = K;

const MAX_CALL_DEPTH = 2000;

interface CompiledIndex {
  ref: E;
  /** String keys by the string itself: no canonical text to build per lookup. */
  byString: Map<string, CompiledDef[]>;
  /** Other scalar keys (numbers, booleans, null) by canonical key. */
  byKey: Map<string, CompiledDef[]>;
  always: CompiledDef[];
}

/** A generated body: runs `sink` per solution; true = stopped. */
type NativeBody = (f: Slots, c: EvalContext, sink: K) => boolean;

/** Which back end runs rule bodies and queries: generated JS source (default) or closures. */
export type Backend = 'js' | 'closures';

export class Program implements ProgramOps {
  private readonly cc: ClosureCompiler;
  private readonly defs: CompiledDef[][];
  private depth = 0;
  /** Helpers generated code calls as `X.…`. */
  private readonly helpers;

  constructor(
    readonly ir: PolicyIR,
    readonly rt: RuntimeScope,
    readonly backend: Backend = 'js',
  ) {
    this.cc = new ClosureCompiler(rt, this);
    this.docs = new DocumentTree(ir, rt, (id, c) => this.evalGroup(id, c));
    this.helpers = {
      call: (def: BuiltinDef, name: string, args: Value[], c: EvalContext, loc: Location) =>
        c.fnOverrides !== undefined && c.fnOverrides.has(name) ? this.callByName(name, args, c, loc) : this.cc.invoke(def, name, args, c, loc),
      relation: (def: BuiltinDef, name: string, args: Value[], c: EvalContext, loc: Location) =>
        c.fnOverrides !== undefined && c.fnOverrides.has(name) ? this.callByName(name, args, c, loc) : this.cc.invoke(def, name, args, c, loc),
      print: (args: (Value | undefined)[], c: EvalContext) => c.builtins.print(args.map((a) => rt.templateText(a)).join(' ')),
    };
    this.constantGroups = ir.groups.map((g) => constantValue(g, rt));
    this.defs = ir.groups.map((g) => g.defs.map((d) => this.compileDef(d)));
    this.indexes = ir.groups.map((g) => this.compileIndex(g));
  }

  /** Per group: its rule index, with the definitions to run for each key (see passes/rule-index.ts). */
  private readonly indexes: (CompiledIndex | undefined)[];

  private compileIndex(g: RuleGroup): CompiledIndex | undefined {
    const ix = g.index;
    if (!ix) return undefined;
    const defs = this.defs[g.id]!;
    const pick = (ids: number[]): CompiledDef[] => [...new Set(ids)].sort((a, b) => a - b).map((i) => defs[i]!);
    const byKey = new Map<string, CompiledDef[]>();
    const byString = new Map<string, CompiledDef[]>();
    for (const e of ix.entries) {
      const defsFor = pick([...e.defs, ...ix.always]);
      if (typeof e.key === 'string') byString.set(e.key, defsFor);
      else byKey.set(this.rt.canonicalKey(e.key), defsFor);
    }
    return { ref: this.cc.expr(ix.ref), byString, byKey, always: pick(ix.always) };
  }

  /** The definitions of a group worth running in this context (all, unless indexed). */
  private candidates(g: RuleGroup, c: EvalContext): CompiledDef[] {
    const ix = this.indexes[g.id];
    if (ix === undefined) return this.defs[g.id]!;
    const v = ix.ref(NO_FRAME, c);
    if (typeof v === 'string') return ix.byString.get(v) ?? ix.always;
    if (v === undefined || ix.byKey.size === 0) return ix.always;
    return ix.byKey.get(this.rt.canonicalKey(v)) ?? ix.always;
  }

  /** The virtual document tree (shared with the reference interpreter). */
  private readonly docs: DocumentTree;

  /** Whether the last native() body kept its slots in locals. */
  private lastFrameless = false;
  /** Compiled factories by generated source text. */
  private readonly factories = new Map<string, (...a: unknown[]) => unknown>();

  /** Per group: the constant every definition produces, when they all agree (see firstConstant). */
  private readonly constantGroups: (Value | undefined)[];

  /** Generate a JS function for a block, or undefined when the emitter does not handle it. */
  private native<T = NativeBody>(
    block: Block,
    ordered: boolean,
    generators: boolean,
    value?: RuleDef['value'] | 'exists',
    frameInputs = false,
  ): T | undefined {
    if (this.backend !== 'js') return undefined;
    const tables: EmitTables = { K: [], CL: [], B: [] };
    let source;
    const emitter = new Emitter(tables, this.cc, { ordered, generators, isSetGroup: (id) => this.isSetGroup(id), inlineSet: (id) => this.inlinable(id).set, inlineTest: (id) => this.inlinable(id).test });
    try {
      source = emitter.functionSource(block, value, { frameInputs });
    } catch (e) {
      if (e instanceof Unsupported) return undefined;
      throw e;
    }
    // Bodies of one shape generate the same source (policy values live in the
    // tables): compile each distinct source once, so V8's parse and compile cost
    // follows the number of shapes, not of rules (its own cache is not reliable).
    let factory = this.factories.get(source.text) as ((...a: unknown[]) => T) | undefined;
    if (factory === undefined) {
      factory = new Function('rt', 'ops', 'X', 'K', 'CL', 'B', 'RObject', source.text) as (...a: unknown[]) => T;
      this.factories.set(source.text, factory);
    }
    this.lastFrameless = emitter.usedLocals;
    return factory(this.rt, this, this.helpers, tables.K, tables.CL, tables.B, this.rt.RObject);
  }

  private compileDef(d: RuleDef): CompiledDef {
    const value = this.cc.expr(d.value);
    // `run` (for object rules, whose keys are separate expressions) is built on first use.
    let runBody: ((f: Slots, c: EvalContext, sink: K) => boolean) | undefined;
    const run = (f: Slots, c: EvalContext, s: K): boolean => (runBody ??= this.compileRun(d))(f, c, s);
    const hasParams = d.params.length > 0;
    const nativeValue = this.native<CompiledDef['runValue']>(d.body, false, true, d.value, hasParams);
    // Generated value and exists bodies share the frame decision: both use locals or neither does.
    const frameless = nativeValue !== undefined && this.lastFrameless;
    const size = d.frameSize;
    const def: CompiledDef = {
      frame: frameless ? () => NO_FRAME : () => new Array(size),
      // Compiled on first use, then replaces itself so later calls go straight to it.
      exists: (f, c) => {
        def.exists = this.native<CompiledDef['exists']>(d.body, false, true, 'exists', hasParams) ?? ((f2, c2) => run(f2, c2, () => true));
        return def.exists(f, c);
      },
      runValue:
        nativeValue ??
        ((f, c, vs) =>
          run(f, c, (f2, c2) => {
            const v = value(f2, c2);
            return v !== undefined && vs(v, f2, c2);
          })),
      frameSize: d.frameSize,
      params: d.params.map((p) => this.cc.pattern(p)),
      keys: d.keys.map((k) => this.cc.expr(k)),
      value,
      valueConst: d.value.k === 'const',
      else: d.else && this.compileDef(d.else),
      loc: d.loc,
      run,
    };
    return def;
  }

  /** The body as a function of a frame-level continuation (generated, else closures). */
  private compileRun(d: RuleDef): (f: Slots, c: EvalContext, sink: K) => boolean {
    const native = this.native(d.body, false, true);
    if (native) return native;
    let sink: Sink | undefined;
    // Rule results do not depend on the order solutions arrive in.
    const body = this.cc.block(d.body, (f, c) => sink!(f, c), false, true);
    return (f, c, s) => {
      const saved = sink;
      sink = s;
      try {
        return body(f, c);
      } finally {
        sink = saved;
      }
    };
  }

  /** Per group: whether emit-inline.ts may inline it (computed once). */
  private readonly inlinables = new Map<number, { set: ReturnType<typeof inlinableSet>; test: ReturnType<typeof inlinableTest> }>();

  private inlinable(id: number): { set: ReturnType<typeof inlinableSet>; test: ReturnType<typeof inlinableTest> } {
    let r = this.inlinables.get(id);
    if (r === undefined) {
      const g = this.ir.groups[id]!;
      r = { set: inlinableSet(g), test: inlinableTest(g, this.constantGroups[id]) };
      this.inlinables.set(id, r);
    }
    return r;
  }

  isSetGroup(id: number): boolean {
    return this.ir.groups[id]!.kind === 'set';
  }

  generateSet(id: number, c: EvalContext, fn: (v: Value) => boolean): boolean {
    const m = c.memo.get(id);
    if (m !== undefined || c.dataOverrides !== undefined) {
      const v = this.evalGroup(id, c);
      return this.rt.forEachMemberUnordered(v, (_k, x) => fn(x));
    }
    if (++this.depth > MAX_CALL_DEPTH) this.tooDeep();
    try {
      const defs = this.candidates(this.ir.groups[id]!, c);
      for (let i = 0; i < defs.length; i++) {
        const d = defs[i]!;
        if (d.runValue(d.frame(), c, fn)) return true;
      }
      return false;
    } finally {
      this.depth--;
    }
  }

  /**
   * A rule group's value as a decision's top level (prepareDecision): the group is
   * evaluated once per context, so it skips evalGroup's memo and, for a complete
   * rule like `allow if …` with a default, goes straight to its definitions. Other
   * rules referring to it still memoize through evalGroup.
   */
  decide(id: number, c: EvalContext): Value | undefined {
    const g = this.ir.groups[id]!;
    if (g.kind !== 'complete' || this.constantGroups[id] === undefined || c.dataOverrides !== undefined) return this.evalGroup(id, c);
    // No memo slot and no in-progress mark: check-recursion rejects recursive rules.
    return this.firstConstant(g, this.candidates(g, c), c);
  }

  evalGroup(id: number, c: EvalContext): Value | undefined {
    const g = this.ir.groups[id]!;
    if (c.dataOverrides !== undefined) {
      const o = this.docs.override(g.path, c, () => this.computeGroup(g, c));
      if (o !== NOT_OVERRIDDEN) return o;
    }
    const m = c.memo.get(id);
    if (m !== undefined) {
      if ((m as unknown) === IN_PROGRESS) throw new this.rt.EvalError('eval_recursion_error', `rule data.${g.path.join('.')} is recursive`);
      return m === this.rt.NO_VALUE ? undefined : (m as Value);
    }
    c.memo.set(id, IN_PROGRESS as never);
    let v: Value | undefined;
    if (++this.depth > MAX_CALL_DEPTH) this.tooDeep();
    try {
      v = this.computeGroup(g, c);
    } catch (e) {
      c.memo.delete(id);
      throw e;
    } finally {
      this.depth--;
    }
    c.memo.set(id, (v === undefined ? this.rt.NO_VALUE : v) as Value);
    return v;
  }

  private tooDeep(): never {
    this.depth = 0;
    throw new this.rt.EvalError('eval_recursion_error', 'maximum evaluation depth exceeded');
  }

  private computeGroup(g: RuleGroup, c: EvalContext): Value | undefined {
    const defs = g.kind === 'function' ? this.defs[g.id]! : this.candidates(g, c);
    switch (g.kind) {
      case 'complete':
        if (this.constantGroups[g.id] !== undefined) return this.firstConstant(g, defs, c);
        return orDefault(this.single(defs, c, undefined, 'complete rules must not produce multiple outputs'), g.default);
      case 'set': {
        const out = new this.rt.RSet();
        const add = (v: Value): boolean => {
          out.add(v);
          return false;
        };
        for (const d of defs) d.runValue(d.frame(), c, add);
        return out;
      }
      case 'object':
        return this.object(g, defs, c);
      case 'function':
        return undefined;
    }
  }

  /**
   * A complete rule whose definitions (no else) all produce the same constant,
   * like `allow if …`: no conflict is possible, so the first body with a
   * solution decides.
   */
  private firstConstant(g: RuleGroup, defs: CompiledDef[], c: EvalContext): Value | undefined {
    for (let i = 0; i < defs.length; i++) {
      const d = defs[i]!;
      if (d.exists(d.frame(), c)) return this.constantGroups[g.id];
    }
    return g.default;
  }

  /** Evaluate complete-rule or function definitions: every one must agree. */
  private single(defs: CompiledDef[], c: EvalContext, args: Value[] | undefined, conflict: string): Value | undefined {
    const rt = this.rt;
    let result: Value | undefined;
    for (const first of defs) {
      let d: CompiledDef | undefined = first;
      while (d) {
        const cur: CompiledDef = d;
        const f: Slots = args ? new Array(cur.frameSize) : cur.frame();
        if (args && !matchParams(cur.params, args, f, c)) break;
        let found = false;
        cur.runValue(f, c, (v) => {
          found = true;
          if (result === undefined) result = v;
          else if (!rt.equal(result, v)) throw new rt.EvalError('eval_conflict_error', conflict, cur.loc);
          return cur.valueConst;
        });
        if (found) break;
        d = cur.else;
      }
    }
    return result;
  }

  private object(g: RuleGroup, defs: CompiledDef[], c: EvalContext): Value {
    const rt = this.rt;
    const root = new rt.RObject();
    for (const d of defs) {
      d.run(new Array(d.frameSize), c, (f, c2) => {
        const keys: Value[] = [];
        for (const k of d.keys) {
          const v = k(f, c2);
          if (v === undefined) return false;
          keys.push(v);
        }
        const v = d.value(f, c2);
        if (v === undefined) return false;
        rt.insertRuleValue(root, keys, v, g.leafSet === true, d.loc);
        return false;
      });
    }
    return root;
  }

  callFunction(id: number, args: Value[], c: EvalContext, loc: Location): Value | undefined {
    const g = this.ir.groups[id]!;
    if (c.fnOverrides !== undefined) {
      const name = dataRefText(g.path);
      if (c.fnOverrides.has(name)) return this.callByName(name, args, c, loc);
    }
    if (++this.depth > MAX_CALL_DEPTH) this.tooDeep();
    try {
      return orDefault(this.single(this.defs[id]!, c, args, 'functions must not produce multiple outputs for same inputs'), g.default);
    } finally {
      this.depth--;
    }
  }

  callByName(name: string, args: Value[], c: EvalContext, loc: Location): Value | undefined {
    const o = c.fnOverrides?.get(name);
    if (o) {
      if (o.kind === 'value') return o.value;
      // A mock runs without mocks: inside it, every function is the original.
      const plain = c.withoutMocks();
      if (o.kind === 'group') return this.callFunction(o.group, args, plain, loc);
      return this.cc.invoke(this.cc.builtin(o.name, loc), o.name, args, plain, loc);
    }
    return this.cc.invoke(this.cc.builtin(name, loc), name, args, c, loc);
  }

  vdoc(id: number, c: EvalContext): Value | undefined {
    return this.docs.vdoc(id, c);
  }

  vdocKey(id: number, key: Value, c: EvalContext): Value | undefined {
    return this.docs.vdocKey(id, key, c);
  }

  /** Compile a query plan into a runner returning one frame per solution. */
  query(plan: QueryPlan): (c: EvalContext) => Slots[] {
    const rt = this.rt;
    const native = this.native(plan.body, true, false);
    if (native) {
      return (c) => {
        const rows: Slots[] = [];
        native(new Array(plan.frameSize), c, (f) => {
          if (rows.push(f.slice()) > rt.limits.maxCollectionSize) rt.collectionTooLarge();
          return false;
        });
        return rows;
      };
    }
    let rows: Slots[] | undefined;
    const body = this.cc.block(
      plan.body,
      (f) => {
        if (rows!.push(f.slice()) > rt.limits.maxCollectionSize) rt.collectionTooLarge();
        return false;
      },
      true,
    );
    return (c) => {
      const saved = rows;
      rows = [];
      try {
        body(new Array(plan.frameSize), c);
        return rows;
      } finally {
        rows = saved;
      }
    };
  }
}

/** The frame passed to generated bodies that keep their slots in locals (never written). */
const NO_FRAME: Slots = Object.freeze([]) as unknown as Slots;
const IN_PROGRESS = Symbol('in-progress');

/** `v ?? d` without treating Rego `null` as missing. */
function orDefault(v: Value | undefined, d: Value | undefined): Value | undefined {
  return v === undefined ? d : v;
}


function constantValue(g: RuleGroup, rt: RuntimeScope): Value | undefined {
  if (g.kind !== 'complete' || g.defs.length === 0) return undefined;
  let v: Value | undefined;
  for (const d of g.defs) {
    if (d.else || d.value.k !== 'const') return undefined;
    if (v === undefined) v = d.value.value;
    else if (!rt.equal(v, d.value.value)) return undefined;
  }
  return v;
}

function matchParams(params: P[], args: Value[], f: Slots, c: EvalContext): boolean {
  for (let i = 0; i < params.length; i++) if (!params[i]!(args[i]!, f, c)) return false;
  return true;
}
