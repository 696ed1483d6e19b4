// Vitest entry for differential testing: every conformance case (OPA's suite plus
// test/cases) through the JS closures and the reference interpreter (plain and
// traced). Fails on any difference not listed in allow.json, on allow-list
// entries that name no case, and on allow-list entries that no longer differ.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { loadAll, repoRoot } from '../conformance/load.js';
import { compareAll, readAllow } from './compare.js';

describe('differential: JS closures vs reference interpreter', () => {
  const allow = readAllow(join(repoRoot, 'test', 'differential', 'allow.json'));
  const loaded = loadAll();
  const result = compareAll(loaded.cases, allow);

  it('loads and compares every case', () => {
    expect(loaded.problems).toEqual([]);
    expect(result.compared + result.notEvaluated).toBe(loaded.cases.length);
    expect(result.compared).toBeGreaterThan(1000);
  });

  it('finds no unexplained differences', () => {
    const lines = result.differences.map(
      (d) => `${d.id} [${d.mode}]\n  closures:    ${d.closures.text} ${d.closures.detail ?? ''}\n  interpreter: ${d.interpreter.text} ${d.interpreter.detail ?? ''}`,
    );
    expect(lines).toEqual([]);
  });

  it('allows only cases that exist and still differ', () => {
    const ids = new Set(loaded.cases.map((c) => c.id));
    expect(Object.keys(allow).filter((id) => !ids.has(id))).toEqual([]);
    expect(result.allowedButAgreeing).toEqual([]);
  });
});
