// `regent test [flags] PATH…`: run Rego unit tests as `opa test` does (cmd/test.go).
// The flags are read in test-flags.ts; the paths are loaded by test-load.ts (files, or
// bundles with -b); discovery, duplicate-name rewriting (`test_x#01`) and evaluation
// live in test-runner.ts (with -t wasm too), reports in test-report.ts and
// test-trace.ts, coverage in test-coverage.ts, --bench in test-bench.ts, -w in
// test-load.ts. Order of work, as opaTest:
//   1. gobench without --bench: a note on stderr, exit 0; a threshold outside 0..100:
//      `Code coverage threshold must be between 0 and 100`, exit 1;
//   2. load (errors: exit 1); check the -s schema path; --coverage with --bench is
//      refused (exit 1);
//   3. --count N rounds (default 1; 0 runs nothing): each compiles the tests (compile,
//      --capabilities and -s schema errors, at most -m of them then `error limit
//      reached`: exit 1), runs them sorted by file name, reports them, and with
//      --fail-on-empty fails a round that ran no test (`no tests were run`, exit 1).
//      The first round that does not exit 0 ends the command with its code: 2 when a
//      test failed, errored or was skipped (skips pass with -z);
//   4. with -w, watch the paths and run the rounds again on each change.
// Reports: pretty (failing tests, or all with -v; traces of failures with -v or
// --explain; failure lines with --var-values), `--format json`, or with --coverage
// OPA's JSON coverage report (failures then exit 1; below --threshold: exit 2).
import type { CompiledPolicy } from '../compiler/policy.js';
import { UsageError, formatHelp } from './args.js';
import { usageFailed } from './usage.js';
import { extraChecks, parserCapabilityErrors } from './eval-context.js';
import { errorsText, toJSON, toOutputErrors, type IO, type OutputError } from './output.js';
import { coverageReport } from './test-coverage.js';
import { compileTests, findTests, runTest, runWasmTests, type TestCase, type TestResult } from './test-runner.js';
import { benchTest } from './test-bench.js';
import { TEST_FLAGS, parseTestParams, type TestParams } from './test-flags.js';
import { TestLoadError, loadTestSuite, untilSignal, watchTests, type TestSuite } from './test-load.js';
import { benchReport, loadingErrorsText, prettyReport, resultJSON } from './test-report.js';
import { filterTrace } from './test-trace.js';
import { throwErrors } from '../compiler/source/diagnostics.js';
import { pathConflictErrors, rulePathsOf } from '../compiler/passes/path-conflicts.js';

export type { TestResult } from './test-runner.js';
export { coverageReport, type CoverageReport } from './test-coverage.js';
export { findTests } from './test-runner.js';
export { TEST_FLAGS } from './test-flags.js';
export { formatDuration, loadingErrorsText, prettyReport } from './test-report.js';

const USAGE = 'regent test [flags] <path> [path …]';
const DESCRIPTION = 'Execute Rego test cases: rules named test_* (todo_test_* are skipped).';

export interface TestCommandOptions {
  /** With -w: the watch ends when this settles (default: SIGINT or SIGTERM). */
  stop?: Promise<unknown>;
}

/** The `test` command. */
export async function testCommand(argv: string[], io: IO, opts: TestCommandOptions = {}): Promise<number> {
  let p: TestParams | undefined;
  try {
    p = parseTestParams(argv);
  } catch (e) {
    if (!(e instanceof UsageError) && !(e instanceof SyntaxError)) throw e;
    return usageFailed(io, e.message, formatHelp(USAGE, DESCRIPTION, TEST_FLAGS));
  }
  if (p === undefined) {
    io.out(formatHelp(USAGE, DESCRIPTION, TEST_FLAGS) + '\n');
    return 0;
  }
  if (p.format === 'gobench' && !p.bench) {
    io.err('cannot use output format gobench without running benchmarks (--bench)\n');
    return 0;
  }
  if (!(p.threshold >= 0 && p.threshold <= 100)) {
    io.err('Code coverage threshold must be between 0 and 100\n');
    return 1;
  }
  let suite: TestSuite;
  try {
    suite = await loadTestSuite(p);
  } catch (e) {
    if (!(e instanceof TestLoadError)) throw e;
    io.err(e.text + '\n');
    return 1;
  }
  const setup = setupError(p);
  if (setup !== undefined) {
    io.err(setup);
    return 1;
  }
  const code = await runRounds(p, suite, io, io);
  if (!p.watch) return code;
  const rerun = async (): Promise<void> => {
    try {
      const next = await loadTestSuite(p);
      // As processWatcherUpdate: a compile error is printed on stderr and again on stdout.
      await runRounds(p, next, io, { ...io, err: (s) => (io.err(s), io.out(s)) });
    } catch (e) {
      // a reload that fails is reported on stdout; the watch goes on
      io.out((e instanceof TestLoadError ? e.text : e instanceof Error ? e.message : String(e)) + '\n');
    }
  };
  await watchTests(p.paths, io, rerun, opts.stop ?? untilSignal());
  return 0;
}

/** compileAndSetupTests' refusals: an unreadable schema path, coverage while benchmarking. */
function setupError(p: TestParams): string | undefined {
  if (p.schema !== undefined) {
    try {
      extraChecks({ schema: p.schema }, []);
    } catch (e) {
      const code = (e as { code?: string }).code;
      const message = code === 'ENOENT' ? `stat ${p.schema}: no such file or directory` : e instanceof Error ? e.message : String(e);
      return loadingErrorsText([{ message }]) + '\n';
    }
  }
  const msg = 'coverage reporting is not supported when benchmarking tests\n';
  if (p.coverage && p.bench) return msg + msg;
  return undefined;
}

/** --count rounds; the first one that does not exit 0 ends them. `errIO` reports compile errors. */
async function runRounds(p: TestParams, suite: TestSuite, io: IO, errIO: IO): Promise<number> {
  let compiled: CompiledPolicy | OutputError[] | undefined;
  for (let round = 0; round < p.count; round++) {
    compiled ??= compileSuite(p, suite);
    if (Array.isArray(compiled)) {
      errIO.err(errorsText(compiled) + '\n');
      return 1;
    }
    const code = await runRound(p, suite, compiled, io);
    if (code !== 0) return code;
  }
  return 0;
}

/** Compile the suite; the errors (compile, capabilities, schema; at most -m) when it fails. */
function compileSuite(p: TestParams, suite: TestSuite): CompiledPolicy | OutputError[] {
  let errors: OutputError[] = [];
  let policy: CompiledPolicy | undefined;
  try {
    const refused = parserCapabilityErrors(p.capabilities, suite.modules);
    if (refused.length > 0) return toOutputErrors({ errors: refused });
    policy = compileTests(suite.modules, suite.v0, !p.bench);
    // opa test compiles WithPathConflictsCheck against the loaded data, as eval does.
    if (suite.data.size > 0) throwErrors(pathConflictErrors(rulePathsOf(policy.modules), suite.data));
    if (p.capabilities !== undefined || p.schema !== undefined) {
      const req = { ...(p.capabilities !== undefined ? { capabilities: p.capabilities } : {}), ...(p.schema !== undefined ? { schema: p.schema } : {}) };
      errors = toOutputErrors({ errors: extraChecks(req, policy.modules) });
    }
  } catch (e) {
    errors = toOutputErrors(e);
  }
  if (errors.length === 0 && policy) return policy;
  if (p.maxErrors > 0 && errors.length > p.maxErrors) errors = [...errors.slice(0, p.maxErrors), { code: 'rego_compile_error', message: 'error limit reached' }];
  return errors;
}

/** The tests of the policy, in OPA's order (module file name, then rule order), --run applied. */
function selectTests(policy: CompiledPolicy, p: TestParams): TestCase[] {
  const key = (t: TestCase) => t.rule.loc.file.replace(/^\/+|\/+$/g, '');
  const tests = findTests(policy.modules).map((t, i) => ({ t, i }));
  tests.sort((a, b) => (key(a.t) < key(b.t) ? -1 : key(a.t) > key(b.t) ? 1 : a.i - b.i));
  return tests.map(({ t }) => t).filter((t) => !p.run || p.run.test(t.queryText));
}

/** One round: run, report, exit code (runTests in cmd/test.go). */
async function runRound(p: TestParams, suite: TestSuite, policy: CompiledPolicy, io: IO): Promise<number> {
  const tests = selectTests(policy, p);
  const empty = (): number => {
    io.err('no tests were run\n');
    return 1;
  };
  const bad = (rs: TestResult[]) => rs.some((r) => r.status === 'fail' || r.status === 'error' || (r.status === 'skip' && !p.zeroOnSkipped));
  if (p.bench) {
    const results = tests.map((t) => benchTest(policy, t, { data: suite.data, budgetMs: p.benchtimeMs }));
    io.out(benchReport(results, p.format));
    if (results.length === 0 && p.failOnEmpty) return empty();
    return bad(results) ? 2 : 0;
  }
  const trace = p.verbose || p.varValues || p.coverage;
  const results =
    p.target === 'wasm'
      ? await runWasmTests(policy, tests, { data: suite.data, timeoutMs: p.timeoutMs })
      : tests.map((t) => runTest(policy, t, { data: suite.data, timeoutMs: p.timeoutMs, trace }));
  if (p.coverage) return coverage(p, policy, results, io);
  const reported = results.map((r) => ({ ...r, events: p.verbose || p.varValues ? filterTrace(r.events, p) : [] }));
  const opts = { verbose: p.verbose, failureLine: p.varValues, localVars: p.varValues, sources: suite.sources };
  io.out(p.format === 'json' ? toJSON(reported.map(resultJSON)) + '\n' : prettyReport(reported, opts));
  if (results.length === 0 && p.failOnEmpty) return empty();
  return bad(results) ? 2 : 0;
}

/** --coverage: failing tests are reported (exit 1), else the coverage report (exit 2 below --threshold). */
function coverage(p: TestParams, policy: CompiledPolicy, results: TestResult[], io: IO): number {
  const failed = results.filter((r) => r.status === 'fail' || r.status === 'error');
  if (failed.length > 0) {
    // The coverage tracer replaces the trace: failures show no trace events (as OPA).
    io.out(prettyReport(failed.map((r) => ({ ...r, events: [] })), p.verbose));
    return 1;
  }
  const report = coverageReport(policy.modules, results.flatMap((r) => r.events));
  if (report.coverage < p.threshold) {
    io.err(`Code coverage threshold not met: got ${report.coverage.toFixed(2)} instead of ${p.threshold.toFixed(2)}\n`);
    return 2;
  }
  io.out(toJSON(report) + '\n');
  return p.failOnEmpty && results.length === 0 ? (io.err('no tests were run\n'), 1) : 0;
}
