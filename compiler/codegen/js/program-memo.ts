// The JS back end's memo of user-function results per evaluation context, as OPA's
// function output cache (Program.callFunction, program.ts): one entry per memoized
// function in the context's table (EvalContext.fnMemos), undefined until its first
// call, null after it (most functions of a small decision run once: they pay for no
// memo), then its results from the second call on. Arguments are compared by identity
// (scalars by value). A memo starts as one flat array of records
// `[arg1 … argN, result]`, scanned in order: a function's few distinct calls cost one
// small array, not a Map (ACI's create_container memoizes six functions, none of
// which repeats an argument list). Past SMALL_RECORDS records it becomes a Map keyed by
// the first argument, each entry the result (one argument) or a flat list of
// `[arg2 … argN, result]` records, so a function called in a large loop stays linear.
import type { Value } from '../../../runtime/value/value.js';

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
