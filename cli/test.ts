// `regent test [-v] [--coverage] [--format pretty|json] [--run REGEX] [--timeout D] PATH…`:
// run Rego unit tests as `opa test` does. Every .rego (and .json/.yaml data) file
// under the paths is loaded; each rule named `test_*` is a test, evaluated as the
// query `data.<package>.<name>`, passing when its value is `true`; `todo_test_*`
// rules are reported as SKIPPED. Output follows OPA's pretty reporter: failing (or,
// with -v, all) tests as `data.pkg.test_x: PASS (1.2ms)` grouped under their file,
// a line of 80 dashes, then `PASS: n/N`, `FAIL: n/N`, `SKIPPED: n/N`, `ERROR: n/N`;
// with -v failures are listed first with their `fails` explanation. `--format json`
// prints the result array. `--coverage` prints OPA's JSON coverage report instead,
// computed from trace events (Exit of a rule covers its head line, Eval of an
// expression its line). Exit codes: 0 all passed, 2 any test failed, errored or
// was skipped (unless -z), 1 load/compile errors (and failures with --coverage).
import type { Module, Rule } from '../compiler/ast/nodes.js';
import { compile, explain, prepareInterpreted, prettyTrace, type TraceEvent } from '../compiler/index.js';
import { UsageError, bool, formatHelp, parseArgs, str, type FlagSpec } from './args.js';
import { parseDuration } from './eval.js';
import { loadPaths } from './loader.js';
import { errorLine, errorsText, toJSON, toOutputErrors, type IO } from './output.js';

export const TEST_FLAGS: FlagSpec[] = [
  { name: 'verbose', short: 'v', type: 'boolean', description: 'set verbose reporting mode' },
  { name: 'format', short: 'f', type: 'string', choices: ['pretty', 'json'], default: 'pretty', description: 'set output format' },
  { name: 'coverage', short: 'c', type: 'boolean', description: 'report coverage (JSON)' },
  { name: 'threshold', type: 'string', metavar: 'PERCENT', description: 'fail when coverage is below this percentage' },
  { name: 'run', short: 'r', type: 'string', metavar: 'REGEX', description: 'run only test cases matching the regular expression' },
  { name: 'timeout', type: 'string', metavar: 'DURATION', description: 'set test timeout (default 5s)' },
  { name: 'exit-zero-on-skipped', short: 'z', type: 'boolean', description: 'skipped tests return status 0' },
  { name: 'v0-compatible', type: 'boolean', description: 'accept Rego v0 syntax' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for test' },
];

const USAGE = 'regent test [flags] <path> [path …]';
const DESCRIPTION = 'Execute Rego test cases: rules named test_* (todo_test_* are skipped).';

export interface TestResult {
  file: string;
  row: number;
  col: number;
  pkg: string;
  name: string;
  status: 'pass' | 'fail' | 'error' | 'skip';
  error?: string;
  durationNs: number;
  /** Trace events (recorded with -v or --coverage). */
  events: TraceEvent[];
  /** print() output. */
  output: string;
}

interface TestCase {
  rule: Rule;
  pkg: string;
  name: string;
  skip: boolean;
}

/** The test rules of the modules: `test_*` (and `todo_test_*` to skip), once per name. */
export function findTests(modules: Module[]): TestCase[] {
  const out: TestCase[] = [];
  const seen = new Set<string>();
  for (const m of modules) {
    const pkg = packageName(m);
    for (const r of m.rules) {
      const head = r.head.ref[0];
      if (r.head.ref.length !== 1 || head?.kind !== 'var' || r.head.args) continue;
      const skip = head.name.startsWith('todo_test_');
      if (!skip && !head.name.startsWith('test_')) continue;
      const key = `${pkg}.${head.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ rule: r, pkg, name: head.name, skip });
    }
  }
  return out;
}

function packageName(m: Module): string {
  const parts = ['data'];
  m.package.path.forEach((t, i) => {
    if (t.kind === 'var' && !(i === 0 && t.name === 'data')) parts.push(t.name);
    else if (t.kind === 'string') parts.push(/^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value) ? t.value : JSON.stringify(t.value));
  });
  return parts.join('.');
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
  try {
    const loaded = loadPaths(args.positionals);
    data = loaded.data;
    policy = compile(loaded.modules, { v0Compatible: bool(args, 'v0-compatible') || loaded.v0 });
  } catch (e) {
    io.err(errorsText(toOutputErrors(e)) + '\n');
    return 1;
  }
  const tests = findTests(policy.modules).filter((t) => !filter || filter.test(`${t.pkg}.${t.name}`));
  const results = tests.map((t) => runTest(policy, data, t, { timeoutMs, trace: verbose || coverage }));
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

function runTest(policy: ReturnType<typeof compile>, data: unknown, t: TestCase, opts: { timeoutMs: number; trace: boolean }): TestResult {
  const base = { file: t.rule.loc.file, row: t.rule.loc.row, col: t.rule.loc.col, pkg: t.pkg, name: t.name, events: [] as TraceEvent[], output: '' };
  if (t.skip) return { ...base, status: 'skip', durationNs: 0 };
  let output = '';
  const start = process.hrtime.bigint();
  const done = (r: Pick<TestResult, 'status' | 'error' | 'events'>): TestResult => ({ ...base, ...r, output, durationNs: Number(process.hrtime.bigint() - start) });
  try {
    const q = prepareInterpreted(policy, `${t.pkg}.${t.name}`);
    const evalOpts = { data: data as never, deadline: Date.now() + opts.timeoutMs, print: (m: string) => void (output += m + '\n') };
    const traced = opts.trace ? q.evalWithTrace(evalOpts) : { rows: policy.prepare(`${t.pkg}.${t.name}`).eval(evalOpts), events: [] };
    if ('error' in traced && traced.error !== undefined) return done({ status: 'error', error: errorLine(toOutputErrors(traced.error)[0]!), events: traced.events });
    const ok = traced.rows.length > 0 && traced.rows[0]!.expressions[0]!.value === true;
    return done({ status: ok ? 'pass' : 'fail', events: traced.events });
  } catch (e) {
    return done({ status: 'error', error: errorLine(toOutputErrors(e)[0]!), events: [] });
  }
}

const HL = '-'.repeat(80) + '\n';

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

// ---------------------------------------------------------------- coverage

interface Range {
  start: { row: number };
  end: { row: number };
}

interface FileReport {
  covered?: Range[];
  not_covered?: Range[];
  covered_lines?: number;
  not_covered_lines?: number;
  coverage?: number;
}

export interface CoverageReport {
  files: Record<string, FileReport>;
  covered_lines: number;
  not_covered_lines: number;
  coverage: number;
}

/** OPA's cover.Report from trace events: rule heads hit by Exit, expressions by Eval. */
export function coverageReport(modules: Module[], events: TraceEvent[]): CoverageReport {
  const hits = new Map<string, Set<number>>();
  const hit = (file: string, row: number) => {
    if (!file) return;
    if (!hits.has(file)) hits.set(file, new Set());
    hits.get(file)!.add(row);
  };
  for (const e of events) {
    if (e.op === 'Exit' && e.node?.type === 'rule') hit(e.node.node.head.loc.file, e.node.node.head.loc.row);
    else if (e.op === 'Eval' && e.node?.type === 'expr') hit(e.node.node.loc.file, e.node.node.loc.row);
  }
  const files = new Map<string, FileReport>();
  for (const [file, rows] of hits) files.set(file, { covered: ranges([...rows]) });
  const isCovered = (file: string, row: number) => (files.get(file)?.covered ?? []).some((r) => row >= r.start.row && row <= r.end.row);
  for (const m of modules) {
    if (!m.file) continue;
    const notCovered: number[] = [];
    // Every rule (else branches too) and every expression, nested ones included.
    const visit = (x: unknown): void => {
      if (x === null || typeof x !== 'object') return;
      if (Array.isArray(x)) return x.forEach(visit);
      const n = x as { kind?: string } & Record<string, unknown>;
      if (n.kind === 'rule') {
        const r = n as unknown as Rule;
        if (!isCovered(r.loc.file, r.loc.row)) notCovered.push(r.head.loc.row);
      } else if (n.kind === 'expr') {
        const e = n as unknown as Module['rules'][number]['body'][number];
        if (e.body.type !== 'some' && !isCovered(e.loc.file, e.loc.row)) notCovered.push(e.loc.row);
      }
      for (const [k, v] of Object.entries(n)) if (k !== 'loc' && k !== 'annotations') visit(v);
    };
    visit(m.rules);
    const fr = files.get(m.file) ?? {};
    const nc = ranges(notCovered);
    if (nc.length) fr.not_covered = nc;
    files.set(m.file, fr);
  }
  let covered = 0;
  let notCovered = 0;
  const out: CoverageReport = { files: {}, covered_lines: 0, not_covered_lines: 0, coverage: 0 };
  for (const file of [...files.keys()].sort()) {
    const fr = files.get(file)!;
    const c = lines(fr.covered);
    const n = lines(fr.not_covered);
    if (c) fr.covered_lines = c;
    if (n) fr.not_covered_lines = n;
    if (c + n) fr.coverage = (100 * c) / (c + n);
    if (fr.coverage === 0) delete fr.coverage;
    covered += c;
    notCovered += n;
    out.files[file] = fr;
  }
  out.covered_lines = covered;
  out.not_covered_lines = notCovered;
  out.coverage = covered + notCovered ? (100 * covered) / (covered + notCovered) : 0;
  return out;
}

function ranges(rows: number[]): Range[] {
  const sorted = [...new Set(rows)].sort((a, b) => a - b);
  const out: Range[] = [];
  for (const row of sorted) {
    const last = out[out.length - 1];
    if (last && row === last.end.row + 1) last.end = { row };
    else out.push({ start: { row }, end: { row } });
  }
  return out;
}

function lines(rs: Range[] | undefined): number {
  return (rs ?? []).reduce((n, r) => n + r.end.row - r.start.row + 1, 0);
}
