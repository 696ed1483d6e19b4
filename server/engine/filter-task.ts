// Data filters as an evaluation task (mode 'filter' of EvalTask, POST/GET
// /v1/compile/{path}): runs where every evaluation runs, in a worker thread of the
// pool or in-process with `--workers 0`, under the same deadline. The evaluator's
// own compiled policy and data are used: the prepared filter (constraint set, short
// names, planned mask rule) is cached per evaluator (one cache per worker thread)
// and dropped whenever that evaluator's policy or data change; the partial
// evaluation, fragment checks, translation and typo hints run here, and the reply's
// `result` comes back as compact JSON text. Filter errors cross the thread as
// WireErrors with codes `filter_ast` (400 evaluation_error, its errors kept as `filterErrors`) and
// `filter_error` (500 internal_error); api/compile-filters.ts maps them back.
import { filters as f, type CompiledPolicy } from '../../compiler/index.js';
import * as compiler from '../../compiler/index.js';
import type { RObject, Value } from '../../runtime/index.js';
import { ValueJSON, stringify } from '../api/json.js';
import type { EvalOutcome, EvalTask, WireError } from './protocol.js';

const LIMIT = 500;
const MULTI_KEYS = ['ucast', 'postgresql', 'mysql', 'sqlserver', 'sqlite'];

let injected: f.PartialEvalFn | undefined;

/** Replace the partial evaluator of this thread (tests of the route alone, `--workers 0`); undefined restores the compiler's. */
export function setFilterPartialEvaluator(fn: f.PartialEvalFn | undefined): void {
  injected = fn;
}

/** The partial evaluator of compiler/partial, when the compiler provides it. */
export function filterPartialEvaluator(): f.PartialEvalFn | undefined {
  return injected ?? (compiler as unknown as { partialEval?: f.PartialEvalFn }).partialEval;
}

/** A Map with insertion-order eviction. */
class Bounded<V> {
  private readonly map = new Map<string, V>();
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  set(key: string, value: V): void {
    if (this.map.size >= LIMIT) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, value);
  }
}

/** Prepared filters and typo-hint sites of one evaluator, for its current policy and data. */
export class FilterCache {
  private prepared = new Bounded<f.PreparedFilter>();
  private sites = new Bounded<f.HintSite[]>();
  /** Hits and misses since start (tests). */
  readonly stats = { hits: 0, misses: 0 };

  /** Forget everything (the evaluator's policy or data changed). */
  clear(): void {
    this.prepared = new Bounded();
    this.sites = new Bounded();
  }

  /** A prepared filter for the spec (throws FilterError for unknown targets; not cached then). */
  get(policy: CompiledPolicy, spec: f.FilterSpec): { prepared: f.PreparedFilter; hit: boolean } {
    const key = JSON.stringify([spec.path, spec.targets, spec.unknowns, spec.maskRule ?? null, spec.mappings ?? null, spec.disableInlining ?? null, spec.mirrorComparisons === true]);
    const cached = this.prepared.get(key);
    if (cached) {
      this.stats.hits++;
      return { prepared: cached, hit: true };
    }
    this.stats.misses++;
    const prepared = f.prepareFilter(policy, spec);
    this.prepared.set(key, prepared);
    return { prepared, hit: false };
  }

  /** The comparisons on `input.X…` the query at `path` reaches (typo hints). */
  hintSites(policy: CompiledPolicy, path: string[]): f.HintSite[] {
    const key = path.join('\u0000');
    let sites = this.sites.get(key);
    if (!sites) this.sites.set(key, (sites = f.hintSites(policy.modules, path)));
    return sites;
  }
}

/** The UCAST tree as JSON for the reply (values exact, `{field}` for column refs, `{}` for YES). */
function ucastJSON(node: f.UcastNode | undefined): unknown {
  if (node === undefined) return {};
  if (node.type === 'compound') return { type: 'compound', operator: node.operator, value: node.value.map(ucastJSON) };
  const v = node.value;
  return { type: 'field', field: node.field, operator: node.operator, value: v instanceof f.FieldRef ? { field: v.field } : new ValueJSON(v) };
}

function resultJSON(t: f.TargetFilter): unknown {
  if (!t.query) return undefined;
  const query = 'sql' in t.query ? t.query.sql : ucastJSON(t.query.ucast);
  return { query, masks: t.masks !== undefined ? new ValueJSON(t.masks) : undefined };
}

/** The reply's `result`: one target's, or the multitarget object (one UCAST representation). */
function replyResult(filters: f.TargetFilter[], multi: boolean): unknown {
  if (!multi) return resultJSON(filters[0]!);
  const out: Record<string, unknown> = {};
  for (const tf of filters) {
    if (tf.target === 'ucast') {
      if (!('ucast' in out)) out.ucast = resultJSON(tf);
    } else if (MULTI_KEYS.includes(tf.dialect)) out[tf.dialect] = resultJSON(tf);
  }
  return Object.fromEntries(MULTI_KEYS.map((k) => [k, out[k]]));
}

/** A filter failure as it crosses threads (other errors: evaluate.ts toWireError). */
export function filterWireError(e: unknown): WireError | undefined {
  if (e instanceof f.FilterASTErrors) return { kind: 'other', phase: 'eval', code: 'filter_ast', message: e.message, filterErrors: e.errors.map((x) => x.toJSON()) };
  if (e instanceof f.FilterError) return { kind: 'other', phase: 'eval', code: 'filter_error', message: e.message };
  return undefined;
}

/** Run one 'filter' task against an evaluator's policy and data. Throws; the caller turns errors into WireErrors. */
export function runFilterTask(policy: CompiledPolicy, data: RObject, cache: FilterCache, task: EvalTask, input: Value | undefined, timers: Record<string, number>): EvalOutcome {
  const spec = task.filter!;
  const t = process.hrtime.bigint();
  const { prepared, hit } = cache.get(policy, spec.spec);
  timers.timer_compile_prep_partial_ns = Number(process.hrtime.bigint() - t);
  if (hit) timers.counter_compile_prepared_cache_hit = 1;
  const partialEval = filterPartialEvaluator();
  if (!partialEval) throw new f.FilterError('partial evaluation is not available in this build');
  const deadline = task.timeoutMs ? Date.now() + task.timeoutMs : undefined;
  const run = f.runFilter(policy, prepared, {
    ...(input !== undefined ? { input } : {}),
    data,
    partialEval,
    ...(deadline ? { deadline } : {}),
    ...(task.instrument ? { stageTimers: timers } : {}),
  });
  Object.assign(timers, run.timers);
  const result = replyResult(run.filters, spec.multi);
  const hints = f.typoHints(cache.hintSites(policy, spec.spec.path), input, spec.spec.unknowns).map((h) => ({ ...(h.location ? { location: { file: h.location.file, row: h.location.row, col: h.location.col } } : {}), message: h.message }));
  const outcome: EvalOutcome = { timers, cacheHit: hit };
  if (result !== undefined) {
    outcome.resultText = stringify(result, false); // as the decision log has it (api/json.ts: newline-terminated)
    if (task.pretty) outcome.resultPretty = stringify(result, true);
  }
  if (hints.length > 0) outcome.hints = hints;
  return outcome;
}
