// An instantiated policy: rule groups as memoized evaluators, the virtual
// document tree, user functions, and query runners, over the definitions that
// rule-compiler.ts compiles (generated JS, or closures).
// Conflict rules follow OPA: a complete rule or function yielding two different
// values is an eval_conflict_error; object rules must not repeat a key.
import type { PolicyIR, QueryPlan, RuleGroup } from '../../ir/ir.js';
import type { Location } from '../../source/location.js';
import type { Value } from '../../../runtime/value/value.js';
import type { RuntimeScope } from '../../../runtime/scope.js';
import type { EvalContext } from '../../../runtime/eval/context.js';
import type { ProgramOps } from './closures.js';
import { DocumentTree, NOT_OVERRIDDEN } from '../../ir/documents.js';
import type { P, Slots } from './types.js';
import { dataRefText } from '../../../runtime/value/format.js';
import { hasPrint } from './emit-inline.js';
import { countScanSites } from './ir-facts.js';
import { FunctionMemos } from './program-memo.js';
import { MAX_CALL_DEPTH, NO_FRAME, RuleCompiler, type Backend, type CompiledDef } from './rule-compiler.js';

export type { Backend } from './rule-compiler.js';

export class Program extends RuleCompiler implements ProgramOps {
  private depth = 0;

  constructor(ir: PolicyIR, rt: RuntimeScope, backend: Backend = 'js') {
    super(ir, rt, backend);
    this.prints = ir.groups.some((g) => hasPrint(g.defs));
    this.scanSites = countScanSites(ir);
    this.leaf = this.functionFacts().leaf;
    this.memos = new FunctionMemos(ir, this.leaf, this.prints, rt.NO_VALUE, (id, args, c) => this.evalFunction(id, args, c));
    this.fnConstants = this.functionFacts().constants;
    this.docs = new DocumentTree(ir, rt, (id, c) => this.evalGroup(id, c));
    const equal = rt.equal;
    const EvalError = rt.EvalError;
    this.solution = (v: Value): boolean => {
      const d = this.solving!;
      this.solved = true;
      const r = this.solvedValue;
      if (r === undefined) this.solvedValue = v;
      else if (r !== v && !equal(r, v)) throw new EvalError('eval_conflict_error', this.conflict, d.loc);
      return d.valueConst;
    };
  }

  /** Whether any rule or function of the policy calls `print` (see callFunction's memo). */
  private readonly prints: boolean;

  /** Per group: a function cheaper to run again than to look up (leafFunctions). */
  private readonly leaf: boolean[];

  /** Memoized function results (program-memo.ts). */
  private readonly memos: FunctionMemos;

  /** Per function group: the constant all its definitions produce, if they do (functionConstants). */
  private readonly fnConstants: (Value | undefined)[];

  /** Per function group: its name as `with` mocks name it (made on first use under a mock). */
  private readonly fnNames: (string | undefined)[] = [];

  // The state of the innermost single() in progress, written by its one sink (`solution`,
  // made once, not per definition and call); single() saves and restores its caller's,
  // so calls nested in a body (functions calling functions) each have their own.
  /** The definition being run. */
  private solving: CompiledDef | undefined = undefined;
  /** Whether it produced a solution. */
  private solved = false;
  /** The first value produced by this single() (undefined: none yet). */
  private solvedValue: Value | undefined = undefined;
  /** The eval_conflict_error message when two values differ. */
  private conflict = '';
  /** The sink of every definition single() runs. */
  private readonly solution: (v: Value) => boolean;

  /** Per group: how many rule bodies scan it as a generator (see generateSet). */
  private readonly scanSites: number[];

  /** The virtual document tree (shared with the reference interpreter). */
  private readonly docs: DocumentTree;

  generateSet(id: number, c: EvalContext, fn: (v: Value) => boolean): boolean {
    const m = c.memo.get(id);
    if (m !== undefined || c.dataOverrides !== undefined) {
      const v = this.evalGroup(id, c);
      return this.rt.forEachMemberUnordered(v, (_k, x) => fn(x));
    }
    if (++this.depth > MAX_CALL_DEPTH) this.tooDeep();
    try {
      const defs = this.candidates(this.ir.groups[id]!, c);
      // Members stream to `fn` as they are found. When the rule is scanned from two or
      // more places (gatekeeper's `violation` matches `general_violation[…]` twice), or
      // this is its second scan in this context (a scan inside a loop), they are also
      // collected: if `fn` never stops the enumeration, that is the complete set,
      // memoized for later scans. A single scan that stops at its first match (ACI's
      // existence tests) pays for no set.
      if (this.scanSites[id]! < 2 && c.firstScan(id)) {
        for (let i = 0; i < defs.length; i++) {
          const d = defs[i]!;
          if (d.runValue(d.frame(), c, fn)) return true;
        }
        return false;
      }
      const out = new this.rt.RSet();
      const collect = (v: Value): boolean => {
        out.add(v);
        return fn(v);
      };
      for (let i = 0; i < defs.length; i++) {
        const d = defs[i]!;
        if (d.runValue(d.frame(), c, collect)) return true;
      }
      c.memo.set(id, out);
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

  /**
   * A decision function for a complete rule like `allow if …` (one constant value):
   * the context in, the value out, without decide's per-call checks; through the
   * generated all-definitions test (groupTest) when the definitions are not indexed,
   * else through the generated indexed decision (one lookup, then the key's bucket
   * test). Undefined for other groups.
   */
  decisionTest(id: number): ((c: EvalContext) => Value | undefined) | undefined {
    const g = this.ir.groups[id]!;
    const value = this.constantGroups[id];
    if (g.kind !== 'complete' || value === undefined) return undefined;
    const dflt = g.default;
    if (g.index !== undefined) {
      // Indexed (`allow if input.x == "c1"`, …): the key's bucket test (index-decision.ts);
      // with the closure back end, the index's pick, each tested in order.
      const generated = this.indexedDecision(g, (c) => this.evalGroup(id, c));
      if (generated !== undefined) return generated;
      return (c) => {
        if (c.dataOverrides !== undefined) return this.evalGroup(id, c);
        const defs = this.candidates(g, c);
        for (let i = 0; i < defs.length; i++) {
          const d = defs[i]!;
          if (d.exists(d.frame(), c)) return value;
        }
        return dflt;
      };
    }
    const test = this.groupTest(g);
    if (test === null) return undefined;
    return (c) => (c.dataOverrides !== undefined ? this.evalGroup(id, c) : test(NO_FRAME, c) ? value : dflt);
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
    if (defs === this.defs[g.id]) {
      // All definitions (not an index's pick): one generated test of them in order.
      const test = this.groupTest(g);
      if (test !== null) return test(NO_FRAME, c) ? this.constantGroups[g.id] : g.default;
    }
    for (let i = 0; i < defs.length; i++) {
      const d = defs[i]!;
      if (d.exists(d.frame(), c)) return this.constantGroups[g.id];
    }
    return g.default;
  }

  /** Evaluate complete-rule or function definitions: every one must agree. */
  private single(defs: CompiledDef[], c: EvalContext, args: Value[] | undefined, conflict: string): Value | undefined {
    const outerDef = this.solving;
    const outerSolved = this.solved;
    const outerValue = this.solvedValue;
    const outerConflict = this.conflict;
    this.solvedValue = undefined;
    this.conflict = conflict;
    const sink = this.solution;
    try {
      for (let i = 0; i < defs.length; i++) {
        let d: CompiledDef | undefined = defs[i]!;
        while (d !== undefined) {
          this.solving = d;
          this.solved = false;
          if (args !== undefined && d.runArgs !== undefined) {
            // Parameters matched in the generated body: a mismatch is no solution, and an
            // `else` (same parameters) then cannot match either.
            d.runArgs(args as Slots, c, sink);
          } else {
            const f: Slots = args !== undefined ? new Array(d.frameSize) : d.frame();
            if (args !== undefined && !matchParams(d.params, args, f, c)) break;
            d.runValue(f, c, sink);
          }
          if (this.solved) break;
          d = d.else;
        }
      }
      return this.solvedValue;
    } finally {
      this.solving = outerDef;
      this.solved = outerSolved;
      this.solvedValue = outerValue;
      this.conflict = outerConflict;
    }
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
    if (c.fnOverrides !== undefined) {
      const name = (this.fnNames[id] ??= dataRefText(this.ir.groups[id]!.path));
      if (c.fnOverrides.has(name)) return this.callByName(name, args, c, loc);
    }
    // OPA memoizes function outputs per evaluation (program-memo.ts); a function cheaper
    // to run again than to look up is not memoized.
    if (this.memos.slots[id]! < 0) return this.evalFunction(id, args, c);
    return this.memos.call(id, args, c);
  }

  private evalFunction(id: number, args: Value[], c: EvalContext): Value | undefined {
    if (++this.depth > MAX_CALL_DEPTH) this.tooDeep();
    try {
      const defs = this.functionCandidates(id, args);
      const k = this.fnConstants[id];
      const v = k === undefined ? this.single(defs, c, args, FUNCTION_CONFLICT) : this.anySolution(defs, args, c) ? k : undefined;
      return orDefault(v, this.ir.groups[id]!.default);
    } finally {
      this.depth--;
    }
  }

  /**
   * Whether one of a function's definitions has a solution for `args` (they all
   * produce one constant, functionConstants): stops at the first, without a sink's state.
   */
  private anySolution(defs: CompiledDef[], args: Value[], c: EvalContext): boolean {
    for (let i = 0; i < defs.length; i++) {
      const d = defs[i]!;
      if (d.runArgs !== undefined) {
        if (d.runArgs(args as Slots, c, STOP)) return true;
      } else {
        const f: Slots = new Array(d.frameSize);
        if (matchParams(d.params, args, f, c) && d.runValue(f, c, STOP)) return true;
      }
    }
    return false;
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

const IN_PROGRESS = Symbol('in-progress');

/** The sink of a test for any solution: stop at the first. */
const STOP = (): boolean => true;

const FUNCTION_CONFLICT = 'functions must not produce multiple outputs for same inputs';

/** `v ?? d` without treating Rego `null` as missing. */
function orDefault(v: Value | undefined, d: Value | undefined): Value | undefined {
  return v === undefined ? d : v;
}

function matchParams(params: P[], args: Value[], f: Slots, c: EvalContext): boolean {
  for (let i = 0; i < params.length; i++) if (!params[i]!(args[i]!, f, c)) return false;
  return true;
}
