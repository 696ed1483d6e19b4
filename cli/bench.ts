// `regent bench [flags] <query>`: benchmark a query, modelled on `opa bench`.
// Loads policies and data like `regent eval`, compiles and prepares the query once,
// then evaluates it repeatedly for about --benchtime and prints samples, ns/op and
// the distribution of evaluation times (histogram_timer_rego_query_eval_ns_*), as a
// table (pretty) or JSON. Runs --count times. Exit 1 on errors; with --fail, also
// when the query is undefined.
import { compile } from '../compiler/index.js';
import type { Value } from '../runtime/value/index.js';
import { UsageError, bool, formatHelp, list, parseArgs, str, type FlagSpec } from './args.js';
import { usageFailed } from './usage.js';
import { loadPaths, readDataFile } from './loader.js';
import { errorsJSON, errorsText, table, toJSON, toOutputErrors, type IO } from './output.js';
import { parseDuration } from './eval.js';

const FLAGS: FlagSpec[] = [
  { name: 'data', short: 'd', type: 'string', repeatable: true, metavar: 'PATH', description: 'set policy or data file(s) or directories' },
  { name: 'bundle', short: 'b', type: 'string', repeatable: true, metavar: 'DIR', description: 'set bundle directory' },
  { name: 'input', short: 'i', type: 'string', metavar: 'FILE', description: 'set input file path (JSON or YAML)' },
  { name: 'format', short: 'f', type: 'string', choices: ['pretty', 'json'], default: 'pretty', description: 'set output format' },
  { name: 'count', type: 'string', default: '1', metavar: 'N', description: 'number of times to repeat each benchmark' },
  { name: 'benchtime', type: 'string', default: '1s', metavar: 'DURATION', description: 'how long to run each benchmark' },
  { name: 'v0-compatible', type: 'boolean', description: 'accept Rego v0 syntax' },
  { name: 'fail', type: 'boolean', description: 'exit with code 1 if the result is undefined' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for bench' },
];

const USAGE = 'regent bench [flags] <query>';
const DESCRIPTION = 'Benchmark a Rego query and print the results.';

export interface BenchResult {
  samples: number;
  nsPerOp: number;
  /** Evaluation-time distribution in ns, keyed like OPA's histogram metrics. */
  histogram: Record<string, number>;
}

export async function benchCommand(argv: string[], io: IO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(argv, FLAGS);
  } catch (e) {
    if (e instanceof UsageError) return usageFailed(io, e.message, formatHelp(USAGE, DESCRIPTION, FLAGS));
    throw e;
  }
  if (bool(parsed, 'help')) {
    io.out(formatHelp(USAGE, DESCRIPTION, FLAGS) + '\n');
    return 0;
  }
  const query = parsed.positionals.join(' ');
  if (!query) {
    return usageFailed(io, 'specify exactly one query argument', formatHelp(USAGE, DESCRIPTION, FLAGS));
  }
  const format = str(parsed, 'format') === 'json' ? 'json' : 'pretty';
  try {
    const loaded = loadPaths(list(parsed, 'data'), list(parsed, 'bundle'));
    const inputPath = str(parsed, 'input');
    const input: Value | undefined = inputPath ? readDataFile(inputPath) : undefined;
    const policy = compile(loaded.modules, { v0Compatible: bool(parsed, 'v0-compatible') || loaded.v0 });
    const prepared = policy.prepare(query);
    const opts = { input, data: loaded.data };
    if (bool(parsed, 'fail') && prepared.eval(opts).length === 0) {
      io.err('undefined result\n');
      return 1;
    }
    const count = Math.max(1, Number(str(parsed, 'count') ?? '1') || 1);
    const budgetMs = parseDuration(str(parsed, 'benchtime') ?? '1s');
    for (let i = 0; i < count; i++) {
      const r = runBenchmark(() => prepared.eval(opts), budgetMs);
      io.out(format === 'json' ? toJSON({ samples: r.samples, ns_per_op: r.nsPerOp, metrics: r.histogram }) + '\n' : renderTable(r));
    }
    return 0;
  } catch (e) {
    const errs = toOutputErrors(e);
    if (format === 'json') io.out(errorsJSON(errs) + '\n');
    else io.err(errorsText(errs) + '\n');
    return 1;
  }
}

/** Evaluate `fn` repeatedly for about `budgetMs` (after a warm-up) and summarise the timings. */
export function runBenchmark(fn: () => unknown, budgetMs: number): BenchResult {
  const warmUntil = performance.now() + Math.min(200, budgetMs / 5);
  while (performance.now() < warmUntil) fn();
  const times: number[] = [];
  const start = performance.now();
  const end = start + budgetMs;
  let now = start;
  while (now < end && times.length < 10_000_000) {
    const t0 = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t0));
    if ((times.length & 63) === 0) now = performance.now();
  }
  const elapsedNs = (performance.now() - start) * 1e6;
  return { samples: times.length, nsPerOp: Math.round(elapsedNs / times.length), histogram: histogram(times) };
}

function histogram(times: number[]): Record<string, number> {
  const sorted = [...times].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  const variance = sorted.reduce((a, b) => a + (b - mean) ** 2, 0) / sorted.length;
  const name = 'histogram_timer_rego_query_eval_ns';
  return {
    [`${name}_75%`]: pct(75),
    [`${name}_90%`]: pct(90),
    [`${name}_95%`]: pct(95),
    [`${name}_99%`]: pct(99),
    [`${name}_99.9%`]: pct(99.9),
    [`${name}_99.99%`]: pct(99.99),
    [`${name}_count`]: sorted.length,
    [`${name}_max`]: sorted[sorted.length - 1]!,
    [`${name}_mean`]: Math.round(mean),
    [`${name}_median`]: pct(50),
    [`${name}_min`]: sorted[0]!,
    [`${name}_stddev`]: Math.round(Math.sqrt(variance)),
  };
}

function renderTable(r: BenchResult): string {
  const rows: string[][] = [
    ['samples', String(r.samples)],
    ['ns/op', String(r.nsPerOp)],
    ...Object.entries(r.histogram).map(([k, v]) => [k, String(v)]),
  ];
  return table(['', ''], rows).split('\n').slice(2).join('\n');
}
