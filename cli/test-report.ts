// Reports of `regent test`, as OPA's tester reporters (v1/tester/reporter.go) print
// them:
//  * prettyReport (PrettyReporter): with -v or --var-values, a FAILURES section first
//    (each failing test's line, then its trace table with -v/--explain, then its
//    failure line with --var-values; cli/test-trace.ts) and SUMMARY; then failing (or,
//    with -v, all) tests as `data.pkg.test_x: PASS (1.2ms)` grouped under their file,
//    print() output indented below its test, a line of 80 dashes, and the `PASS: n/N`,
//    `FAIL: n/N`, `SKIPPED: n/N`, `ERROR: n/N` counts.
//  * resultJSON (JSONReporter): OPA's Result fields; `trace` (topdown.Event JSON) when
//    the result kept trace events (-v, --explain).
//  * benchReport (--bench): benchmark lines of passing tests, then the usual report.
//  * loadingErrorsText and formatDuration: loader.Errors and Go's time.Duration text.
import { evalEventJSON } from '../compiler/index.js';
import { errorLine, toJSON, type OutputError } from './output.js';
import { benchmarkLine, type BenchTestResult } from './test-bench.js';
import type { TestResult } from './test-runner.js';
import { failureLine, traceTable } from './test-trace.js';
import { caseEntries, subResultsJSON, type SubResult } from './test-cases.js';

/** OPA's loader.Errors text: `1 error occurred during loading: …` or `N errors occurred during loading:` + lines. */
export function loadingErrorsText(errs: OutputError[]): string {
  if (errs.length === 1) return `1 error occurred during loading: ${errorLine(errs[0]!)}`;
  return `${errs.length} errors occurred during loading:\n${errs.map(errorLine).join('\n')}`;
}

/** Go's time.Duration text: `512ns`, `1.5µs`, `2.345ms`, `1.2s`, `1m2.5s`. */
export function formatDuration(ns: number): string {
  ns = Math.round(ns);
  if (ns === 0) return '0s';
  if (ns < 1_000) return `${ns}ns`;
  if (ns < 1_000_000) return frac(ns, 3) + 'µs';
  if (ns < 1_000_000_000) return frac(ns, 6) + 'ms';
  const h = Math.floor(ns / 3_600e9);
  const m = Math.floor((ns % 3_600e9) / 60e9);
  const s = frac(ns % 60e9, 9) + 's';
  return h > 0 ? `${h}h${m}m${s}` : m > 0 ? `${m}m${s}` : s;
}

function frac(v: number, digits: number): string {
  const unit = 10 ** digits;
  const whole = Math.floor(v / unit);
  const rest = String(v % unit).padStart(digits, '0').replace(/0+$/, '');
  return rest ? `${whole}.${rest}` : String(whole);
}

export const HL = '-'.repeat(80) + '\n';

export interface ReportOptions {
  /** -v (or --explain): list every test, and the trace of each failure. */
  verbose: boolean;
  /** --var-values: the failing expression of each failure (FailureLine). */
  failureLine?: boolean;
  /** --var-values: variable values in traces and failure lines (LocalVars). */
  localVars?: boolean;
  /** Source texts by file, for failure lines. */
  sources?: Map<string, string>;
}

function outcome(r: TestResult): string {
  return { pass: 'PASS', fail: 'FAIL', error: 'ERROR', skip: 'SKIPPED' }[r.status];
}

function resultLine(r: TestResult): string {
  return r.status === 'skip' ? `${r.pkg}.${r.name}: SKIPPED` : `${r.pkg}.${r.name}: ${outcome(r)} (${formatDuration(r.durationNs)})`;
}

function indent(text: string, by = '  '): string {
  return text
    .split('\n')
    .map((l) => (l === '' ? l : by + l))
    .join('\n');
}

/** OPA's PrettyReporter output (`verbose` alone, or all reporter options). */
export function prettyReport(results: TestResult[], options: boolean | ReportOptions): string {
  const opts: ReportOptions = typeof options === 'boolean' ? { verbose: options } : options;
  let out = '';
  const failures = results.filter((r) => r.status === 'fail');
  const counts = { pass: 0, fail: 0, skip: 0, error: 0 };
  for (const r of results) {
    // A test with cases counts its leaf cases (OPA's PrettyReporter).
    if (r.subResults && (r.status === 'pass' || r.status === 'fail')) {
      for (const [, sr] of caseEntries(r.subResults)) if (sr.subResults.size === 0) counts[sr.fail ? 'fail' : 'pass']++;
    } else counts[r.status]++;
  }
  if (counts.fail > 0 && (opts.verbose || opts.failureLine)) {
    out += 'FAILURES\n' + HL;
    for (const f of failures) out += resultLine(f) + '\n' + failureDetails(f, opts) + '\n';
    out += 'SUMMARY\n' + HL;
  }
  let dirty = false;
  let lastFile: string | undefined;
  for (const r of results) {
    if (opts.verbose || r.status !== 'pass') {
      if (r.file !== lastFile) {
        if (lastFile !== undefined) out += '\n';
        out += `${r.file}:\n`;
        lastFile = r.file;
      }
      dirty = true;
      out += resultLine(r) + '\n';
      for (const [path, sr] of r.subResults ? caseEntries(r.subResults) : []) if (sr.fail || opts.verbose) out += '  '.repeat(path.length) + caseLine(sr) + '\n';
      if (r.output) out += '\n' + indent(r.output.trim()) + '\n\n';
    }
    if (r.error) out += `  ${r.error}\n`;
  }
  if (dirty) out += HL;
  const total = counts.pass + counts.fail + counts.skip + counts.error;
  const lines: [string, number][] = [
    ['PASS', counts.pass],
    ['FAIL', counts.fail],
    ['SKIPPED', counts.skip],
    ['ERROR', counts.error],
  ];
  for (const [label, n] of lines) if (n > 0) out += `${label}: ${n}/${total}\n`;
  return out;
}

function caseLine(sr: SubResult): string {
  return `${sr.name}: ${sr.fail ? 'FAIL' : 'PASS'}`;
}

/**
 * What FAILURES shows under a failing test (printFailure): its trace (-v) and failure
 * line (--var-values); for a test with cases, the trace of the whole test, then each
 * failed leaf case under its lineage with the failure line of its own part of the trace.
 */
function failureDetails(f: TestResult, opts: ReportOptions): string {
  const sources = opts.sources ?? new Map<string, string>();
  if (!f.subResults) {
    let out = '';
    if (opts.verbose) out += '\n' + traceTable(f.events, opts.localVars);
    if (opts.failureLine) out += '\n' + failureLine(f.events, sources);
    return out;
  }
  let out = opts.verbose ? '\n' + traceTable(f.events, opts.localVars) : '';
  out += '\n';
  for (const [path, sr] of caseEntries(f.subResults)) {
    if (!sr.fail || sr.subResults.size > 0) continue;
    // The full lineage of the failed leaf, each name indented one step further.
    path.forEach((name, i) => (out += '  '.repeat(i + 1) + `${name}: FAIL\n`));
    const by = 2 * (path.length + 1);
    if (opts.failureLine) out += ' '.repeat(by) + '\n' + failureLine(sr.events, sources, by);
  }
  return out;
}

/** One topdown.Event as Go marshals it (field order of the struct). */
function eventJSON(e: TestResult['events'][number]): Record<string, unknown> {
  const j = evalEventJSON(e);
  return { Op: j.Op, Node: j.Node, Location: j.Location, QueryID: j.QueryID, ParentID: j.ParentID, Locals: j.Locals, LocalMetadata: j.LocalMetadata, Message: j.Message, Ref: j.Ref };
}

/** One result as OPA's JSONReporter prints it. */
export function resultJSON(r: TestResult): Record<string, unknown> {
  return {
    location: { file: r.file, row: r.row, col: r.col },
    ...(r.subResults ? { sub_results: subResultsJSON(r.subResults) } : {}),
    package: r.pkg,
    name: r.name,
    ...(r.status === 'fail' ? { fail: true } : {}),
    ...(r.error ? { error: { message: r.error } } : {}),
    ...(r.status === 'skip' ? { skip: true } : {}),
    duration: r.durationNs,
    ...(r.events.length > 0 ? { trace: r.events.map(eventJSON) } : {}),
    ...(r.output ? { output: Buffer.from(r.output).toString('base64') } : {}),
  };
}

/** `--bench` output: benchmark lines of passing tests, then the usual report of the others. */
export function benchReport(results: BenchTestResult[], format: string): string {
  if (format === 'json') return toJSON(results.map((r) => ({ ...resultJSON(r), ...(r.benchmark ? { benchmark_result: r.benchmark } : {}) }))) + '\n';
  const lines = results.filter((r) => r.status === 'pass').map((r) => benchmarkLine(r, format === 'gobench') + '\n');
  const others = results.some((r) => r.status !== 'pass');
  return lines.join('') + (lines.length > 0 && !others ? HL : '') + prettyReport(results, false);
}
