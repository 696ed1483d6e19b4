// The real-world Rego corpus run (../shared/rego-corpus, see its README): the exact
// `regent check` / `regent test` commands the README gives for gatekeeper-library
// and regula, run in-process through the CLI's main() with a capturing IO and the
// corpus folder as working directory (globs expanded here, as the shell would).
// Every test run happens twice: as written (pretty report: exit code and summary
// counts) and with `--format json` (the name and outcome of every test); the two
// must agree. The baseline (baseline.json) lists the passing tests per folder.
// formatReport prints one line per folder (pass/total, fail, error, skip), the
// totals, the check commands that were not clean and the baseline comparison.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../cli/main.js';
import type { IO } from '../../cli/output.js';
import { sharedDir } from '../shared-dir.js';

export const BASELINE_PATH = join(dirname(fileURLToPath(import.meta.url)), 'baseline.json');

/** The corpus root, or undefined when the shared folder does not have it. */
export function corpusDir(): string | undefined {
  const dir = join(sharedDir(), 'rego-corpus');
  return existsSync(join(dir, 'gatekeeper-library')) ? dir : undefined;
}

export interface CliRun {
  /** The command line as a shell would show it (relative to `cwd`). */
  command: string;
  code: number;
  out: string;
  err: string;
}

/** Run `regent <argv>` in-process with `cwd` as the working directory. */
export async function regent(cwd: string, argv: string[]): Promise<CliRun> {
  let out = '';
  let err = '';
  const io: IO = { out: (s) => void (out += s), err: (s) => void (err += s), stdin: () => '' };
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const code = await main(argv, io);
    return { command: ['regent', ...argv].join(' '), code, out, err };
  } finally {
    process.chdir(before);
  }
}

/** `src/*\/*` of gatekeeper-library: the 51 test folders, sorted as a shell glob sorts. */
export function gatekeeperFolders(root: string): string[] {
  const out: string[] = [];
  for (const group of readdirSync(join(root, 'src')).sort()) {
    if (!statSync(join(root, 'src', group)).isDirectory()) continue;
    for (const name of readdirSync(join(root, 'src', group)).sort()) {
      if (statSync(join(root, 'src', group, name)).isDirectory()) out.push(`src/${group}/${name}`);
    }
  }
  return out;
}

/** `${folder}/*.rego`, expanded (paths relative to the corpus folder). */
export function regoGlob(root: string, folder: string): string[] {
  return readdirSync(join(root, folder))
    .filter((f) => f.endsWith('.rego') && statSync(join(root, folder, f)).isFile())
    .sort()
    .map((f) => `${folder}/${f}`);
}

export type Outcome = 'pass' | 'fail' | 'error' | 'skip';

export interface FolderResult {
  /** Corpus-relative name: `gatekeeper-library/src/general/allowedrepos`, `regula/rego`. */
  folder: string;
  /** The command as the README writes it, and how it ended. */
  run: CliRun;
  /** Full test name (`data.pkg.test_x`, `data.pkg.test_x#01`) → outcome, from the JSON report. */
  tests: Map<string, Outcome>;
  /** Counts from the pretty report's summary lines (`PASS: n/N`). */
  summary: Record<Outcome, number> & { total: number };
  /** Disagreements between the two reports, or a run that produced no report. */
  problems: string[];
}

/** The `PASS: n/N`, `FAIL: n/N`, `SKIPPED: n/N`, `ERROR: n/N` lines of a pretty report. */
export function parseSummary(text: string): FolderResult['summary'] {
  const s = { pass: 0, fail: 0, error: 0, skip: 0, total: 0 };
  const labels: Record<string, Outcome> = { PASS: 'pass', FAIL: 'fail', ERROR: 'error', SKIPPED: 'skip' };
  for (const m of text.matchAll(/^(PASS|FAIL|ERROR|SKIPPED): (\d+)\/(\d+)$/gm)) {
    s[labels[m[1]!]!] = Number(m[2]);
    s.total = Number(m[3]);
  }
  return s;
}

interface JSONTest {
  package: string;
  name: string;
  fail?: boolean;
  skip?: boolean;
  error?: unknown;
}

/** Run `regent test <args>` as written and with `--format json`; compare the two. */
export async function runTests(cwd: string, folder: string, args: string[]): Promise<FolderResult> {
  const run = await regent(cwd, ['test', ...args]);
  const json = await regent(cwd, ['test', '--format', 'json', ...args]);
  const tests = new Map<string, Outcome>();
  const problems: string[] = [];
  try {
    for (const t of JSON.parse(json.out) as JSONTest[]) {
      tests.set(`${t.package}.${t.name}`, t.error ? 'error' : t.fail ? 'fail' : t.skip ? 'skip' : 'pass');
    }
  } catch {
    problems.push(`no JSON report (exit ${json.code}): ${(json.err || json.out).trim().split('\n').slice(0, 5).join(' | ')}`);
  }
  const summary = parseSummary(run.out);
  const count = (o: Outcome) => [...tests.values()].filter((x) => x === o).length;
  if (problems.length === 0) {
    if (summary.total !== tests.size) problems.push(`pretty report counts ${summary.total} tests, JSON report ${tests.size}`);
    for (const o of ['pass', 'fail', 'error', 'skip'] as const) {
      if (summary[o] !== count(o)) problems.push(`pretty report: ${summary[o]} ${o}, JSON report: ${count(o)}`);
    }
    const clean = count('fail') + count('error') + count('skip') === 0;
    if ((run.code === 0) !== clean) problems.push(`exit code ${run.code} with ${clean ? 'every test passing' : 'failures'}`);
  }
  return { folder, run, tests, summary, problems };
}

export interface CorpusRun {
  /** `check` commands that must be clean (exit 0, no output). */
  checks: CliRun[];
  folders: FolderResult[];
}

/** Every command of the corpus README (gatekeeper-library, then regula). */
export async function runCorpus(root: string, opts: { strict?: boolean } = {}): Promise<CorpusRun> {
  const gk = join(root, 'gatekeeper-library');
  const rg = join(root, 'regula', 'rego');
  const checks: CliRun[] = [await regent(gk, ['check', '--v0-compatible', 'src'])];
  if (opts.strict !== false) checks.push(await regent(gk, ['check', '--strict', '--v0-compatible', 'src']));
  checks.push(await regent(rg, ['check', '--v0-compatible', 'lib', 'examples', 'rules', 'tests']));
  const folders: FolderResult[] = [];
  for (const folder of gatekeeperFolders(gk)) {
    folders.push(await runTests(gk, `gatekeeper-library/${folder}`, ['--v0-compatible', ...regoGlob(gk, folder)]));
  }
  folders.push(await runTests(rg, 'regula/rego', ['--v0-compatible', 'lib', 'examples', 'rules', 'tests']));
  return { checks, folders };
}

// ---------------------------------------------------------------- baseline

/** Folder → the names of its passing tests, sorted. */
export type Baseline = Record<string, string[]>;

export function readBaseline(): Baseline {
  return existsSync(BASELINE_PATH) ? (JSON.parse(readFileSync(BASELINE_PATH, 'utf8')) as Baseline) : {};
}

export function baselineOf(run: CorpusRun): Baseline {
  const out: Baseline = {};
  for (const f of run.folders) out[f.folder] = [...f.tests].filter(([, o]) => o === 'pass').map(([n]) => n).sort();
  return out;
}

export function writeBaseline(b: Baseline): void {
  writeFileSync(BASELINE_PATH, JSON.stringify(b, null, 2) + '\n');
}

/** Tests the baseline lists as passing that no longer pass: `folder: name (outcome)`. */
export function regressions(run: CorpusRun, baseline: Baseline): string[] {
  const out: string[] = [];
  for (const [folder, names] of Object.entries(baseline)) {
    const f = run.folders.find((x) => x.folder === folder);
    for (const n of names) {
      const o = f?.tests.get(n);
      if (o !== 'pass') out.push(`${folder}: ${n} (${o ?? 'missing'})`);
    }
  }
  return out;
}

/** Passing tests the baseline does not list yet (regenerate it to lock them in). */
export function newPasses(run: CorpusRun, baseline: Baseline): number {
  let n = 0;
  for (const f of run.folders) {
    const known = new Set(baseline[f.folder] ?? []);
    for (const [name, o] of f.tests) if (o === 'pass' && !known.has(name)) n++;
  }
  return n;
}

// ---------------------------------------------------------------- report

export interface Totals {
  tests: number;
  pass: number;
  fail: number;
  error: number;
  skip: number;
}

export function totals(folders: FolderResult[]): Totals {
  const t: Totals = { tests: 0, pass: 0, fail: 0, error: 0, skip: 0 };
  for (const f of folders) {
    t.tests += f.tests.size;
    for (const o of f.tests.values()) t[o as Outcome]++;
  }
  return t;
}

/** The folders of one library (`gatekeeper-library`, `regula`). */
export function library(run: CorpusRun, name: string): FolderResult[] {
  return run.folders.filter((f) => f.folder.startsWith(name + '/'));
}

function line(name: string, t: Totals, width: number): string {
  const extra = [t.fail && `${t.fail} fail`, t.error && `${t.error} error`, t.skip && `${t.skip} skipped`].filter(Boolean).join(', ');
  return `${name.padEnd(width)}  ${String(t.pass).padStart(4)}/${String(t.tests).padEnd(4)}${extra ? '  ' + extra : ''}`;
}

/** A check run is clean when it exits 0 and prints nothing. */
export function isClean(c: CliRun): boolean {
  return c.code === 0 && c.out.trim() === '' && c.err.trim() === '';
}

export function formatReport(run: CorpusRun, baseline: Baseline): string {
  const width = Math.max(...run.folders.map((f) => f.folder.length), 20);
  const out: string[] = ['corpus: passing/total per folder'];
  for (const f of run.folders) {
    out.push(line(f.folder, totals([f]), width));
    for (const p of f.problems) out.push(`    ! ${p}`);
  }
  out.push('-'.repeat(width + 12));
  for (const lib of ['gatekeeper-library', 'regula']) out.push(line(`${lib} (total)`, totals(library(run, lib)), width));
  out.push(line('all', totals(run.folders), width));
  for (const c of run.checks) {
    if (isClean(c)) out.push(`clean: ${c.command}`);
    else out.push(`NOT CLEAN (exit ${c.code}): ${c.command}\n${indent((c.out + c.err).trim().split('\n').slice(0, 20).join('\n'))}`);
  }
  const lost = regressions(run, baseline);
  out.push(`baseline: ${Object.values(baseline).reduce((n, l) => n + l.length, 0)} passing tests listed, ${lost.length} no longer pass, ${newPasses(run, baseline)} newly passing`);
  for (const r of lost.slice(0, 50)) out.push(`    regression: ${r}`);
  return out.join('\n') + '\n';
}

function indent(s: string): string {
  return s
    .split('\n')
    .map((l) => '    ' + l)
    .join('\n');
}
