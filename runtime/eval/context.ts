// The state of one evaluation: input, base data, memoized rule values, `with`
// replacements, the builtin context, and the limits (deadline, step counter,
// heap ceiling: see limits.ts).
// `with` derives a child context; closures always receive the context to use.
import type { Value } from '../value/value.js';
import type { BuiltinContext } from '../builtins/types.js';
import { EvalError } from './errors.js';
import { checkHeap } from './limits.js';
import { currentRuntimeInfo } from './runtime-info.js';
import type { ComprehensionTables } from './compr-index.js';

/** A replacement installed by `with` for a builtin or user function. */
export type FunctionOverride = { kind: 'value'; value: Value } | { kind: 'builtin'; name: string } | { kind: 'group'; group: number };

export interface DataOverride {
  path: string[];
  value: Value;
}

export const NO_VALUE = Symbol('undefined');

const discard = (): void => {};

/**
 * Memoized values by rule-group (or tree-node) id: a plain array, cheaper than a
 * Map for the small dense ids the compiler assigns. Same get/set/delete shape.
 */
export class Memo {
  private slots: (Value | typeof NO_VALUE | undefined)[] | undefined;
  get(id: number): Value | typeof NO_VALUE | undefined {
    return this.slots === undefined ? undefined : this.slots[id];
  }
  set(id: number, v: Value | typeof NO_VALUE): this {
    // Sized on first use, so setting a few small ids never grows the array.
    const slots = (this.slots ??= new Array(id < 16 ? 16 : id + 16));
    slots[id] = v;
    return this;
  }
  delete(id: number): boolean {
    if (this.slots === undefined || this.slots[id] === undefined) return false;
    this.slots[id] = undefined;
    return true;
  }
}

export class EvalContext implements BuiltinContext {
  private memoTable: Memo | undefined;
  private nodeMemoMap: Memo | undefined;
  fnOverrides: Map<string, FunctionOverride> | undefined;
  dataOverrides: DataOverride[] | undefined;
  /** The context a `with` block returns to. */
  parent: EvalContext | undefined;
  steps = 0;

  /** Builtin context: this context itself for a query's root (see forQuery), else the root's. */
  readonly builtins: BuiltinContext;
  // The BuiltinContext fields, used when this context is a query's root.
  strict = false;
  print: (message: string) => void = discard;
  runtime: Value = currentRuntimeInfo();
  private cacheMap: Map<string, unknown> | undefined;
  /** Indexed comprehensions' tables (compr-index.ts), made on first use; a `with` block's derived context starts without. */
  comprehensionTables: ComprehensionTables | undefined = undefined;
  private now: bigint | undefined;
  private extrasMap: Record<string, unknown> | undefined;

  constructor(
    public input: Value | undefined,
    public data: Value,
    builtins: BuiltinContext | undefined,
    /** Written only by the constructor and restart(). */
    public deadline: number | undefined,
  ) {
    this.builtins = builtins ?? this;
  }

  /** A query's root context, which is also its builtin context (one allocation, not two). */
  static forQuery(input: Value | undefined, data: Value, strict: boolean, print: ((message: string) => void) | undefined, deadline: number | undefined): EvalContext {
    const c = new EvalContext(input, data, undefined, deadline);
    c.strict = strict;
    if (print) c.print = print;
    return c;
  }

  /**
   * Drop what a query left in this root context (memos, caches, `with` state, input
   * and data), so that a prepared decision can keep it for its next query (restart)
   * instead of allocating one per decision: making a fresh context is a tenth of a
   * small decision's time (Policy.prepareDecision). Together with restart, every
   * field ends as forQuery sets it; test/unit/eval/context-reuse.test.ts checks that
   * against a fresh context field by field.
   */
  release(): void {
    this.memoTable = undefined;
    this.nodeMemoMap = undefined;
    this.fnOverrides = undefined;
    this.dataOverrides = undefined;
    this.parent = undefined;
    this.print = discard;
    this.cacheMap = undefined;
    this.now = undefined;
    this.extrasMap = undefined;
    this.scanned = undefined;
    this.fnTable = undefined;
    this.comprehensionTables = undefined;
    this.input = undefined;
    this.data = null;
  }

  /** A released root context (see release) as forQuery would make it. */
  restart(input: Value | undefined, data: Value, strict: boolean, print: ((message: string) => void) | undefined, deadline: number | undefined): void {
    this.input = input;
    this.data = data;
    this.deadline = deadline;
    this.steps = 0;
    this.strict = strict;
    if (print) this.print = print;
    this.runtime = currentRuntimeInfo();
  }

  get cache(): Map<string, unknown> {
    return (this.cacheMap ??= new Map());
  }

  get nowNs(): bigint {
    return (this.now ??= BigInt(Date.now()) * 1_000_000n);
  }

  get extras(): Record<string, unknown> {
    return (this.extrasMap ??= {});
  }

  /** Memoized rule values (made on first use: a decision whose rules the JS back end inlined needs none). */
  get memo(): Memo {
    return (this.memoTable ??= new Memo());
  }

  /**
   * The memos of user-function results in this context (as OPA's function output
   * cache), one entry per memoized function: made on first use with `size` entries.
   * Their layout is the caller's (compiler/codegen/js/program-memo.ts). A `with`
   * block's derived context starts empty, like the rule memo.
   */
  fnMemos(size: number): unknown[] {
    return (this.fnTable ??= new Array(size).fill(undefined));
  }

  /**
   * True on the first generator scan of set rule `id` in this context, false after
   * (the JS back end collects and memoizes the members from the second scan on).
   */
  firstScan(id: number): boolean {
    const s = (this.scanned ??= new Set());
    if (s.has(id)) return false;
    s.add(id);
    return true;
  }

  private scanned: Set<number> | undefined;

  /** The function memos (see fnMemos). */
  private fnTable: unknown[] | undefined;

  /** Memoized virtual documents of tree nodes (made on first use). */
  get nodeMemo(): Memo {
    return (this.nodeMemoMap ??= new Memo());
  }

  /** A child context for a `with` block: same limits, fresh memo. */
  derive(): EvalContext {
    const c = new EvalContext(this.input, this.data, this.builtins, this.deadline);
    c.fnOverrides = this.fnOverrides;
    c.dataOverrides = this.dataOverrides;
    c.parent = this;
    c.steps = this.steps;
    return c;
  }

  /** A child context with no `with` replacements of functions: a mock's body runs unmocked. */
  withoutMocks(): EvalContext {
    const c = this.derive();
    c.fnOverrides = undefined;
    return c;
  }

  /** Called in loops: enforces the deadline without reading the clock every time. */
  tick(): void {
    if ((++this.steps & 0x3ff) === 0) this.checkDeadline();
  }

  /**
   * Counts `n` steps at once: a generated loop about to run `n` items whose body does
   * only bounded work (compiler/codegen/js/emit.ts steps). As with tick(), the deadline
   * is checked whenever the count passes a multiple of 1,024.
   */
  countSteps(n: number): void {
    const before = this.steps;
    const after = before + n;
    this.steps = after;
    // The 1,024 blocks of `before` and `after` differ (int32 bits, as tick()'s mask).
    if ((before ^ after) >> 10 !== 0) this.checkDeadline();
  }

  /**
   * Throws eval_cancel_error once the deadline has passed or the heap is above its
   * ceiling (limits.ts); generated loops call it every 1024 steps.
   */
  checkDeadline(): void {
    if (this.deadline !== undefined && Date.now() > this.deadline) {
      throw new EvalError('eval_cancel_error', 'caller cancelled query execution: evaluation deadline exceeded');
    }
    checkHeap();
  }
}
