// regent test --bench / --ignore: OPA's PrettyReporter benchmark lines
// (`data.pkg.test_x\t<testing.BenchmarkResult.String()>`), the gobench names
// (BenchmarkDataPkgTestX), the JSON reporter's `benchmark_result` (Go's
// testing.BenchmarkResult fields), Go's prettyPrint widths, and loading with ignored
// files and directories.
import { describe, expect, it } from 'vitest';
import { testCommand } from '../../../cli/test.js';
import { benchmarkString, prettyPrint } from '../../../cli/test-bench.js';
import { capture, tempTree } from './helpers.js';

const FILES = {
  't_test.rego': 'package t\n\ntest_a if 1 + 1 == 2\n\ntest_b if count([1, 2, 3]) == 3\n',
  'fail/f_test.rego': 'package f\n\ntest_no if false\n',
  'broken/x.rego': 'this is not rego (\n',
  '.hidden/data.json': '{"not": "json"',
};

async function run(argv: string[]) {
  const t = tempTree(FILES);
  try {
    const c = capture();
    const code = await testCommand(argv.map((a) => a.replace('$DIR', t.dir)), c.io);
    return { code, out: c.out.replaceAll(t.dir, '$DIR'), err: c.err };
  } finally {
    t.cleanup();
  }
}

describe('regent test --ignore', () => {
  it('skips matching files and directories below the paths', async () => {
    const bad = await run(['$DIR']);
    expect(bad.code).toBe(1);
    const r = await run(['--ignore', 'broken', '--ignore', '.*', '--ignore', 'fail', '$DIR']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('PASS: 2/2\n');
    const glob = await run(['--ignore', 'b*', '--ignore', '.*', '$DIR']);
    expect(glob.code).toBe(2);
    expect(glob.out).toContain('data.f.test_no: FAIL');
  });
});

describe('regent test --bench', () => {
  it('prints one benchmark line per passing test, then the summary', async () => {
    const r = await run(['--bench', '--benchtime', '20ms', '--ignore', 'broken', '--ignore', '.*', '--ignore', 'fail', '$DIR']);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^data\.t\.test_a\t {0,7}\d{1,8}\t +[\d.]+ ns\/op\t +[\d.]+ timer_rego_query_eval_ns\/op$/);
    expect(lines[1]).toMatch(/^data\.t\.test_b\t/);
    expect(lines.slice(2)).toEqual(['-'.repeat(80), 'PASS: 2/2', '']);
  });

  it('reports failures as the normal report does, exit 2', async () => {
    const r = await run(['--bench', '--benchtime', '10ms', '--ignore', 'broken', '--ignore', '.*', '$DIR']);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/data\.f\.test_no: FAIL/);
    expect(r.out).toMatch(/PASS: 2\/3\nFAIL: 1\/3\n$/);
  });

  it('names benchmarks as Go does with --format gobench', async () => {
    const r = await run(['--bench', '--benchtime', '10ms', '-f', 'gobench', '--run', 'test_a', '--ignore', 'broken', '--ignore', '.*', '$DIR']);
    expect(r.out.split('\n')[0]).toMatch(/^BenchmarkDataTTestA\t/);
  });

  it('adds benchmark_result to the JSON report', async () => {
    const r = await run(['--bench', '--benchtime', '10ms', '-f', 'json', '--run', 'test_b', '--ignore', 'broken', '--ignore', '.*', '$DIR']);
    const doc = JSON.parse(r.out) as Record<string, unknown>[];
    expect(doc).toHaveLength(1);
    expect(doc[0]).toMatchObject({ package: 'data.t', name: 'test_b', location: { file: '$DIR/t_test.rego', row: 5, col: 1 } });
    const br = doc[0]!.benchmark_result as Record<string, unknown>;
    expect(Object.keys(br)).toEqual(['N', 'T', 'Bytes', 'MemAllocs', 'MemBytes', 'Extra']);
    expect(br.N).toBeGreaterThan(0);
    expect(Object.keys(br.Extra as object)).toEqual(['timer_rego_query_eval_ns/op']);
  });

  it("formats numbers as Go's testing.BenchmarkResult.String", () => {
    expect(prettyPrint(37437, 'ns/op')).toBe('     37437 ns/op');
    expect(prettyPrint(207.34, 'ns/op')).toBe('       207.3 ns/op');
    expect(prettyPrint(12.5, 'x')).toBe('        12.50 x');
    expect(prettyPrint(0, 'x')).toBe('         0 x');
    expect(benchmarkString({ N: 31893, T: 31893 * 37437, Bytes: 0, MemAllocs: 0, MemBytes: 0, Extra: { 'timer_rego_query_eval_ns/op': 35076 } })).toBe(
      '   31893\t     37437 ns/op\t     35076 timer_rego_query_eval_ns/op',
    );
  });
});
