// A short run of the parser/compiler fuzzer (runner.ts): 2,000 mutated conformance
// and corpus inputs in a worker thread, at most 60 s, with a fixed seed. Any crash
// (a non-Regent error) or hang fails the test; the full run is `npm run fuzz`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runFuzz } from './runner.js';
import { mutate, prng } from './mutate.js';

const outDir = mkdtempSync(join(tmpdir(), 'regent-fuzz-test-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('fuzzer', () => {
  it('mutations are reproducible from the seed', () => {
    const seeds = ['package a\n\np if input.x == 1\n', 'package b\n\nq := [x | some x in input]\n'];
    const run = (seed: number) => {
      const r = prng(seed);
      return Array.from({ length: 20 }, () => mutate(seeds[0]!, r, seeds).text);
    };
    expect(run(7)).toEqual(run(7));
    expect(run(7)).not.toEqual(run(8));
  });

  it('2,000 inputs: no crashes, no hangs', async () => {
    const stats = await runFuzz({ count: 2000, seconds: 60, seed: 12345, outDir, seedsFirst: false });
    const found = stats.findings.map((f) => `${f.kind} ${f.file} [${f.ops.join(', ')}]: ${f.message}`).join('\n');
    expect(stats.inputs).toBeGreaterThan(0);
    expect(stats.crashes, found).toBe(0);
    expect(stats.hangs, found).toBe(0);
    expect(stats.overflows, found).toBe(0);
    expect(stats.ok + stats.errors).toBe(stats.inputs);
  }, 120_000);
});
