// The corpus run as text: one line per test folder (pass/total, fail, error, skip),
// the totals per library and overall, the `check` commands that were not clean, and
// how the run compares with the baseline. Printed by the vitest file and by cli.ts.
import type { Baseline, CliRun, CorpusRun, FolderResult, Outcome } from './corpus.js';
import { newPasses, regressions } from './corpus.js';

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
