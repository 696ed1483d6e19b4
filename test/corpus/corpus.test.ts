// The real-world corpus in CI: the exact commands of ../shared/rego-corpus/README.md
// (gatekeeper-library: `check --v0-compatible src`, `check --strict --v0-compatible
// src`, `test --v0-compatible <folder>/*.rego` for each of src/*/*; regula: `check`
// and `test --v0-compatible lib examples rules tests`), run in-process (corpus.ts).
// Prints passing/total per folder and the totals. Fails when a test listed in
// baseline.json no longer passes, a check is not clean, the test counts are off, or
// the pretty and JSON reports of a folder disagree. UPDATE_CORPUS_BASELINE=1 (or
// `npx tsx test/corpus/cli.ts --update-baseline`) rewrites the baseline.
import { beforeAll, describe, expect, it } from 'vitest';
import { baselineOf, corpusDir, formatReport, library, readBaseline, regressions, runCorpus, totals, writeBaseline, type CliRun, type CorpusRun } from './corpus.js';

const GATEKEEPER_TESTS = 1003; // 949 distinct names; repeats run as test_x#01, …
const REGULA_TESTS = 285;

const root = corpusDir();
const baseline = readBaseline();
let run: CorpusRun;

function check(command: string): CliRun {
  const c = run.checks.find((x) => x.command === command);
  if (!c) throw new Error(`not run: ${command}`);
  return c;
}

/** What a check printed, for the assertion message. */
function printed(c: CliRun): string {
  return (c.out + c.err).trim().split('\n').slice(0, 30).join('\n');
}

describe('real-world Rego corpus', () => {
  beforeAll(async () => {
    if (!root) throw new Error('rego-corpus not found in the shared folder (test/shared-dir.ts; set REGENT_SHARED_DIR)');
    run = await runCorpus(root);
    console.log(formatReport(run, baseline));
    if (process.env.UPDATE_CORPUS_BASELINE === '1') writeBaseline(baselineOf(run));
  }, 600_000);

  it('gatekeeper-library: check --v0-compatible src is clean', () => {
    const c = check('regent check --v0-compatible src');
    expect(printed(c)).toBe('');
    expect(c.code).toBe(0);
  });

  it('gatekeeper-library: check --strict --v0-compatible src is clean (upstream CI runs opa check --strict)', () => {
    const c = check('regent check --strict --v0-compatible src');
    expect(printed(c)).toBe('');
    expect(c.code).toBe(0);
  });

  it('regula: check --v0-compatible lib examples rules tests is clean', () => {
    const c = check('regent check --v0-compatible lib examples rules tests');
    expect(printed(c)).toBe('');
    expect(c.code).toBe(0);
  });

  it(`gatekeeper-library: the 51 folder runs count ${GATEKEEPER_TESTS} tests`, () => {
    const folders = library(run, 'gatekeeper-library');
    expect(folders.length).toBe(51);
    expect(totals(folders).tests).toBe(GATEKEEPER_TESTS);
    expect(folders.reduce((n, f) => n + f.summary.total, 0)).toBe(GATEKEEPER_TESTS);
  });

  it(`regula: all ${REGULA_TESTS} tests pass`, () => {
    const [f] = library(run, 'regula');
    expect(f).toBeDefined();
    const failing = [...f!.tests].filter(([, o]) => o !== 'pass').map(([n, o]) => `${n}: ${o}`);
    expect(failing).toEqual([]);
    expect(f!.tests.size).toBe(REGULA_TESTS);
    expect(f!.run.code).toBe(0);
  });

  it('every test in baseline.json still passes', () => {
    expect(Object.keys(baseline).length).toBeGreaterThan(0);
    expect(regressions(run, baseline)).toEqual([]);
  });

  it('the pretty report (exit code, summary) and the JSON report agree in every folder', () => {
    const problems = run.folders.flatMap((f) => f.problems.map((p) => `${f.folder}: ${p}`));
    expect(problems).toEqual([]);
  });
});
