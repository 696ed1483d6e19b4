// Partial-evaluation soundness over the conformance suite (see soundness.ts): every
// case with an input must give the same rows through partial evaluation + residual
// evaluation as through normal evaluation, unless skip.json says why it cannot be
// checked. Modes: `inline` (rules inlined where possible), `support` (every package
// named in disableInlining, so rules become support modules), `field` (only the
// input's first field unknown, the rest known), and `data` (over the cases with data:
// `input` and the first data document unknown). Prints how many cases each covers.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runAll, SKIP_FILE } from './run.js';
import type { Mode } from './soundness.js';

const allSkips = JSON.parse(readFileSync(SKIP_FILE, 'utf8')) as Record<Mode, Record<string, string>>;

for (const mode of ['inline', 'support', 'field', 'data'] as const) {
  describe(`partial evaluation is sound over the conformance suite (${mode})`, () => {
    const skips = allSkips[mode];
    const results = runAll(undefined, mode);
    const pass = results.filter((r) => r.v.status === 'pass');
    const fail = results.filter((r) => r.v.status === 'fail');
    const skipped = results.filter((r) => r.v.status === 'skip');
    console.log(`partial-evaluation soundness (${mode}): ${results.length} cases with ${mode === 'data' ? 'data' : 'input'}; ${pass.length} covered and equal, ${skipped.length} not coverable (skip.json), ${fail.length} failing`);

    it('covers the cases', () => {
      expect(results.length).toBeGreaterThan(100);
      expect(pass.length).toBeGreaterThan(mode === 'data' ? 50 : 100);
    });

    it('gives the normal result for every covered case', () => {
      expect(fail.map((r) => `${r.id}: ${(r.v as { reason: string }).reason}`)).toEqual([]);
    });

    it('skips only cases listed in skip.json, each with a reason', () => {
      for (const r of skipped) expect(skips[r.id], r.id).toBeTruthy();
      const ids = new Set(results.filter((r) => r.v.status === 'skip').map((r) => r.id));
      expect(Object.keys(skips).filter((id) => !ids.has(id)), 'skip.json entries that now run').toEqual([]);
    });
  });
}
