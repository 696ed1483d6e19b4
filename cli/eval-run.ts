// The instrumented `regent eval` path, taken when any of --metrics, --instrument,
// --profile, --coverage, --package, --import, --capabilities or -s/--schema is given
// (cli/eval.ts keeps the plain path lean). Loads and compiles with timers, checks the
// capabilities and the input schema (all errors reported together, as OPA's compiler
// does), resolves the query in its package/imports context (cli/eval-context.ts), and
// evaluates: with the reference interpreter's trace when profiling or measuring
// coverage, else with the compiled policy. Output: cli/eval-instrument.ts, through
// cli/eval-formats.ts (eval.ts's render). Also the timed load, compile and partial
// evaluation of `eval --partial --metrics` (cli/eval-partial.ts).
import { compile, type CompiledPolicy } from '../compiler/policy.js';
import { preparePartial, type PartialPrepareOptions, type PartialResult, type PartialRunOptions } from '../compiler/partial/index.js';
import { parseQuery } from '../compiler/parser/index.js';
import { RegoErrors } from '../compiler/source/diagnostics.js';
import type { ResultRow } from '../compiler/api.js';
import { loadForEval } from './eval-load.js';
import type { IO } from './output.js';
import type { EvalOutcome, EvalRequest } from './eval.js';
import { evalOptions, readInput } from './eval.js';
import { contextualQuery, extraChecks, restoreTexts } from './eval-context.js';
import { coverage, nowNs, profileReport, withEventTimes, type Extras } from './eval-instrument.js';

/** The options that select this path. */
export interface InstrumentOptions {
  metrics?: boolean;
  instrument?: boolean;
  profile?: boolean;
  profileLimit?: number;
  /** --profile-sort criteria (OPA's, each descending; the default ones follow). */
  profileSort?: string[];
  coverage?: boolean;
  package?: string;
  imports?: string[];
  capabilities?: string;
  schema?: string;
}

export type InstrumentedOutcome = EvalOutcome & { extras?: Extras };

/** True when the request needs this path. */
export function isInstrumented(req: EvalRequest & InstrumentOptions): boolean {
  return !!(req.metrics || req.instrument || req.profile || req.coverage || req.package !== undefined || (req.imports?.length ?? 0) > 0 || req.capabilities !== undefined || req.schema !== undefined);
}

const since = (t: bigint): number => Number(nowNs() - t);

/**
 * Load the files and compile them, recording OPA's `timer_rego_load_files_ns`,
 * `timer_rego_module_parse_ns` and `timer_rego_module_compile_ns` in `metrics` (and with
 * --instrument the compile stage timers). Used by evaluation and partial evaluation.
 */
export async function loadAndCompileTimed(req: EvalRequest & InstrumentOptions, metrics: Record<string, number>) {
  let t = nowNs();
  const loaded = await loadForEval(req);
  metrics.timer_rego_load_files_ns = since(t);
  const v0 = req.v0Compatible || loaded.v0;
  const stages: Record<string, number> = {};
  t = nowNs();
  const policy = compile(loaded.modules, { v0Compatible: v0, ...(req.strict ? { strict: true } : {}), stageTimers: stages });
  const compileNs = since(t);
  const passNs = Object.values(stages).reduce((a, b) => a + b, 0);
  metrics.timer_rego_module_parse_ns = Math.max(0, compileNs - passNs);
  metrics.timer_rego_module_compile_ns = passNs;
  if (req.instrument) Object.assign(metrics, stages);
  return { loaded, policy, v0 };
}

/**
 * Prepare and run a partial evaluation recording OPA's timers: the query's parse and
 * compile (`timer_rego_query_parse_ns`, `timer_rego_query_compile_ns`, and the stage
 * timers with --instrument) and `timer_rego_partial_eval_ns`.
 */
export function partialEvalTimed(policy: CompiledPolicy, req: EvalRequest, opts: PartialPrepareOptions, run: PartialRunOptions, metrics: Record<string, number>): PartialResult {
  const stages: Record<string, number> = {};
  let t = nowNs();
  const prepared = preparePartial(policy, req.query, { ...opts, stageTimers: stages });
  const queryNs = since(t);
  metrics.timer_rego_query_parse_ns = stages.timer_query_compile_stage_parse_ns ?? 0;
  metrics.timer_rego_query_compile_ns = Math.max(0, queryNs - metrics.timer_rego_query_parse_ns);
  if (req.instrument) Object.assign(metrics, stages);
  t = nowNs();
  const r = prepared.eval(run);
  metrics.timer_rego_partial_eval_ns = since(t);
  return r;
}

/** Load, compile, check and evaluate with the requested instrumentation. Never throws. */
export async function evaluateInstrumented(req: EvalRequest & InstrumentOptions, io?: IO): Promise<InstrumentedOutcome> {
  const wantMetrics = !!(req.metrics || req.instrument);
  const metrics: Record<string, number> = {};
  const extras: Extras = {};
  if (wantMetrics) extras.metrics = metrics;
  try {
    const input = readInput(req, io);
    const { loaded, policy, v0 } = await loadAndCompileTimed(req, metrics);
    let t: bigint;
    const modules = policy.state.modules;
    const checks = extraChecks(req, modules, req.query, v0);
    if (checks.length > 0) throw new RegoErrors(checks);
    const query = contextualQuery(req.query, req.package, req.imports ?? [], modules, v0);
    const evalOpts = evalOptions(req, input, loaded.data, io);
    let rows: ResultRow[];
    if (req.profile || req.coverage) {
      const interp = await import('../compiler/interp/index.js');
      t = nowNs();
      const prepared = interp.prepareInterpreted(policy, query);
      metrics.timer_rego_query_compile_ns = since(t);
      t = nowNs();
      const { value: traced, times } = withEventTimes(() => prepared.evalWithTrace(evalOpts));
      metrics.timer_rego_query_eval_ns = since(t);
      if (traced.error !== undefined) return { ok: false, error: traced.error, extras };
      rows = traced.rows;
      if (req.profile) extras.profile = profileReport(traced.events, times, queryTextsByOffset(query), req.profileLimit ?? 10, req.profileSort);
      if (req.coverage) extras.coverage = coverage(modules, traced.events);
    } else {
      const qstages: Record<string, number> = {};
      t = nowNs();
      const prepared = policy.prepare(query, wantMetrics ? { stageTimers: qstages } : {});
      const queryNs = since(t);
      metrics.timer_rego_query_parse_ns = qstages.timer_query_compile_stage_parse_ns ?? 0;
      metrics.timer_rego_query_compile_ns = queryNs - metrics.timer_rego_query_parse_ns;
      if (req.instrument) Object.assign(metrics, qstages);
      t = nowNs();
      rows = prepared.eval(evalOpts);
      metrics.timer_rego_query_eval_ns = since(t);
    }
    if (query !== req.query) rows = restoreTexts(rows, req.query, v0);
    return { ok: true, rows, extras };
  } catch (error) {
    return { ok: false, error, extras };
  }
}

/** Query expression texts by offset, for the profile's LOCATION of query expressions. */
function queryTextsByOffset(query: string): Map<number, string> {
  const out = new Map<number, string>();
  try {
    const body = parseQuery(query, '');
    body.forEach((e, i) => out.set(e.loc.offset, query.slice(e.loc.offset, i + 1 < body.length ? body[i + 1]!.loc.offset : query.length).replace(/[\s;]+$/, '')));
  } catch {
    // unparsable: the location falls back to row:col
  }
  return out;
}
