// Vitest entry for the OPA conformance suite: runs every case once, prints the
// per-folder table, and fails when a case listed in baseline.json does not pass now
// (or no longer exists), or when skip.json names a case that does not exist. The
// baseline is data produced by `npm run conformance -- --update-baseline`; nothing
// about the results is hard-coded here.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAll, type LoadResult } from './load.js';
import type { CaseResult } from './run-case.js';
import { runIsolated } from './isolate.js';
import { checkBaseline, formatFailure, formatTable, readBaseline, readSkip, summarize, unknownSkips } from './report.js';

describe('OPA conformance suite', () => {
  let loaded: LoadResult;
  let results: CaseResult[];
  let skip: Record<string, string>;
  let baseline: string[];

  beforeAll(async () => {
    loaded = loadAll();
    skip = readSkip();
    baseline = readBaseline();
    // Worker processes: a case that hangs or crashes fails alone, the run goes on.
    results = await runIsolated(loaded.cases, { skip, timeoutMs: 10_000 });
    console.log(formatTable(summarize(results)));
  }, 20 * 60_000);

  it('loads the suite without problems', () => {
    expect(loaded.problems).toEqual([]);
    expect(loaded.cases.length).toBeGreaterThan(0);
  });

  it('runs every case to a verdict', () => {
    expect(results.length).toBe(loaded.cases.length);
    for (const r of results) expect(['pass', 'fail', 'skip']).toContain(r.status);
  });

  it('still passes every case in baseline.json', () => {
    const check = checkBaseline(results, baseline, loaded.cases.map((c) => c.id));
    const failures = results.filter((r) => check.regressed.includes(r.id));
    if (failures.length) console.log(failures.map(formatFailure).join('\n\n'));
    expect(check.regressed, 'baseline cases that no longer pass').toEqual([]);
    expect(check.missing, 'baseline cases that no longer exist').toEqual([]);
  });

  it('skips only cases that exist', () => {
    expect(unknownSkips(skip, loaded.cases.map((c) => c.id))).toEqual([]);
  });
});
