// The JS back end's memo of user-function results per evaluation context, as OPA's
// function output cache (Program.callFunction, program.ts, calls FunctionMemos.call):
// one entry per memoized function in the context's table (EvalContext.fnMemos),
// undefined until its first call, null after it (most functions of a small decision
// run once: they pay for no memo), then its results from the second call on (from the
// first when the policy prints, so a defined call prints once, as in OPA). A function
// whose memo found nothing in its first MEMO_TRIAL calls is no longer memoized when the
// policy has no `print`. Arguments are compared by identity
// (scalars by value). A memo starts as one flat array of records
// `[arg1 … argN, result]`, scanned in order: a function's few distinct calls cost one
// small array, not a Map (ACI's create_container memoizes six functions, none of
// which repeats an argument list). Past SMALL_RECORDS records it becomes a Map keyed by
// the first argument, each entry the result (one argument) or a flat list of
// `[arg2 … argN, result]` records, so a function called in a large loop stays linear.
import type { PolicyIR } from '../../ir/ir.js';
import type { Value } from '../../../runtime/value/value.js';
import type { EvalContext } from '../../../runtime/eval/context.js';

/** Calls of a memoized function after which its memo is judged (see FunctionMemos.calls). */
export const MEMO_TRIAL = 1024;

/** Which functions a Program memoizes, and the memo path of their calls. */
export class FunctionMemos {
  /**
   * Per group: its entry in a context's function memos, or -1 when callers do not
   * memoize it: a leaf function when the policy has no `print` (without print a memo is
   * not observable: nondeterministic builtins keep their own per-query cache).
   */
  readonly slots: number[];
  /** How many functions are memoized (the size of a context's memo table). */
  private readonly count: number;
  /**
   * Per memo slot, over every evaluation of the policy: calls and memo hits. A function
   * whose first MEMO_TRIAL calls never found a result in the memo is not memoized from
   * then on when the policy has no `print` (the memo is not observable then): ACI's
   * functions run once per evaluation or with a new argument list every time, where the
   * memo table, lookup and store only cost; gatekeeper's containerlimits hits it about
   * 50 times per decision and keeps it.
   */
  private readonly calls: Uint32Array;
  private readonly hits: Uint32Array;

  constructor(
    ir: PolicyIR,
    leaf: boolean[],
    private readonly prints: boolean,
    /** The runtime's mark of a stored undefined result. */
    private readonly NO_VALUE: symbol,
    /** Evaluate function `id` for `args` (no memo). */
    private readonly run: (id: number, args: Value[], c: EvalContext) => Value | undefined,
  ) {
    let n = 0;
    this.slots = ir.groups.map((g, id) => (g.kind === 'function' && (prints || !leaf[id]) ? n++ : -1));
    this.count = n;
    this.calls = new Uint32Array(n);
    this.hits = new Uint32Array(n);
  }

  /** A call of memoized function `id` (slots[id] >= 0): the stored result, or run and store it. */
  call(id: number, args: Value[], c: EvalContext): Value | undefined {
    const slot = this.slots[id]!;
    if (++this.calls[slot] === MEMO_TRIAL && this.hits[slot] === 0 && !this.prints) this.slots[id] = -1;
    const table = c.fnMemos(this.count);
    const m = table[slot] as FnMemo | null | undefined;
    if (m === undefined && !this.prints) {
      table[slot] = null;
      return this.run(id, args, c);
    }
    if (m !== undefined && m !== null) {
      const hit = memoLookup(m, args);
      if (hit !== undefined) {
        this.hits[slot]++;
        return hit === this.NO_VALUE ? undefined : (hit as Value);
      }
    }
    const v = this.run(id, args, c);
    // OPA keeps only defined results, so an undefined call runs (and prints) again.
    // Without any `print` in the policy that is not observable: keep undefined too.
    if (v === undefined && this.prints) return v;
    // The table entry read again: the call may have stored results of its own.
    const now = table[slot] as FnMemo | null | undefined;
    table[slot] = memoStore(now ?? [], args, v === undefined ? this.NO_VALUE : v);
    return v;
  }
}

/** Records a memo keeps in its flat array before it becomes a Map. */
export const SMALL_RECORDS = 8;

/** A function's memo: flat records, or a Map by first argument once large. */
export type FnMemo = unknown[] | Map<unknown, unknown>;

/** The memo key of a call without arguments (in the Map form). */
const NO_ARGS = Symbol('no-args');

/** The stored result for `args`, or undefined when not stored (`missing` marks an undefined result). */
export function memoLookup(m: FnMemo, args: Value[]): unknown {
  const n = args.length;
  if (Array.isArray(m)) {
    const stride = n + 1;
    for (let j = 0; j < m.length; j += stride) {
      let i = 0;
      while (i < n && m[j + i] === args[i]) i++;
      if (i === n) return m[j + n];
    }
    return undefined;
  }
  const key = n === 0 ? NO_ARGS : args[0];
  if (n <= 1) return m.get(key);
  const list = m.get(key) as unknown[] | undefined;
  if (list === undefined) return undefined;
  for (let j = 0; j < list.length; j += n) {
    let i = 1;
    while (i < n && list[j + i - 1] === args[i]) i++;
    if (i === n) return list[j + n - 1];
  }
  return undefined;
}

/** Store `stored` for `args`; returns the memo to keep (the Map when the array outgrew SMALL_RECORDS). */
export function memoStore(m: FnMemo, args: Value[], stored: unknown): FnMemo {
  const n = args.length;
  if (Array.isArray(m)) {
    if (m.length < SMALL_RECORDS * (n + 1)) {
      for (let i = 0; i < n; i++) m.push(args[i]);
      m.push(stored);
      return m;
    }
    const big = new Map<unknown, unknown>();
    for (let j = 0; j < m.length; j += n + 1) insert(big, m.slice(j, j + n) as Value[], m[j + n]);
    insert(big, args, stored);
    return big;
  }
  insert(m, args, stored);
  return m;
}

function insert(m: Map<unknown, unknown>, args: Value[], stored: unknown): void {
  const n = args.length;
  const key = n === 0 ? NO_ARGS : args[0];
  if (n <= 1) {
    m.set(key, stored);
    return;
  }
  let list = m.get(key) as unknown[] | undefined;
  if (list === undefined) m.set(key, (list = []));
  for (let i = 1; i < n; i++) list.push(args[i]);
  list.push(stored);
}
