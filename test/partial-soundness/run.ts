// `npx tsx test/partial-soundness/run.ts [--support|--field|--data] [--write-skips] [--only substring]`: runs the
// partial-evaluation soundness check over every conformance case with an input and
// prints the counts, failures and skip reasons. `--write-skips` rewrites skip.json
// with the cases that cannot be covered and why (failures are never written there),
// under `inline` (the default) or `support` (`--support`: every package in disableInlining).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from '../conformance/load.js';
import { readBaseline } from '../conformance/report.js';
import { checkCase, type Mode, type Verdict } from './soundness.js';

export const SKIP_FILE = join(import.meta.dirname, 'skip.json');

export function runAll(only?: string, mode: Mode = 'inline'): { id: string; v: Verdict }[] {
  const baseline = new Set(readBaseline());
  // The 'data' mode runs over the cases with data (input or not); the others over the cases with an input.
  const hasData = (d: unknown): boolean => d !== null && typeof d === 'object' && !Array.isArray(d) && Object.keys(d).length > 0;
  const cases = loadAll().cases.filter((c) => (mode === 'data' ? hasData(c.data) : c.input !== undefined || c.input_term !== undefined));
  return cases.filter((c) => !only || c.id.includes(only)).map((c) => ({ id: c.id, v: checkCase(c, baseline, mode) }));
}

if (process.argv[1]?.endsWith('run.ts')) {
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
  const mode: Mode = process.argv.includes('--support') ? 'support' : process.argv.includes('--field') ? 'field' : process.argv.includes('--data') ? 'data' : 'inline';
  const results = runAll(only, mode);
  const pass = results.filter((r) => r.v.status === 'pass');
  const fail = results.filter((r) => r.v.status === 'fail');
  const skip = results.filter((r) => r.v.status === 'skip');
  for (const r of fail) console.log(`FAIL ${r.id}: ${(r.v as { reason: string }).reason}\n`);
  const reasons = new Map<string, number>();
  for (const r of skip) {
    const reason = (r.v as { reason: string }).reason;
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  console.log([...reasons].sort((a, b) => b[1] - a[1]).map(([r, n]) => `${String(n).padStart(4)}  ${r}`).join('\n'));
  console.log(`${mode}: cases: ${results.length}; pass ${pass.length}, fail ${fail.length}, skipped ${skip.length}`);
  if (process.argv.includes('--write-skips')) {
    const all = JSON.parse(readFileSync(SKIP_FILE, 'utf8')) as Record<string, Record<string, string>>;
    const out: Record<string, string> = {};
    for (const r of skip) out[r.id] = (r.v as { reason: string }).reason;
    all[mode] = out;
    writeFileSync(SKIP_FILE, JSON.stringify(all, null, 2) + '\n');
  }
}
