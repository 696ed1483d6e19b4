// Conformance runner CLI:
//   npx tsx test/conformance/cli.ts [--backend js|closures|interp|wasm] [--folder NAME]... [--json] [--update-baseline] [--verbose]
// Runs OPA's compliance cases (plus test/cases) against the engine, on the back end
// chosen through compiler/backend.ts (default js), and prints a per-folder table and
// a total (or, with --json, only the JSON summary on stdout). On wasm, a case is
// unsupported when the Wasm back end cannot run it (reasons are printed), passes when
// it agrees with the JS back end, and fails (exit code 1) when it disagrees; the
// baseline is the JS family's and is not checked there.
// Failures are reported, not fatal: the exit code is 1 only when a case listed in
// baseline.json no longer passes (or the skip list names unknown cases), 2 on usage
// errors. --update-baseline rewrites baseline.json with the currently passing cases.
// Cases run in worker threads (isolate.ts) so a hanging case cannot stall the run.
import { UsageError, bool, formatHelp, list, parseArgs, str, type FlagSpec } from '../../cli/args.js';
import { loadAll } from './load.js';
import { runCases, type CaseResult } from './run-case.js';
import { BACKEND_NAMES, type BackendName } from '../../compiler/index.js';
import { runIsolated } from './isolate.js';
import {
  checkBaseline,
  formatFailure,
  formatTable,
  nextBaseline,
  readBaseline,
  readSkip,
  summarize,
  summaryJSON,
  unknownSkips,
  writeBaseline,
} from './report.js';

const FLAGS: FlagSpec[] = [
  { name: 'backend', short: 'b', type: 'string', default: 'js', metavar: 'NAME', description: `the back end to run on: ${BACKEND_NAMES.join(', ')}` },
  { name: 'folder', short: 'f', type: 'string', repeatable: true, metavar: 'NAME', description: 'run only this folder' },
  { name: 'json', type: 'boolean', description: 'print only the JSON summary on stdout (one line; folders as [total, passed, failed, skipped])' },
  { name: 'update-baseline', type: 'boolean', description: 'rewrite baseline.json with the passing cases' },
  { name: 'verbose', short: 'v', type: 'boolean', description: 'print every failure with expected vs actual' },
  { name: 'note', type: 'string', metavar: 'TEXT', description: 'run only cases whose note contains TEXT' },
  { name: 'timeout', type: 'string', default: '10000', metavar: 'MS', description: 'evaluation deadline per case' },
  { name: 'in-process', type: 'boolean', description: 'run cases in this thread (no workers, no hard timeout)' },
  { name: 'workers', type: 'string', metavar: 'N', description: 'number of worker threads' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show this help' },
];

const USAGE = 'tsx test/conformance/cli.ts [--backend NAME] [--folder NAME]... [--json] [--update-baseline] [--verbose]';

export async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs(argv, FLAGS);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`error: ${e.message}\n\n${formatHelp(USAGE, 'Run the OPA conformance suite.', FLAGS)}\n`);
    return 2;
  }
  if (bool(args, 'help')) {
    process.stdout.write(formatHelp(USAGE, 'Run the OPA conformance suite.', FLAGS) + '\n');
    return 0;
  }
  const backend = (str(args, 'backend') ?? 'js') as BackendName;
  if (!BACKEND_NAMES.includes(backend)) {
    process.stderr.write(`error: --backend must be one of ${BACKEND_NAMES.join(', ')}\n`);
    return 2;
  }
  const json = bool(args, 'json');
  const log = (s: string): void => {
    // With --json, stdout carries only the summary; everything else goes to stderr.
    (json ? process.stderr : process.stdout).write(s + '\n');
  };

  const all = loadAll();
  for (const p of all.problems) process.stderr.write(`warning: ${p.file}: ${p.message}\n`);
  const known = all.cases.map((c) => c.id);
  const folders = list(args, 'folder');
  const noteFilter = str(args, 'note');
  let cases = folders.length ? all.cases.filter((c) => folders.includes(c.folder)) : all.cases;
  if (noteFilter) cases = cases.filter((c) => c.note.includes(noteFilter));
  const unknownFolders = folders.filter((f) => !all.cases.some((c) => c.folder === f));
  if (unknownFolders.length) process.stderr.write(`warning: no cases in folder(s): ${unknownFolders.join(', ')}\n`);

  const skip = readSkip();
  const baseline = readBaseline();
  const timeoutMs = Number(str(args, 'timeout') ?? '10000');
  const started = performance.now();
  const runOpts = { skip, backend, timeoutMs: Number.isFinite(timeoutMs) ? timeoutMs : 10_000 };
  const workers = Number(str(args, 'workers') ?? NaN);
  const results: CaseResult[] = bool(args, 'in-process')
    ? await runCases(cases, runOpts)
    : await runIsolated(cases, { ...runOpts, ...(Number.isInteger(workers) && workers > 0 ? { workers } : {}) });
  const elapsed = ((performance.now() - started) / 1000).toFixed(1);

  const summary = summarize(results);
  if (bool(args, 'verbose')) for (const r of results) if (r.status === 'fail') log(formatFailure(r) + '\n');
  if (json) process.stdout.write(summaryJSON(summary) + '\n');
  else {
    log(formatTable(summary));
    log(`(${results.length} cases in ${elapsed}s)`);
  }

  const slow = results.filter((r) => r.ms > 2000).sort((a, b) => b.ms - a.ms);
  if (slow.length) log(`slow cases: ${slow.slice(0, 5).map((r) => `${r.id} (${(r.ms / 1000).toFixed(1)}s)`).join(', ')}`);

  if (backend === 'wasm') {
    const reasons = new Map<string, number>();
    for (const r of results) if (r.status === 'unsupported') reasons.set(r.reason ?? '', (reasons.get(r.reason ?? '') ?? 0) + 1);
    log(`unsupported on wasm, by reason:\n${[...reasons].sort((a, b) => b[1] - a[1]).map(([k, v]) => `  ${String(v).padStart(4)}  ${k}`).join('\n')}`);
    const failed = results.filter((r) => r.status === 'fail');
    if (failed.length) log(`wasm disagrees with the JS back end on ${failed.length} case(s):\n${failed.map(formatFailure).join('\n\n')}`);
    return failed.length ? 1 : 0;
  }

  let code = 0;
  const badSkips = unknownSkips(skip, known);
  if (badSkips.length) {
    log(`skip.json names unknown cases:\n  ${badSkips.join('\n  ')}`);
    code = 1;
  }
  if (bool(args, 'update-baseline') && backend !== 'js') {
    log('--update-baseline records the js back end only');
    return 2;
  }
  if (bool(args, 'update-baseline')) {
    const next = nextBaseline(results, baseline, known);
    writeBaseline(next);
    log(`baseline.json updated: ${next.length} passing cases (was ${baseline.length})`);
    return code;
  }
  const check = checkBaseline(results, baseline, known);
  if (check.regressed.length) {
    log(`REGRESSION: ${check.regressed.length} baseline case(s) no longer pass:\n  ${check.regressed.join('\n  ')}`);
    code = 1;
  }
  if (check.missing.length && folders.length === 0 && !noteFilter) {
    log(`REGRESSION: ${check.missing.length} baseline case(s) no longer exist:\n  ${check.missing.join('\n  ')}`);
    code = 1;
  }
  return code;
}

process.exitCode = await main(process.argv.slice(2));
