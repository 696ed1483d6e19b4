// `regent eval --metrics / --instrument / --profile / --coverage`, in OPA's output
// shapes (internal/presentation):
//  * metrics: `"metrics": {timer_rego_load_files_ns, timer_rego_module_parse_ns,
//    timer_rego_module_compile_ns, timer_rego_query_parse_ns, timer_rego_query_compile_ns,
//    timer_rego_query_eval_ns}`; --instrument (implies --metrics) adds the stage timers
//    `timer_compile_stage_*_ns` and `timer_query_compile_stage_*_ns`. Pretty: a
//    METRIC | VALUE table sorted by name.
//  * profile: OPA's profiler over the trace of the reference interpreter: per file and
//    row, the time from each expression's Eval/Redo to the next expression event,
//    num_eval, num_redo and num_gen_expr (distinct expressions on the row), at the
//    location of the first one seen; sorted as OPA's ReportTopNResults: by the
//    `--profile-sort` criteria, then the default ones (total_time_ns, num_eval,
//    num_redo, file, line), each descending; `--profile-limit` (default 10). JSON
//    `"profile": [{total_time_ns, num_eval, num_redo, num_gen_expr, location: {file,
//    row, col}}]`; pretty: TIME (Go duration) | NUM EVAL | NUM REDO | NUM GEN EXPR |
//    LOCATION (`file:row`, or the expression text for the query).
//  * --count N (OPA's "benchmark" flag): each run loads, compiles and evaluates afresh;
//    the result, errors, explanation and coverage are the first run's. With N > 1 the
//    metrics and profile are replaced by `aggregated_metrics` (for every timer of the
//    first run, OPA's metrics.Statistics over the runs: a go-metrics histogram
//    snapshot, count, min, max, mean, stddev, median, 75%, 90%, 95%, 99%, 99.9%,
//    99.99%, keys sorted as Go writes a map) and `aggregated_profile`
//    (profiler.AggregateProfiles: the runs' profiles zipped by position, each entry the
//    first run's counts and location with `total_time_ns_stats`); both left out when
//    empty, as OPA's omitempty. Pretty: METRIC | MIN | MAX | MEAN | 90% | 99% and
//    MIN | MAX | MEAN | 90% | 99% | NUM EVAL | NUM REDO | NUM GEN EXPR | LOCATION.
//  * coverage: OPA's cover.Report (cli/test-coverage.ts); pretty: `Overall Coverage`.
import type { Module } from '../compiler/ast/nodes.js';
import type { TraceEvent } from '../compiler/interp/index.js';
import { Recorder } from '../compiler/interp/frames.js';
import { coverageReport, type CoverageReport } from './test-coverage.js';
import { table, toJSON } from './output.js';
import type { EvalOutcome } from './eval.js';

export interface ExprStats {
  total_time_ns: number;
  num_eval: number;
  num_redo: number;
  num_gen_expr: number;
  location: { file: string; row: number; col: number };
  /** The expression text, shown for query expressions (no file). */
  text?: string;
}

/** An expression's stats over --count runs (OPA's ExprStatsAggregated). */
export interface AggregatedExprStats {
  total_time_ns_stats: Record<string, number>;
  num_eval: number;
  num_redo: number;
  num_gen_expr: number;
  location: { file: string; row: number; col: number };
  text?: string;
}

/** Extra outputs of an instrumented evaluation. */
export interface Extras {
  metrics?: Record<string, number>;
  profile?: ExprStats[];
  coverage?: CoverageReport;
  /** --count N > 1: statistics of each timer over the runs, and the zipped profiles. */
  aggregatedMetrics?: Record<string, Record<string, number>>;
  aggregatedProfile?: AggregatedExprStats[];
}

export const nowNs = (): bigint => process.hrtime.bigint();

/** Run `fn` with every trace event time-stamped (the profiler's clock). */
export function withEventTimes<T>(fn: () => T): { value: T; times: Map<TraceEvent, bigint> } {
  const times = new Map<TraceEvent, bigint>();
  const proto = Recorder.prototype as unknown as { emit: (...args: unknown[]) => void };
  const original = proto.emit;
  proto.emit = function (this: Recorder, ...args: unknown[]) {
    original.apply(this, args);
    times.set(this.events[this.events.length - 1]!, nowNs());
  };
  try {
    return { value: fn(), times };
  } finally {
    proto.emit = original;
  }
}

/** The profile sort criteria, each descending (OPA's profiler allowedCriteria). */
const CRITERIA: Record<string, (a: ExprStats, b: ExprStats) => boolean> = {
  total_time_ns: (a, b) => a.total_time_ns > b.total_time_ns,
  num_eval: (a, b) => a.num_eval > b.num_eval,
  num_redo: (a, b) => a.num_redo > b.num_redo,
  num_gen_expr: (a, b) => a.num_gen_expr > b.num_gen_expr,
  file: (a, b) => a.location.file > b.location.file,
  line: (a, b) => a.location.row > b.location.row,
};
export const DEFAULT_PROFILE_SORT = ['total_time_ns', 'num_eval', 'num_redo', 'file', 'line'];

/** Sort as OPA's multiSorter: the given criteria, then the default ones not given; unknown names ignored. */
export function sortProfile(stats: ExprStats[], given: string[] = []): ExprStats[] {
  const order = given.length > 0 ? [...given, ...DEFAULT_PROFILE_SORT.filter((c) => !given.includes(c))] : DEFAULT_PROFILE_SORT;
  const less = order.flatMap((c) => (Object.hasOwn(CRITERIA, c) ? [CRITERIA[c]!] : []));
  return stats.sort((p, q) => {
    for (const l of less) {
      if (l(p, q)) return -1;
      if (l(q, p)) return 1;
    }
    return 0;
  });
}

/** OPA's profiler report from time-stamped events, per file and row (see the header). */
export function profileReport(events: TraceEvent[], times: Map<TraceEvent, bigint>, queryTexts: Map<number, string>, limit = 10, sort: string[] = []): ExprStats[] {
  const stats = new Map<string, ExprStats & { exprs: Set<unknown> }>();
  let prev: { key: string; t: bigint } | undefined;
  for (const e of events) {
    if ((e.op !== 'Eval' && e.op !== 'Redo') || e.node?.type !== 'expr') continue;
    const loc = e.node.node.loc;
    const key = `${loc.file}\u0000${loc.row}`;
    const t = times.get(e) ?? 0n;
    if (prev) stats.get(prev.key)!.total_time_ns += Number(t - prev.t);
    let s = stats.get(key);
    if (!s) {
      const text = loc.file ? undefined : queryTexts.get(loc.offset);
      s = { total_time_ns: 0, num_eval: 0, num_redo: 0, num_gen_expr: 0, location: { file: loc.file, row: loc.row, col: loc.col }, ...(text ? { text } : {}), exprs: new Set() };
      stats.set(key, s);
    }
    if (e.op === 'Eval') s.num_eval++;
    else s.num_redo++;
    s.exprs.add(e.node.node);
    prev = { key, t };
  }
  const out = sortProfile([...stats.values()].map(({ exprs, ...s }) => ({ ...s, num_gen_expr: exprs.size })), sort);
  return limit > 0 ? out.slice(0, limit) : out;
}

/** The coverage report of a traced evaluation. */
export function coverage(modules: Module[], events: TraceEvent[]): CoverageReport {
  return coverageReport(modules, events);
}

/** Go's time.Duration.String(). */
export function goDuration(ns: number): string {
  if (ns === 0) return '0s';
  const neg = ns < 0;
  let u = Math.abs(Math.round(ns));
  const sign = neg ? '-' : '';
  const frac = (v: number, digits: number): string => {
    const whole = Math.floor(v / 10 ** digits);
    const rest = String(v % 10 ** digits).padStart(digits, '0').replace(/0+$/, '');
    return rest ? `${whole}.${rest}` : String(whole);
  };
  if (u < 1000) return `${sign}${u}ns`;
  if (u < 1_000_000) return `${sign}${frac(u, 3)}µs`;
  if (u < 1_000_000_000) return `${sign}${frac(u, 6)}ms`;
  let out = '';
  const h = Math.floor(u / 3_600_000_000_000);
  u -= h * 3_600_000_000_000;
  const m = Math.floor(u / 60_000_000_000);
  u -= m * 60_000_000_000;
  if (h > 0) out += `${h}h`;
  if (h > 0 || m > 0) out += `${m}m`;
  return `${sign}${out}${frac(u, 9)}s`;
}

/** ast.Location.String(): `file:row`, else the expression text, else `row:col`. */
export function profileLocation(s: { location: { file: string; row: number; col: number }; text?: string }): string {
  return s.location.file ? `${s.location.file}:${s.location.row}` : (s.text ?? `${s.location.row}:${s.location.col}`);
}

/** Upper-cased headers as tablewriter prints them. */
export const HEAD = (xs: string[]): string[] => xs.map((x) => x.toUpperCase());

/** The pretty tables after the result: metrics, profile, coverage (OPA's order). */
export function prettyExtras(x: Extras): string {
  let out = '';
  if (x.metrics) {
    const rows = Object.keys(x.metrics)
      .sort()
      .map((k) => [k, String(x.metrics![k])]);
    if (rows.length > 0) out += table(HEAD(['Metric', 'Value']), rows);
  }
  if (x.profile && x.profile.length > 0) {
    const rows = x.profile.map((s) => [goDuration(s.total_time_ns), String(s.num_eval), String(s.num_redo), String(s.num_gen_expr), profileLocation(s)]);
    out += table(HEAD(['Time', 'Num Eval', 'Num Redo', 'Num Gen Expr', 'Location']), rows);
  }
  out += prettyAggregated(x);
  if (x.coverage) {
    const cells = ['Overall Coverage', x.coverage.coverage.toFixed(2)];
    const w = cells.map((c) => c.length);
    const rule = '+' + w.map((n) => '-'.repeat(n + 2)).join('+') + '+';
    out += `${rule}\n| ${cells.join(' | ')} |\n${rule}\n`;
  }
  return out;
}

/**
 * The instrumentation members of the json output, in OPA's Output field order: those
 * before `errors` and `result` (metrics, aggregated_metrics, coverage), or those after
 * `explanation` (profile, aggregated_profile).
 */
export function jsonExtras(x: Extras, part: 'before' | 'after'): [string, unknown][] {
  const out: [string, unknown][] = [];
  if (part === 'before') {
    if (x.metrics) out.push(['metrics', sortedKeys(x.metrics)]);
    if (x.aggregatedMetrics && Object.keys(x.aggregatedMetrics).length > 0) out.push(['aggregated_metrics', sortedKeys(x.aggregatedMetrics)]);
    if (x.coverage) out.push(['coverage', x.coverage]);
  } else {
    if (x.profile && x.profile.length > 0) out.push(['profile', x.profile.map(({ text: _t, ...s }) => s)]);
    if (x.aggregatedProfile && x.aggregatedProfile.length > 0) out.push(['aggregated_profile', x.aggregatedProfile.map(({ text: _t, ...s }) => s)]);
  }
  return out;
}

/** Object keys sorted, as Go's encoder writes a map. */
function sortedKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]!]));
}

const STAT_KEYS = ['min', 'max', 'mean', '90%', '99%'];
/** Go's `%v` of a float64 (strconv 'g', shortest: an exponent from 1e+06 and below 1e-04). */
export function goFloat(x: number): string {
  const [mant, exp] = x.toExponential().split('e') as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 6) return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return String(x);
}
/** A stat as `%v` prints it: count, min and max are int64 in OPA, the others float64. */
const statText = (k: string, v: number): string => (k === 'min' || k === 'max' || k === 'count' ? String(v) : goFloat(v));

/** The --count tables (OPA's prettyAggregatedMetrics / prettyAggregatedProfile). */
function prettyAggregated(x: Extras): string {
  let out = '';
  const m = x.aggregatedMetrics;
  if (m && Object.keys(m).length > 0) {
    const rows = Object.keys(m)
      .sort()
      .map((name) => [name, ...STAT_KEYS.map((k) => statText(k, m[name]![k] ?? 0))]);
    out += table(HEAD(['Metric', ...STAT_KEYS]), rows);
  }
  if (x.aggregatedProfile && x.aggregatedProfile.length > 0) {
    const rows = x.aggregatedProfile.map((s) => [
      ...STAT_KEYS.map((k) => goDuration(Math.trunc(s.total_time_ns_stats[k] ?? 0))),
      String(s.num_eval),
      String(s.num_redo),
      String(s.num_gen_expr),
      profileLocation(s),
    ]);
    out += table(HEAD([...STAT_KEYS, 'Num Eval', 'Num Redo', 'Num Gen Expr', 'Location']), rows);
  }
  return out;
}

// ---------------------------------------------------------------- --count

type Outcome = EvalOutcome & { extras?: Extras };

/** go-metrics SamplePercentiles: the sorted values interpolated at p·(n+1). */
function percentile(sorted: number[], p: number): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const pos = p * (n + 1);
  if (pos < 1) return sorted[0]!;
  if (pos >= n) return sorted[n - 1]!;
  const lower = sorted[Math.floor(pos) - 1]!;
  const upper = sorted[Math.floor(pos)]!;
  return lower + (pos - Math.floor(pos)) * (upper - lower);
}

/** OPA's metrics.Statistics(values…), keys in Go's sorted map order. */
export function statistics(values: number[]): Record<string, number> {
  const n = values.length;
  const sorted = [...values].sort((a, b) => a - b);
  const mean = n === 0 ? 0 : values.reduce((a, b) => a + b, 0) / n;
  const variance = n === 0 ? 0 : values.reduce((a, v) => a + (v - mean) ** 2, 0) / n;
  const p = (q: number): number => percentile(sorted, q);
  return {
    '75%': p(0.75),
    '90%': p(0.9),
    '95%': p(0.95),
    '99%': p(0.99),
    '99.9%': p(0.999),
    '99.99%': p(0.9999),
    count: n,
    max: n === 0 ? 0 : sorted[n - 1]!,
    mean,
    median: p(0.5),
    min: n === 0 ? 0 : sorted[0]!,
    stddev: Math.sqrt(variance),
  };
}

/** Statistics of every timer of the first run over all runs. */
export function aggregateMetrics(runs: (Record<string, number> | undefined)[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const name of Object.keys(runs[0] ?? {})) out[name] = statistics(runs.map((r) => r?.[name] ?? 0));
  return out;
}

/** profiler.AggregateProfiles: entry j aggregates entry j of every run. */
export function aggregateProfiles(runs: ExprStats[][]): AggregatedExprStats[] {
  const first = runs[0] ?? [];
  return first.map((s, j) => ({
    total_time_ns_stats: statistics(runs.map((r) => r[j]?.total_time_ns ?? 0)),
    num_eval: s.num_eval,
    num_redo: s.num_redo,
    num_gen_expr: s.num_gen_expr,
    location: s.location,
    ...(s.text !== undefined ? { text: s.text } : {}),
  }));
}

/** `first` and `count - 1` more runs of `once`; with count > 1, the aggregated metrics and profile. */
export async function repeat(first: Outcome, count: number, once: () => Promise<Outcome>): Promise<Outcome> {
  const runs: Outcome[] = [first];
  for (let i = 1; i < count; i++) runs.push(await once());
  if (count <= 1 || !first.extras) return first;
  const { metrics: _m, profile: _p, ...rest } = first.extras ?? {};
  const extras: Extras = { ...rest };
  if (runs.some((r) => r.extras?.metrics)) extras.aggregatedMetrics = aggregateMetrics(runs.map((r) => r.extras?.metrics));
  extras.aggregatedProfile = aggregateProfiles(runs.map((r) => r.extras?.profile ?? []));
  return { ...first, extras };
}
