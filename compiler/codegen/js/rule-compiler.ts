// The compiling half of an instantiated policy (program.ts): each rule definition
// becomes generated JS (emit.ts) or closures (closures.ts) for its value and its
// existence test, generated sources are compiled once per shape, rule indexes
// (passes/rule-index.ts) become key → definitions maps, and emit-inline.ts is told
// which rule groups may run in place. Program extends this with evaluation: memo,
// conflicts, functions, the document tree and queries.
import type { Expr, PolicyIR, RuleDef, RuleGroup } from '../../ir/ir.js';
import type { Location } from '../../source/location.js';
import { functionArgumentIndex } from '../../ir/function-index.js';
import type { Value } from '../../../runtime/value/value.js';
import type { RuntimeScope } from '../../../runtime/scope.js';
import type { EvalContext } from '../../../runtime/eval/context.js';
import { ClosureCompiler, type ProgramOps } from './closures.js';
import { Emitter, Unsupported, type EmitTables } from './emit.js';
import { NeedsFrame, propKey } from './emit-exprs.js';
import { Code } from './code.js';
import { inlinableSet, inlinableTest } from './emit-inline.js';
import { inlinableFunctions, type InlineFunction } from './emit-inline-call.js';
import { functionConstants, leafFunctions } from './ir-facts.js';
import { bucketIds } from '../../ir/index-lookup.js';
import { indexBuckets, indexedDecision, testInOrder, inputPath, inputReader, type Bucket } from './index-decision.js';
import type { BuiltinDef } from '../../../runtime/builtins/types.js';
import type { Block } from '../../ir/ir.js';
import type { E, K, P, Slots } from './types.js';

/** Receives one solution's head value; true stops enumeration. */
export type ValueSink = (v: Value, f: Slots, c: EvalContext) => boolean;

export interface CompiledDef {
  /** Run the body; `sink` gets each solution's value (undefined values are skipped). */
  runValue(f: Slots, c: EvalContext, sink: ValueSink): boolean;
  /**
   * For a function definition whose slots all fit in locals: runValue with the argument
   * list in place of the frame (its parameters are matched first; no match, no solution).
   */
  runArgs?: (args: Slots, c: EvalContext, sink: ValueSink) => boolean;
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

export type Sink = K;

export const MAX_CALL_DEPTH = 2000;

/** Most definitions a group's generated all-definitions test (groupTest) takes. */
export const MAX_GROUP_TEST_DEFS = 8;

/** A generated test of all of a group's definitions: true when one has a solution. */
export type GroupTest = (f: Slots, c: EvalContext) => boolean;

interface CompiledIndex {
  ref: E;
  /** The keys of an `input.a.b…` ref (read by generated code), else undefined. */
  path: string[] | undefined;
  /** String keys by the string itself: no canonical text to build per lookup. */
  byString: Map<string, CompiledDef[]>;
  /** Other scalar keys (numbers, booleans, null) by canonical key. */
  byKey: Map<string, CompiledDef[]>;
  always: CompiledDef[];
}

interface FunctionIndex {
  /** The argument position the index reads. */
  pos: number;
  byString: Map<string, CompiledDef[]>;
  byKey: Map<string, CompiledDef[]>;
  /** Definitions with a non-constant pattern at `pos`: candidates for any argument. */
  always: CompiledDef[];
}

/** A generated body: runs `sink` per solution; true = stopped. */
export type NativeBody = (f: Slots, c: EvalContext, sink: K) => boolean;

/** Which back end runs rule bodies and queries: generated JS source (default) or closures. */
export type Backend = 'js' | 'closures';


/** Rule definitions compiled for evaluation; Program (program.ts) evaluates them. */
export abstract class RuleCompiler {
  protected readonly cc: ClosureCompiler;
  protected readonly defs: CompiledDef[][];
  /** Helpers generated code calls as `X.…`. */
  protected readonly helpers;

  constructor(
    readonly ir: PolicyIR,
    readonly rt: RuntimeScope,
    readonly backend: Backend = 'js',
  ) {
    const ops = this as unknown as ProgramOps;
    this.cc = new ClosureCompiler(rt, ops);
    this.helpers = {
      call: (def: BuiltinDef, name: string, args: Value[], c: EvalContext, loc: Location) =>
        c.fnOverrides !== undefined && c.fnOverrides.has(name) ? ops.callByName(name, args, c, loc) : this.cc.invoke(def, name, args, c, loc),
      relation: (def: BuiltinDef, name: string, args: Value[], c: EvalContext, loc: Location) =>
        c.fnOverrides !== undefined && c.fnOverrides.has(name) ? ops.callByName(name, args, c, loc) : this.cc.invoke(def, name, args, c, loc),
      print: (args: (Value | undefined)[], c: EvalContext) => c.builtins.print(args.map((a) => rt.templateText(a)).join(' ')),
    };
    this.constantGroups = ir.groups.map((g) => constantValue(g, rt));
    this.defs = ir.groups.map((g) => g.defs.map((d) => this.compileDef(d)));
    this.indexes = ir.groups.map((g) => this.compileIndex(g));
    this.fnIndexes = ir.groups.map((g) => this.compileFunctionIndex(g));
  }

  /** Per function group: its index on one constant argument (see compileFunctionIndex). */
  private readonly fnIndexes: (FunctionIndex | undefined)[];

  /**
   * Function definitions indexed on a constant argument (compiler/ir/function-index.ts):
   * a key → definitions map, each list in the definitions' order and including those
   * with a non-constant pattern at that position.
   */
  private compileFunctionIndex(g: RuleGroup): FunctionIndex | undefined {
    const ix = functionArgumentIndex(g);
    if (ix === undefined) return undefined;
    const { pos, always } = ix;
    const defs = this.defs[g.id]!;
    const pick = (ids: number[]): CompiledDef[] => [...ids].sort((a, b) => a - b).map((i) => defs[i]!);
    const byString = new Map<string, CompiledDef[]>();
    const byKey = new Map<string, CompiledDef[]>();
    for (const e of ix.entries) {
      const list = pick([...e.defs, ...always]);
      if (typeof e.key === 'string') byString.set(e.key, list);
      else byKey.set(this.rt.canonicalKey(e.key), list);
    }
    return { pos, byString, byKey, always: pick(always) };
  }

  /** The definitions of function group `id` whose parameters may match `args`. */
  protected functionCandidates(id: number, args: Value[]): CompiledDef[] {
    const ix = this.fnIndexes[id];
    if (ix === undefined) return this.defs[id]!;
    const v = args[ix.pos];
    if (typeof v === 'string') return ix.byString.get(v) ?? ix.always;
    // A constant scalar pattern never matches a composite value.
    if (v === undefined || ix.byKey.size === 0 || Array.isArray(v) || v instanceof this.rt.RObject || v instanceof this.rt.RSet) return ix.always;
    return ix.byKey.get(this.rt.canonicalKey(v)) ?? ix.always;
  }

  /** Per group: its rule index, with the definitions to run for each key (see passes/rule-index.ts). */
  private readonly indexes: (CompiledIndex | undefined)[];

  private compileIndex(g: RuleGroup): CompiledIndex | undefined {
    const ix = g.index;
    if (!ix) return undefined;
    const defs = this.defs[g.id]!;
    const pick = (ids: number[]): CompiledDef[] => ids.map((i) => defs[i]!);
    const byKey = new Map<string, CompiledDef[]>();
    const byString = new Map<string, CompiledDef[]>();
    for (const e of ix.entries) {
      const defsFor = pick(bucketIds(ix, e.defs));
      if (typeof e.key === 'string') byString.set(e.key, defsFor);
      else byKey.set(this.rt.canonicalKey(e.key), defsFor);
    }
    const path = this.backend === 'js' ? inputPath(ix.ref) : undefined;
    return { ref: path !== undefined ? inputReader(path, this.rt) : this.cc.expr(ix.ref), path, byString, byKey, always: pick(bucketIds(ix, [])) };
  }

  /** The definitions of a group worth running in this context (all, unless indexed). */
  protected candidates(g: RuleGroup, c: EvalContext): CompiledDef[] {
    const ix = this.indexes[g.id];
    if (ix === undefined) return this.defs[g.id]!;
    const v = ix.ref(NO_FRAME, c);
    if (typeof v === 'string') return ix.byString.get(v) ?? ix.always;
    if (v === undefined || ix.byKey.size === 0) return ix.always;
    return ix.byKey.get(this.rt.canonicalKey(v)) ?? ix.always;
  }

  /** Whether the last native() body kept its slots in locals. */
  private lastFrameless = false;
  /** Compiled factories by generated source text. */
  private readonly factories = new Map<string, (...a: unknown[]) => unknown>();

  /** Per group: the constant every definition produces, when they all agree (see firstConstant). */
  protected readonly constantGroups: (Value | undefined)[];

  /** Generate a JS function for a block, or undefined when the emitter does not handle it. */
  protected native<T = NativeBody>(
    block: Block,
    ordered: boolean,
    generators: boolean,
    value?: RuleDef['value'] | 'exists',
    frameInputs = false,
    params?: RuleDef['params'],
  ): T | undefined {
    if (this.backend !== 'js') return undefined;
    const tables: EmitTables = { K: [], CL: [], B: [] };
    let source;
    const emitter = this.emitter(tables, ordered, generators);
    try {
      source = emitter.functionSource(block, value, { frameInputs, params });
    } catch (e) {
      if (e instanceof Unsupported) return undefined;
      throw e;
    }
    this.lastFrameless = emitter.usedLocals;
    return this.instantiate<T>(source.text, tables);
  }

  private emitter(tables: EmitTables, ordered: boolean, generators: boolean): Emitter {
    return new Emitter(tables, this.cc, { ordered, generators, isSetGroup: (id) => this.isSetGroup(id), inlineSet: (id) => this.inlinable(id).set, inlineTest: (id) => this.inlinable(id).test, inlineFunction: (id) => this.inlineFunctions()[id] });
  }

  /** The generated function of `text` bound to its tables. */
  private instantiate<T>(text: string, tables: EmitTables): T {
    // Bodies of one shape generate the same source (policy values live in the
    // tables): compile each distinct source once, so V8's parse and compile cost
    // follows the number of shapes, not of rules (its own cache is not reliable).
    let factory = this.factories.get(text) as ((...a: unknown[]) => T) | undefined;
    if (factory === undefined) {
      factory = new Function('rt', 'ops', 'X', 'K', 'CL', 'B', 'RObject', text) as (...a: unknown[]) => T;
      this.factories.set(text, factory);
    }
    return factory(this.rt, this, this.helpers, tables.K, tables.CL, tables.B, this.rt.RObject);
  }

  /** Per group: its generated all-definitions test (see groupTest); null when it has none. */
  private readonly groupTests: (GroupTest | null | undefined)[] = [];

  /**
   * For a complete rule whose definitions all give one constant (`allow if …`, tested in
   * order by Program.firstConstant): one generated function running the definitions'
   * bodies in order until one has a solution (Emitter.groupExistsSource). Made on first
   * use; null for other groups, for more than MAX_GROUP_TEST_DEFS definitions (one
   * function that large would not be optimized), and when a body needs the frame or
   * the closure back end.
   */
  protected groupTest(g: RuleGroup): GroupTest | null {
    let t = this.groupTests[g.id];
    if (t === undefined) {
      t = this.compileGroupTest(g);
      this.groupTests[g.id] = t;
    }
    return t;
  }

  private compileGroupTest(g: RuleGroup): GroupTest | null {
    if (this.backend !== 'js' || this.constantGroups[g.id] === undefined || g.defs.length > MAX_GROUP_TEST_DEFS) return null;
    return this.defsTest(g.defs);
  }

  /** One generated function testing `defs` (constant, no else; `bodies` theirs or a suffix) in order; null when the emitter cannot. */
  private defsTest(defs: RuleDef[], bodies: Block[] = defs.map((d) => d.body)): GroupTest | null {
    if (defs.some((d) => d.params.length > 0 || d.else !== undefined)) return null;
    const tables: EmitTables = { K: [], CL: [], B: [] };
    let source;
    try {
      source = this.emitter(tables, false, true).groupExistsSource(bodies);
    } catch (e) {
      if (e instanceof Unsupported || e instanceof NeedsFrame) return null;
      throw e;
    }
    return this.instantiate<GroupTest>(source.text, tables);
  }

  /**
   * The decision function of an indexed complete rule with one constant value
   * (index-decision.ts): per key, its definitions as one generated test (defsTest, up
   * to MAX_GROUP_TEST_DEFS of them, string-key buckets without the condition the
   * lookup settled; else each definition's whole test in order). Undefined for the
   * closure back end.
   */
  protected indexedDecision(g: RuleGroup, slow: (c: EvalContext) => Value | undefined): ((c: EvalContext) => Value | undefined) | undefined {
    const ix = g.index;
    const value = this.constantGroups[g.id];
    const cix = this.indexes[g.id];
    if (this.backend !== 'js' || ix === undefined || cix === undefined || value === undefined) return undefined;
    const buckets = indexBuckets(g, ix, cix.ref, this.rt);
    const compiled = this.defs[g.id]!;
    const test = (b: Bucket): GroupTest => {
      const defs = b.ids.map((i) => g.defs[i]!);
      // A string key's lookup settled the indexed test (it binds nothing): leave it out.
      const bodies = b.ids.map((i) => (b.strip && ix.at[i]! >= 0 ? g.defs[i]!.body.filter((_, j) => j !== ix.at[i]) : g.defs[i]!.body));
      const generated = b.ids.length <= MAX_GROUP_TEST_DEFS ? this.defsTest(defs, bodies) : null;
      if (generated !== null) return generated;
      return testInOrder(b.ids.map((i) => compiled[i]!));
    };
    return indexedDecision(buckets, cix.path, value, g.default, test, slow, this.rt, NO_FRAME);
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
      // A function definition also as a body that takes the argument list and matches its
      // parameters into locals (Program.single calls it: no frame array, no parameter
      // closures). Generated on first call (compiling every function twice up front made
      // ACI's compile 1.7x slower); where the emitter cannot, the frame and closures as before.
      runArgs: hasParams
        ? (args, c, sink) => {
            def.runArgs =
              this.native<CompiledDef['runValue']>(d.body, false, true, d.value, false, d.params) ??
              ((a, c2, s2) => {
                const f: Slots = new Array(size);
                for (let i = 0; i < def.params.length; i++) if (!def.params[i]!(a[i]!, f, c2)) return false;
                return def.runValue(f, c2, s2);
              });
            return def.runArgs(args, c, sink);
          }
        : undefined,
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

  /** See functionFacts. */
  private fnFacts: { leaf: boolean[]; constants: (Value | undefined)[] } | undefined;

  /**
   * Per group, from ir-facts.ts: whether a function is a leaf (leafFunctions) and the
   * constant all its definitions produce (functionConstants). Computed once, on first
   * use: the constructor already emits code that asks for them.
   */
  protected functionFacts(): { leaf: boolean[]; constants: (Value | undefined)[] } {
    return (this.fnFacts ??= { leaf: leafFunctions(this.ir), constants: functionConstants(this.ir, this.rt.equal) });
  }

  /** Per group: the function's in-place form for emit-inline-call.ts (computed on first use). */
  private inlineFns: (InlineFunction | undefined)[] | undefined;

  private inlineFunctions(): (InlineFunction | undefined)[] {
    const facts = this.functionFacts();
    return (this.inlineFns ??= inlinableFunctions(this.ir, facts.leaf, facts.constants));
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
}

/** The frame passed to generated bodies that keep their slots in locals (never written). */
export const NO_FRAME: Slots = Object.freeze([]) as unknown as Slots;

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
