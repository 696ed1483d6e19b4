// `regent test --bench` and `--ignore`, after OPA's tester (runBenchmark) and cmd/test.go.
// A benchmark runs the test's query repeatedly, as Go's testing.Benchmark does: N
// starts at 1 and grows (at most 100× per round, aiming 20% past the budget) until one
// round of N evaluations takes the bench time (1s by default, `--benchtime`; OPA has
// no such flag). The result is Go's testing.BenchmarkResult: N, T (ns) and Extra
// metrics per op (`timer_rego_query_eval_ns/op`, as OPA reports its eval metrics). A
// test that fails or errors while benchmarked is reported as a failure/error.
// Output: pretty prints `data.pkg.test_x\t<BenchmarkResult.String()>` for passing
// tests (`%8d` N, then each metric in Go's prettyPrint widths), gobench names them
// `BenchmarkDataPkgTestX`; json adds `benchmark_result` to each result. Regent cannot
// count allocations, so the B/op and allocs/op columns of --benchmem are not printed.
import type { CompiledPolicy } from '../compiler/policy.js';
import { RObject, type Value } from '../runtime/value/index.js';
import { errorLine, toOutputErrors } from './output.js';
import type { TestCase, TestResult } from './test-runner.js';

/** Go's testing.BenchmarkResult (the fields OPA's JSON reporter prints). */
export interface BenchmarkResult {
  N: number;
  T: number;
  Bytes: number;
  MemAllocs: number;
  MemBytes: number;
  Extra: Record<string, number>;
}

export interface BenchTestResult extends TestResult {
  benchmark?: BenchmarkResult;
}

const METRIC = 'timer_rego_query_eval_ns/op';

/** Evaluate one test as a benchmark. */
export function benchTest(policy: CompiledPolicy, t: TestCase, opts: { data: unknown; budgetMs: number }): BenchTestResult {
  const base = { file: t.rule.loc.file, row: t.rule.loc.row, col: t.rule.loc.col, pkg: t.pkg, name: t.name, events: [], output: '' };
  if (t.skip) return { ...base, status: 'skip', durationNs: 0 };
  const start = process.hrtime.bigint();
  const since = () => Number(process.hrtime.bigint() - start);
  let query;
  try {
    query = policy.prepare(t.queryText);
  } catch (e) {
    return { ...base, status: 'error', error: errorLine(toOutputErrors(e)[0]!), durationNs: since() };
  }
  const evalOpts = { data: opts.data as Value };
  const passes = (): boolean => {
    const value = query.eval(evalOpts)[0]?.expressions[0]?.value;
    return t.object ? value instanceof RObject && value.size > 0 && objectTrue(value) : value === true;
  };
  const budgetNs = opts.budgetMs * 1e6;
  let n = 1;
  let elapsed = 0;
  let evalNs = 0;
  try {
    for (;;) {
      evalNs = 0;
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) {
        const e0 = process.hrtime.bigint();
        const ok = passes();
        evalNs += Number(process.hrtime.bigint() - e0);
        if (!ok) return { ...base, status: 'fail', durationNs: since() };
      }
      elapsed = Number(process.hrtime.bigint() - t0);
      if (elapsed >= budgetNs || n >= 1e9) break;
      const predicted = elapsed > 0 ? Math.ceil((n * budgetNs * 1.2) / elapsed) : n * 100;
      n = Math.min(Math.max(predicted, n + 1), n * 100, 1e9);
    }
  } catch (e) {
    return { ...base, status: 'error', error: errorLine(toOutputErrors(e)[0]!), durationNs: since() };
  }
  const benchmark: BenchmarkResult = { N: n, T: elapsed, Bytes: 0, MemAllocs: 0, MemBytes: 0, Extra: { [METRIC]: evalNs / n } };
  return { ...base, status: 'pass', durationNs: since(), benchmark };
}

function objectTrue(v: RObject): boolean {
  return v.entries().every(([, x]) => (x instanceof RObject ? x.size > 0 && objectTrue(x) : x === true));
}

/** Go's prettyPrint: whole part in 10 places, small numbers with four significant figures. */
export function prettyPrint(x: number, unit: string): string {
  const y = Math.abs(x);
  const [width, decimals] =
    y === 0 || y >= 999.95 ? [10, 0] : y >= 99.995 ? [12, 1] : y >= 9.9995 ? [13, 2] : y >= 0.99995 ? [14, 3] : y >= 0.099995 ? [15, 4] : y >= 0.0099995 ? [16, 5] : y >= 0.00099995 ? [17, 6] : [18, 7];
  return `${x.toFixed(decimals).padStart(width)} ${unit}`;
}

/** Go's testing.BenchmarkResult.String(). */
export function benchmarkString(r: BenchmarkResult): string {
  let out = String(r.N).padStart(8);
  const ns = r.Extra['ns/op'] ?? r.T / r.N;
  if (ns !== 0) out += '\t' + prettyPrint(ns, 'ns/op');
  for (const k of Object.keys(r.Extra).filter((k) => !['ns/op', 'MB/s', 'B/op', 'allocs/op'].includes(k)).sort()) out += '\t' + prettyPrint(r.Extra[k]!, k);
  return out;
}

/** The benchmark line of a passing test (OPA's PrettyReporter.fmtBenchmark). */
export function benchmarkLine(r: BenchTestResult, goBench: boolean): string {
  if (!r.benchmark) return '';
  let name = `${r.pkg}.${r.name}`;
  if (goBench) name = 'Benchmark' + name.replace(/_/g, '.').split('.').map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
  return `${name}\t${benchmarkString(r.benchmark)}`;
}
