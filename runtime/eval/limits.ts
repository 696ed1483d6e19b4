// Evaluation resource limits, per thread: a cap on the number of members of any
// collection built during an evaluation (comprehensions, query rows, objects and
// sets built by rules or builtins) and a heap ceiling checked with the deadline
// (every 1024 loop steps). Both raise OPA's eval_cancel_error with a message that
// names the limit, so a runaway query ends with a clean error instead of a V8
// "invalid size" abort (arrays beyond 2^27 elements kill the whole process) or an
// out-of-memory crash. The server sets them from its flags (`--max-collection-size`,
// worker heap); embedders may call setEvalLimits.
import { getHeapStatistics } from 'node:v8';
import { EvalError } from './errors.js';

/** Default cap on the members of one intermediate collection (well below V8's 2^27 array limit). */
export const DEFAULT_MAX_COLLECTION_SIZE = 10_000_000;
/** Default share of the thread's heap limit an evaluation may push the heap to before it is cancelled. */
export const DEFAULT_HEAP_FRACTION = 0.85;

export interface EvalLimits {
  /** Most members (array elements, object keys, set members, query rows) of one collection; 0: no cap. */
  maxCollectionSize: number;
  /** Cancel an evaluation when the used heap passes this share of the thread's heap limit; 0: never. */
  heapFraction: number;
  /**
   * The thread's old-generation limit in MB when it was set (worker resourceLimits):
   * the ceiling is a share of it, since V8's total limit adds the young generation.
   * 0: V8's total heap limit.
   */
  heapLimitMb: number;
}

/**
 * The thread's limits. Generated code reads `limits.maxCollectionSize` directly
 * (through the runtime scope), so this object is mutated in place, never replaced.
 */
export const limits: EvalLimits = {
  maxCollectionSize: DEFAULT_MAX_COLLECTION_SIZE,
  heapFraction: DEFAULT_HEAP_FRACTION,
  heapLimitMb: 0,
};

let heapCeiling = computeCeiling();

function computeCeiling(): number {
  if (!(limits.heapFraction > 0)) return Infinity;
  const limit = limits.heapLimitMb > 0 ? limits.heapLimitMb * 2 ** 20 : getHeapStatistics().heap_size_limit;
  return limit * limits.heapFraction;
}

/** Change the limits of this thread (values left out keep their current setting). */
export function setEvalLimits(next: Partial<EvalLimits>): void {
  if (next.maxCollectionSize !== undefined) limits.maxCollectionSize = next.maxCollectionSize > 0 ? next.maxCollectionSize : Infinity;
  if (next.heapFraction !== undefined) limits.heapFraction = next.heapFraction;
  if (next.heapLimitMb !== undefined) limits.heapLimitMb = next.heapLimitMb;
  heapCeiling = computeCeiling();
}

/** The cancellation raised when an evaluation passes a limit. */
export class LimitError extends EvalError {
  constructor(
    readonly limit: 'collection' | 'heap',
    detail: string,
  ) {
    super('eval_cancel_error', `caller cancelled query execution: ${detail}`);
    this.name = 'LimitError';
  }
}

/** Throw: a collection passed maxCollectionSize members. */
export function collectionTooLarge(): never {
  throw new LimitError('collection', `collection size limit exceeded (more than ${limits.maxCollectionSize} members; --max-collection-size)`);
}

/** Throw when `size` is above the collection cap. */
export function checkCollectionSize(size: number): void {
  if (size > limits.maxCollectionSize) collectionTooLarge();
}

/**
 * Before a builtin splits `s` on `sep` (split, replace, strings.split_n): throw when
 * it would make more pieces than the collection cap. V8 aborts the whole process
 * when one native call (String.prototype.split) builds an array past 2^27 elements,
 * so this counts first; strings no longer than the cap cannot get there.
 */
export function checkSplitPieces(s: string, sep: string): void {
  const max = limits.maxCollectionSize;
  if (s.length <= max) return;
  let n = 0;
  if (sep === '') {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) i++;
      if (++n > max) collectionTooLarge();
    }
    return;
  }
  for (let i = s.indexOf(sep); i >= 0; i = s.indexOf(sep, i + sep.length)) if (++n >= max) collectionTooLarge();
}

/**
 * Before JSON text is parsed in one native call (json.unmarshal): throw when one of
 * its arrays or objects has more members than the collection cap (JSON.parse would
 * abort the process past 2^27). Only texts longer than twice the cap can, so shorter
 * ones are not scanned.
 */
export function checkJSONWidth(text: string): void {
  const max = limits.maxCollectionSize;
  if (text.length <= 2 * max) return;
  const counts: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) counts.push(1);
    else if (c === 0x5d || c === 0x7d) counts.pop();
    else if (c === 0x2c && counts.length > 0 && ++counts[counts.length - 1]! > max) collectionTooLarge();
  }
}

/** Throw when the heap is above its ceiling (called with the deadline check, every 1024 steps). */
export function checkHeap(): void {
  if (heapCeiling === Infinity) return;
  const used = getHeapStatistics().used_heap_size;
  if (used > heapCeiling) {
    const mb = Math.round(heapCeiling / 2 ** 20);
    throw new LimitError('heap', `memory limit exceeded (heap above ${mb} MB, ${Math.round(limits.heapFraction * 100)}% of the heap limit; --worker-heap-mb)`);
  }
}

/** True when the used heap is above the ceiling (large document builders check it between runs). */
export function heapAboveCeiling(): boolean {
  return heapCeiling !== Infinity && getHeapStatistics().used_heap_size > heapCeiling;
}

/** Strings from this length on are checked before a builtin call (see checkArgumentRoom). */
export const LARGE_ARGUMENT = 1 << 20;
/** How many bytes of heap a builtin may need per character of a large string argument. */
const ARGUMENT_AMPLIFICATION = 8;
/**
 * Builtins that only read a string argument (a count, a comparison, a search), building
 * nothing in proportion to it: no room check (`count(json.marshal(big))` must answer,
 * as in OPA, whatever the heap holds at that moment).
 */
const READS_ONLY: ReadonlySet<string> = new Set([
  'count',
  'is_string',
  'type_name',
  'startswith',
  'endswith',
  'contains',
  'indexof',
  'strings.count',
  'strings.any_prefix_match',
  'strings.any_suffix_match',
]);

/**
 * Before a builtin call with a string argument of `length` characters (at least
 * LARGE_ARGUMENT): refuse it when the values it may build (json.unmarshal,
 * yaml.unmarshal, split…, up to ARGUMENT_AMPLIFICATION bytes per character) would
 * not fit under the heap ceiling. V8 aborts the whole process when a single native
 * call allocates past a thread's heap limit, so this is checked before, not after.
 */
export function checkArgumentRoom(name: string, length: number): void {
  if (heapCeiling === Infinity || READS_ONLY.has(name)) return;
  const need = length * ARGUMENT_AMPLIFICATION;
  if (getHeapStatistics().used_heap_size + need > heapCeiling) {
    const mb = Math.round(length / 2 ** 20);
    throw new LimitError('heap', `memory limit exceeded (${name} on a ${mb} MB string could exceed ${Math.round(heapCeiling / 2 ** 20)} MB of heap; --worker-heap-mb)`);
  }
}

/**
 * What a V8 RangeError raised by evaluation means: a stack overflow (recursion)
 * or a size limit of the engine itself (string length, Map size, array length).
 */
export function rangeErrorKind(e: RangeError): 'stack' | 'size' {
  return /call stack/i.test(e.message) ? 'stack' : 'size';
}
