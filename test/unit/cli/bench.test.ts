// Tests of `regent bench`: it evaluates the query repeatedly and reports samples,
// ns/op and the evaluation-time distribution; errors and usage as other commands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { benchCommand, runBenchmark } from '../../../cli/bench.js';
import { capture, tempTree } from './helpers.js';

let dir: string;
let cleanup: () => void;

beforeAll(() => {
  ({ dir, cleanup } = tempTree({
    'p.rego': 'package p\n\nallow if input.user == "alice"\n',
    'input.json': '{"user": "alice"}',
    'bad.rego': 'package bad\n\np := \n',
  }));
});
afterAll(() => cleanup());

describe('regent bench', () => {
  it('prints a table with samples, ns/op and the eval-time histogram', async () => {
    const c = capture('');
    const code = await benchCommand(['-d', join(dir, 'p.rego'), '-i', join(dir, 'input.json'), '--benchtime', '100ms', 'data.p.allow'], c.io);
    expect(code).toBe(0);
    const out = c.out;
    const samples = Number(/\| samples\s+\| (\d+)/.exec(out)?.[1]);
    expect(samples).toBeGreaterThan(10);
    expect(out).toMatch(/\| ns\/op\s+\| \d+/);
    expect(out).toContain('histogram_timer_rego_query_eval_ns_99%');
  });

  it('prints JSON with --format json, once per --count', async () => {
    const c = capture('');
    const code = await benchCommand(['-d', join(dir, 'p.rego'), '--format', 'json', '--count', '2', '--benchtime', '50ms', 'data.p.allow'], c.io);
    expect(code).toBe(0);
    const docs = c.out.trim().split(/\n(?=\{)/).map((s) => JSON.parse(s));
    expect(docs).toHaveLength(2);
    expect(docs[0].samples).toBeGreaterThan(0);
    expect(docs[0].metrics['histogram_timer_rego_query_eval_ns_count']).toBe(docs[0].samples);
  });

  it('reports compile errors with exit code 1', async () => {
    const c = capture('');
    const code = await benchCommand(['-d', join(dir, 'bad.rego'), 'data.bad.p'], c.io);
    expect(code).toBe(1);
    expect(c.err).toContain('rego_parse_error');
  });

  it('fails on an undefined result with --fail', async () => {
    const c = capture('');
    expect(await benchCommand(['-d', join(dir, 'p.rego'), '--fail', 'data.p.allow'], c.io)).toBe(1);
  });

  it('measures a function and summarises its timings', () => {
    let n = 0;
    const r = runBenchmark(() => n++, 20);
    expect(r.samples).toBeGreaterThan(0);
    expect(r.histogram['histogram_timer_rego_query_eval_ns_min']).toBeLessThanOrEqual(r.histogram['histogram_timer_rego_query_eval_ns_max']!);
  });
});
