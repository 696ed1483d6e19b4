// `regent eval --metrics / --instrument / --profile / --coverage`, in OPA's output
// shapes (internal/presentation):
//  * metrics: `"metrics": {timer_rego_load_files_ns, timer_rego_module_parse_ns,
//    timer_rego_module_compile_ns, timer_rego_query_parse_ns, timer_rego_query_compile_ns,
//    timer_rego_query_eval_ns}`; --instrument (implies --metrics) adds the stage timers
//    `timer_compile_stage_*_ns` and `timer_query_compile_stage_*_ns`. Pretty: a
//    METRIC | VALUE table sorted by name.
//  * profile: OPA's profiler over the trace of the reference interpreter: per expression
//    location the time from its Eval/Redo to the next expression event, num_eval,
//    num_redo and num_gen_expr (distinct expressions sharing the location); sorted by
//    total_time_ns, num_eval, num_redo (descending), then file and line; `--profile-limit`
//    (default 10). JSON `"profile": [{total_time_ns, num_eval, num_redo, num_gen_expr,
//    location: {file, row, col}}]`; pretty: TIME (Go duration) | NUM EVAL | NUM REDO |
//    NUM GEN EXPR | LOCATION (`file:row`, or the expression text for the query).
//  * coverage: OPA's cover.Report (cli/test-coverage.ts); pretty: `Overall Coverage`.
import type { Module } from '../compiler/ast/nodes.js';
import type { TraceEvent } from '../compiler/interp/index.js';
import { Recorder } from '../compiler/interp/frames.js';
import { coverageReport, type CoverageReport } from './test-coverage.js';
import { table, toJSON } from './output.js';

export interface ExprStats {
  total_time_ns: number;
  num_eval: number;
  num_redo: number;
  num_gen_expr: number;
  location: { file: string; row: number; col: number };
  /** The expression text, shown for query expressions (no file). */
  text?: string;
}

/** Extra outputs of an instrumented evaluation. */
export interface Extras {
  metrics?: Record<string, number>;
  profile?: ExprStats[];
  coverage?: CoverageReport;
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

/** OPA's profiler report from time-stamped events. */
export function profileReport(events: TraceEvent[], times: Map<TraceEvent, bigint>, queryTexts: Map<number, string>, limit = 10): ExprStats[] {
  const stats = new Map<string, ExprStats & { exprs: Set<unknown> }>();
  let prev: { key: string; t: bigint } | undefined;
  for (const e of events) {
    if ((e.op !== 'Eval' && e.op !== 'Redo') || e.node?.type !== 'expr') continue;
    const loc = e.node.node.loc;
    const key = `${loc.file}\u0000${loc.row}\u0000${loc.col}`;
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
  const out = [...stats.values()].map(({ exprs, ...s }) => ({ ...s, num_gen_expr: exprs.size }));
  out.sort(
    (a, b) =>
      b.total_time_ns - a.total_time_ns ||
      b.num_eval - a.num_eval ||
      b.num_redo - a.num_redo ||
      (a.location.file < b.location.file ? -1 : a.location.file > b.location.file ? 1 : 0) ||
      a.location.row - b.location.row,
  );
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

/** Upper-cased headers as tablewriter prints them. */
const HEAD = (xs: string[]): string[] => xs.map((x) => x.toUpperCase());

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
    const rows = x.profile.map((s) => [goDuration(s.total_time_ns), String(s.num_eval), String(s.num_redo), String(s.num_gen_expr), s.location.file ? `${s.location.file}:${s.location.row}` : (s.text ?? `${s.location.row}:${s.location.col}`)]);
    out += table(HEAD(['Time', 'Num Eval', 'Num Redo', 'Num Gen Expr', 'Location']), rows);
  }
  if (x.coverage) {
    const cells = ['Overall Coverage', x.coverage.coverage.toFixed(2)];
    const w = cells.map((c) => c.length);
    const rule = '+' + w.map((n) => '-'.repeat(n + 2)).join('+') + '+';
    out += `${rule}\n| ${cells.join(' | ')} |\n${rule}\n`;
  }
  return out;
}

/** The JSON members after `result`, in OPA's Output field order. */
export function jsonExtras(x: Extras): [string, unknown][] {
  const out: [string, unknown][] = [];
  if (x.metrics) out.push(['metrics', Object.fromEntries(Object.keys(x.metrics).sort().map((k) => [k, x.metrics![k]]))]);
  if (x.profile && x.profile.length > 0) out.push(['profile', x.profile.map(({ text: _t, ...s }) => s)]);
  if (x.coverage) out.push(['coverage', x.coverage]);
  return out;
}

/** Append members to a rendered JSON object (`{…}\n`). */
export function appendJSON(text: string, members: [string, unknown][]): string {
  if (members.length === 0) return text;
  const extra = members.map(([k, v]) => `  ${JSON.stringify(k)}: ${toJSON(v, '  ', '  ')}`).join(',\n');
  const body = text.trimEnd();
  return (body === '{}' ? `{\n${extra}\n}` : `${body.slice(0, -2)},\n${extra}\n}`) + '\n';
}
