// The wire form of a batch of evaluation tasks and of its answers, between the pool
// (pool-threads.ts) and a worker (worker.ts). A structured clone pays for every
// property key of every object it copies: a Data API task is an object of ten fields
// with a nested input payload, and its outcome an object with a nested timers object,
// so cloning them cost about six times what the same values cost as a flat array of
// strings and numbers (measured: 1.9 µs against 0.3 µs per task, 0.87 against 0.2 µs
// per outcome, serialize and deserialize together). Here each task and each outcome
// is a fixed number of slots of one flat array; what does not fit the common shape
// (partial evaluation, data filters, explanations, errors) travels whole in a slot.
import type { EvalOutcome, EvalTask, InputPayload } from './protocol.js';

/** A batch as posted: the watchdog slot, then TASK_SLOTS entries per task. */
export type WireBatch = unknown[];
/** A batch's answers as posted: OUTCOME_SLOTS entries per outcome. */
export type WireOutcomes = unknown[];

const TASK_SLOTS = 8;
const OUTCOME_SLOTS = 3;

// Task flags (slot 3).
const STRICT = 1;
const PRETTY = 2;
const INSTRUMENT = 4;
const INPUT_JS = 8;
const INPUT_TEXT = 16;
/** The task is not a plain read: slot 0 holds the whole task object. */
const WHOLE = 32;

// Outcome kinds (an outcome's slot 1).
const MISS = 0;
const HIT = 1;
/** Not a plain outcome: slot 2 holds the whole outcome object. */
const WHOLE_OUTCOME = 2;

/** A task the flat form carries: a value query or document read with at most input, explain and flags. */
function isFlat(t: EvalTask): boolean {
  return t.mode === 'value' && t.partial === undefined && t.filter === undefined;
}

/** The batch `tasks` (watchdog `slot`) as one flat array. */
export function encodeBatch(tasks: readonly EvalTask[], slot: number): WireBatch {
  const out: unknown[] = new Array(1 + tasks.length * TASK_SLOTS);
  out[0] = slot;
  for (let i = 0, at = 1; i < tasks.length; i++, at += TASK_SLOTS) {
    const t = tasks[i]!;
    if (!isFlat(t)) {
      out[at] = t;
      out[at + 1] = undefined;
      out[at + 2] = undefined;
      out[at + 3] = WHOLE;
      out[at + 4] = t.generation;
      out[at + 5] = undefined;
      out[at + 6] = undefined;
      out[at + 7] = undefined;
      continue;
    }
    const input = t.input;
    let flags = (t.strictBuiltinErrors ? STRICT : 0) | (t.pretty ? PRETTY : 0) | (t.instrument ? INSTRUMENT : 0);
    if (input !== undefined) flags |= input.kind === 'js' ? INPUT_JS : INPUT_TEXT;
    out[at] = t.query;
    out[at + 1] = t.path;
    out[at + 2] = t.pathKey;
    out[at + 3] = flags;
    out[at + 4] = t.generation;
    out[at + 5] = t.timeoutMs;
    out[at + 6] = input === undefined ? undefined : input.kind === 'js' ? input.js : input.text;
    out[at + 7] = t.explain;
  }
  return out;
}

/** The watchdog slot of a posted batch. */
export function batchSlot(batch: WireBatch): number {
  return batch[0] as number;
}

/** The number of tasks in a posted batch. */
export function batchLength(batch: WireBatch): number {
  return (batch.length - 1) / TASK_SLOTS;
}

/** The newest engine generation any task of the batch must see. */
export function newestGeneration(batch: WireBatch): number {
  let newest = -1;
  for (let at = 1 + 4; at < batch.length; at += TASK_SLOTS) if ((batch[at] as number) > newest) newest = batch[at] as number;
  return newest;
}

/** Task `i` of a posted batch, as the evaluator takes it. */
export function batchTask(batch: WireBatch, i: number): EvalTask {
  const at = 1 + i * TASK_SLOTS;
  const flags = batch[at + 3] as number;
  if (flags & WHOLE) return batch[at] as EvalTask;
  const raw = batch[at + 6];
  let input: InputPayload | undefined;
  if (flags & INPUT_JS) input = { kind: 'js', js: raw };
  else if (flags & INPUT_TEXT) input = { kind: 'text', text: raw as string };
  // One object shape for every decoded task (the evaluator's property reads stay monomorphic).
  return {
    generation: batch[at + 4] as number,
    query: batch[at] as string,
    mode: 'value',
    partial: undefined,
    filter: undefined,
    path: batch[at + 1] as string[] | undefined,
    pathKey: batch[at + 2] as string | undefined,
    input,
    strictBuiltinErrors: (flags & STRICT) !== 0,
    timeoutMs: batch[at + 5] as number | undefined,
    pretty: (flags & PRETTY) !== 0,
    instrument: (flags & INSTRUMENT) !== 0 ? true : undefined,
    explain: batch[at + 7] as EvalTask['explain'],
  };
}

/** An outcome carrying only a result text, the cache flag and timers. */
function isPlainOutcome(o: EvalOutcome): boolean {
  return o.error === undefined && o.explanation === undefined && o.resultPretty === undefined && o.hints === undefined;
}

/** The answers of a batch as one flat array: result text, HIT or MISS, timers as [name, ns, …]. */
export function encodeOutcomes(outcomes: readonly EvalOutcome[]): WireOutcomes {
  const out: unknown[] = new Array(outcomes.length * OUTCOME_SLOTS);
  for (let i = 0, at = 0; i < outcomes.length; i++, at += OUTCOME_SLOTS) {
    const o = outcomes[i]!;
    if (!isPlainOutcome(o)) {
      out[at] = undefined;
      out[at + 1] = WHOLE_OUTCOME;
      out[at + 2] = o;
      continue;
    }
    const timers: (string | number)[] = [];
    for (const k in o.timers) timers.push(k, o.timers[k]!);
    out[at] = o.resultText;
    out[at + 1] = o.cacheHit ? HIT : MISS;
    out[at + 2] = timers;
  }
  return out;
}

/** The number of outcomes in posted answers. */
export function outcomesLength(wire: WireOutcomes): number {
  return wire.length / OUTCOME_SLOTS;
}

/** Outcome `i` of posted answers. */
export function outcomeAt(wire: WireOutcomes, i: number): EvalOutcome {
  const at = i * OUTCOME_SLOTS;
  if (wire[at + 1] === WHOLE_OUTCOME) return wire[at + 2] as EvalOutcome;
  const list = wire[at + 2] as (string | number)[];
  const timers: Record<string, number> = {};
  for (let j = 0; j < list.length; j += 2) timers[list[j] as string] = list[j + 1] as number;
  const o: EvalOutcome = { timers, cacheHit: wire[at + 1] === HIT };
  const text = wire[at] as string | undefined;
  if (text !== undefined) o.resultText = text;
  return o;
}
