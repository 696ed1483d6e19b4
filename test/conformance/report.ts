// Summaries of a conformance run: pass/fail/skip (and, on the Wasm back end,
// unsupported) counts per folder and in total,
// the human-readable table, failure details, and the baseline/skip-list files
// (baseline.json: sorted ids of passing cases; skip.json: { id: reason }).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CaseResult } from './run-case.js';

export interface Counts {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Cases the back end cannot run (the Wasm evaluator), with reasons in the results. */
  unsupported: number;
}

export interface Summary extends Counts {
  folders: Record<string, Counts>;
}

const here = dirname(fileURLToPath(import.meta.url));
export const baselinePath = join(here, 'baseline.json');
export const skipPath = join(here, 'skip.json');

function zero(): Counts {
  return { total: 0, passed: 0, failed: 0, skipped: 0, unsupported: 0 };
}

function bump(c: Counts, r: CaseResult): void {
  c.total++;
  if (r.status === 'pass') c.passed++;
  else if (r.status === 'fail') c.failed++;
  else if (r.status === 'unsupported') c.unsupported++;
  else c.skipped++;
}

/** Counts per folder (sorted by name) and overall. */
export function summarize(results: CaseResult[]): Summary {
  const total = zero();
  const byFolder = new Map<string, Counts>();
  for (const r of results) {
    bump(total, r);
    let f = byFolder.get(r.folder);
    if (!f) byFolder.set(r.folder, (f = zero()));
    bump(f, r);
  }
  const folders: Record<string, Counts> = {};
  for (const name of [...byFolder.keys()].sort()) folders[name] = byFolder.get(name)!;
  return { ...total, folders };
}

/** `folder  passed/total  (failed F, skipped S[, unsupported U])` per folder, then the total line. */
export function formatTable(s: Summary): string {
  const names = Object.keys(s.folders);
  const width = Math.max(5, ...names.map((n) => n.length));
  const withUnsupported = s.unsupported > 0;
  const line = (name: string, c: Counts): string =>
    `${name.padEnd(width)}  ${`${c.passed}/${c.total}`.padStart(9)}  (failed ${c.failed}, skipped ${c.skipped}${withUnsupported ? `, unsupported ${c.unsupported}` : ''})`;
  const lines = names.map((n) => line(n, s.folders[n]!));
  lines.push('-'.repeat(width + 40));
  lines.push(line('TOTAL', s));
  const runnable = s.total - s.skipped - s.unsupported;
  const pct = runnable > 0 ? ((100 * s.passed) / runnable).toFixed(1) : '0.0';
  lines.push(`${pct}% of ${runnable} runnable cases pass`);
  return lines.join('\n');
}

/** A multi-line description of one failure (for --verbose). */
export function formatFailure(r: CaseResult): string {
  const out = [`FAIL ${r.id}  (${r.file})`, `  reason:   ${r.reason ?? ''}`];
  if (r.expected !== undefined) out.push(`  expected: ${r.expected}`);
  if (r.actual !== undefined) out.push(`  actual:   ${r.actual}`);
  return out.join('\n');
}

/**
 * The JSON summary printed by `cli --json`: one compact line,
 * `{total, passed, failed, skipped, folders: {name: [total, passed, failed, skipped]}}`
 * (with `unsupported` and a fifth count per folder when some case was unsupported).
 * Folder counts are arrays so the whole summary stays short enough for tools that
 * read only the tail of the output.
 */
export function summaryJSON(s: Summary): string {
  const u = s.unsupported > 0;
  const folders = Object.fromEntries(Object.entries(s.folders).map(([name, f]) => [name, [f.total, f.passed, f.failed, f.skipped, ...(u ? [f.unsupported] : [])]]));
  return JSON.stringify({ total: s.total, passed: s.passed, failed: s.failed, skipped: s.skipped, ...(u ? { unsupported: s.unsupported } : {}), folders });
}

// ---------------------------------------------------------------- files

function readJSON(path: string, fallback: unknown): unknown {
  if (!existsSync(path)) return fallback;
  const text = readFileSync(path, 'utf8').trim();
  return text === '' ? fallback : JSON.parse(text);
}

export function readBaseline(path = baselinePath): string[] {
  const v = readJSON(path, []);
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new Error(`${path}: expected a list of case notes`);
  return v;
}

export function writeBaseline(ids: Iterable<string>, path = baselinePath): void {
  writeFileSync(path, JSON.stringify([...new Set(ids)].sort(), null, 2) + '\n');
}

export function readSkip(path = skipPath): Record<string, string> {
  const v = readJSON(path, {});
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${path}: expected an object { note: reason }`);
  for (const [k, reason] of Object.entries(v)) if (typeof reason !== 'string') throw new Error(`${path}: reason for ${k} must be a string`);
  return v as Record<string, string>;
}

export interface BaselineCheck {
  /** Baseline ids that ran and did not pass. */
  regressed: string[];
  /** Baseline ids that are not among the known cases at all. */
  missing: string[];
}

/**
 * Compare a run with the baseline. `known` is every case id that exists (a folder
 * filter may have run only some): ids outside `results` but in `known` are ignored.
 */
export function checkBaseline(results: CaseResult[], baseline: string[], known: Iterable<string>): BaselineCheck {
  const status = new Map(results.map((r) => [r.id, r.status]));
  const exists = new Set(known);
  const regressed: string[] = [];
  const missing: string[] = [];
  for (const id of baseline) {
    if (!exists.has(id)) missing.push(id);
    else if (status.has(id) && status.get(id) !== 'pass') regressed.push(id);
  }
  return { regressed, missing };
}

/** Skip-list entries naming no existing case. */
export function unknownSkips(skip: Record<string, string>, known: Iterable<string>): string[] {
  const exists = new Set(known);
  return Object.keys(skip).filter((id) => !exists.has(id));
}

/**
 * The new baseline after a run: ids that passed now, plus baseline ids of cases that
 * exist but did not run in this (folder-filtered) run.
 */
export function nextBaseline(results: CaseResult[], baseline: string[], known: Iterable<string>): string[] {
  const ran = new Set(results.map((r) => r.id));
  const exists = new Set(known);
  const keep = baseline.filter((id) => exists.has(id) && !ran.has(id));
  return [...new Set([...keep, ...results.filter((r) => r.status === 'pass').map((r) => r.id)])].sort();
}
