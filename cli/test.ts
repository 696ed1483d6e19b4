// `regent test [-v] [--coverage] [--format pretty|json] [--run REGEX] [--timeout D] PATH…`:
// run Rego unit tests as `opa test` does. Every .rego (and .json/.yaml data) file
// under the paths is loaded; discovery, duplicate-name rewriting (`test_x#01`) and
// evaluation live in test-runner.ts, coverage in test-coverage.ts. Output follows
// OPA's pretty reporter: failing (or, with -v, all) tests as
// `data.pkg.test_x: PASS (1.2ms)` grouped under their file, a line of 80 dashes,
// then `PASS: n/N`, `FAIL: n/N`, `SKIPPED: n/N`, `ERROR: n/N`; with -v failures are
// listed first with their `fails` explanation. `--format json` prints the result
// array. `--coverage` prints OPA's JSON coverage report instead. Exit codes: 0 all
// passed, 2 any test failed, errored or was skipped (unless -z), 1 load/compile
// errors (and failures with --coverage). Files that cannot be read or parsed are
// reported as OPA's loader does (`1 error occurred during loading: …`), compile
// errors as `1 error occurred: …`. `--bench` benchmarks each test instead and
// `--ignore GLOB` skips files while loading (both in test-bench.ts).
import { explain, prettyTrace } from '../compiler/index.js';
import { UsageError, bool, formatHelp, list, parseArgs, str, type FlagSpec } from './args.js';
import { parseDuration } from './eval.js';
import { loadPaths } from './loader.js';
import { errorLine, errorsText, toJSON, toOutputErrors, type IO, type OutputError } from './output.js';
import { coverageReport } from './test-coverage.js';
import { compileTests, findTests, parseTestModules, runTest, type TestResult } from './test-runner.js';
import { benchTest, benchmarkLine, loadIgnoring, type BenchTestResult } from './test-bench.js';

export type { TestResult } from './test-runner.js';
export { coverageReport, type CoverageReport } from './test-coverage.js';
export { findTests } from './test-runner.js';

export const TEST_FLAGS: FlagSpec[] = [
  { name: 'verbose', short: 'v', type: 'boolean', description: 'set verbose reporting mode' },
  { name: 'format', short: 'f', type: 'string', choices: ['pretty', 'json', 'gobench'], default: 'pretty', description: 'set output format (gobench: with --bench)' },
  { name: 'coverage', short: 'c', type: 'boolean', description: 'report coverage (JSON)' },
  { name: 'threshold', type: 'string', metavar: 'PERCENT', description: 'fail when coverage is below this percentage' },
  { name: 'run', short: 'r', type: 'string', metavar: 'REGEX', description: 'run only test cases matching the regular expression' },
  { name: 'timeout', type: 'string', metavar: 'DURATION', description: 'set test timeout (default 5s)' },
  { name: 'exit-zero-on-skipped', short: 'z', type: 'boolean', description: 'skipped tests return status 0' },
  { name: 'v0-compatible', type: 'boolean', description: 'accept Rego v0 syntax' },
  { name: 'bench', type: 'boolean', description: 'benchmark the unit tests' },
  { name: 'benchtime', type: 'string', default: '1s', metavar: 'DURATION', description: 'run each benchmark for about this long (Regent only)' },
  { name: 'benchmem', type: 'boolean', description: 'report memory allocations with benchmark results (accepted; Regent cannot count allocations)' },
  { name: 'ignore', type: 'string', repeatable: true, metavar: 'GLOB', description: "set file and directory names to ignore during loading (e.g., '.*' excludes hidden files)" },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for test' },
];

const USAGE = 'regent test [flags] <path> [path …]';
const DESCRIPTION = 'Execute Rego test cases: rules named test_* (todo_test_* are skipped).';

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

/** The `test` command. */
export function testCommand(argv: string[], io: IO): number {
  let args;
  let timeoutMs = 5_000;
  let threshold = 0;
  let filter: RegExp | undefined;
  try {
    args = parseArgs(argv, TEST_FLAGS);
    if (bool(args, 'help')) {
      io.out(formatHelp(USAGE, DESCRIPTION, TEST_FLAGS) + '\n');
      return 0;
    }
    if (args.positionals.length === 0) throw new UsageError('specify at least one file');
    const t = str(args, 'timeout');
    if (t !== undefined) timeoutMs = parseDuration(t);
    const th = str(args, 'threshold');
    if (th !== undefined) {
      threshold = Number(th);
      if (!(threshold >= 0 && threshold <= 100)) throw new UsageError('Code coverage threshold must be between 0 and 100');
    }
    const run = str(args, 'run');
    if (run !== undefined) filter = new RegExp(run);
  } catch (e) {
    if (!(e instanceof UsageError) && !(e instanceof SyntaxError)) throw e;
    io.err(`error: ${e.message}\n\n${formatHelp(USAGE, DESCRIPTION, TEST_FLAGS)}\n`);
    return 2;
  }
  const verbose = bool(args, 'verbose');
  const coverage = bool(args, 'coverage') || threshold > 0;
  let policy;
  let data;
  let v0 = false;
  let modules;
  try {
    const ignore = list(args, 'ignore');
    const loaded = ignore.length > 0 ? loadIgnoring(args.positionals, ignore) : loadPaths(args.positionals);
    data = loaded.data;
    v0 = bool(args, 'v0-compatible') || loaded.v0;
    modules = parseTestModules(loaded.modules, v0);
  } catch (e) {
    io.err(loadingErrorsText(toOutputErrors(e)) + '\n');
    return 1;
  }
  try {
    policy = compileTests(modules, v0);
  } catch (e) {
    io.err(errorsText(toOutputErrors(e)) + '\n');
    return 1;
  }
  const tests = findTests(policy.modules).filter((t) => !filter || filter.test(t.queryText));
  if (bool(args, 'bench')) return benchReport(io, tests.map((t) => benchTest(policy, t, { data, budgetMs: parseDuration(str(args, 'benchtime') ?? '1s') })), str(args, 'format') ?? 'pretty', bool(args, 'exit-zero-on-skipped'));
  const results = tests.map((t) => runTest(policy, t, { data, timeoutMs, trace: verbose || coverage }));
  const bad = results.some((r) => r.status === 'fail' || r.status === 'error' || (r.status === 'skip' && !bool(args, 'exit-zero-on-skipped')));
  if (coverage) {
    if (results.some((r) => r.status === 'fail' || r.status === 'error')) {
      io.out(prettyReport(results.filter((r) => r.status === 'fail' || r.status === 'error'), verbose));
      return 1;
    }
    const report = coverageReport(policy.modules, results.flatMap((r) => r.events));
    if (report.coverage < threshold) {
      io.err(`Code coverage threshold not met: got ${report.coverage.toFixed(2)} instead of ${threshold.toFixed(2)}\n`);
      return 2;
    }
    io.out(toJSON(report) + '\n');
    return 0;
  }
  io.out(str(args, 'format') === 'json' ? toJSON(results.map(resultJSON)) + '\n' : prettyReport(results, verbose));
  return bad ? 2 : 0;
}

const HL = '-'.repeat(80) + '\n';

/** `--bench` output: benchmark lines of passing tests, then the usual report of the others. */
function benchReport(io: IO, results: BenchTestResult[], format: string, zeroOnSkipped: boolean): number {
  if (format === 'json') {
    io.out(toJSON(results.map((r) => ({ ...resultJSON(r), ...(r.benchmark ? { benchmark_result: r.benchmark } : {}) }))) + '\n');
  } else {
    const lines = results.filter((r) => r.status === 'pass').map((r) => benchmarkLine(r, format === 'gobench') + '\n');
    const others = results.some((r) => r.status !== 'pass');
    io.out(lines.join('') + (lines.length > 0 && !others ? HL : '') + prettyReport(results, false));
  }
  return results.some((r) => r.status === 'fail' || r.status === 'error' || (r.status === 'skip' && !zeroOnSkipped)) ? 2 : 0;
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

/** OPA's PrettyReporter output. */
export function prettyReport(results: TestResult[], verbose: boolean): string {
  let out = '';
  const failures = results.filter((r) => r.status === 'fail');
  if (failures.length > 0 && verbose) {
    out += 'FAILURES\n' + HL;
    for (const f of failures) {
      out += resultLine(f) + '\n\n';
      out += indent(prettyTrace(explain(f.events, 'fails'), { locations: true })) + '\n';
    }
    out += 'SUMMARY\n' + HL;
  }
  let dirty = false;
  let lastFile: string | undefined;
  for (const r of results) {
    if (verbose || r.status !== 'pass') {
      if (r.file !== lastFile) {
        if (lastFile !== undefined) out += '\n';
        out += `${r.file}:\n`;
        lastFile = r.file;
      }
      dirty = true;
      out += resultLine(r) + '\n';
      if (r.output) out += '\n' + indent(r.output.trim()) + '\n\n';
    }
    if (r.error) out += `  ${r.error}\n`;
  }
  if (dirty) out += HL;
  const total = results.length;
  const count = (s: TestResult['status']) => results.filter((r) => r.status === s).length;
  const lines: [string, number][] = [
    ['PASS', count('pass')],
    ['FAIL', count('fail')],
    ['SKIPPED', count('skip')],
    ['ERROR', count('error')],
  ];
  for (const [label, n] of lines) if (n > 0) out += `${label}: ${n}/${total}\n`;
  return out;
}

function resultJSON(r: TestResult): Record<string, unknown> {
  return {
    location: { file: r.file, row: r.row, col: r.col },
    package: r.pkg,
    name: r.name,
    ...(r.status === 'fail' ? { fail: true } : {}),
    ...(r.error ? { error: { message: r.error } } : {}),
    ...(r.status === 'skip' ? { skip: true } : {}),
    duration: r.durationNs,
    ...(r.output ? { output: Buffer.from(r.output).toString('base64') } : {}),
  };
}
