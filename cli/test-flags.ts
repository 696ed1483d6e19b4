// The command line of `regent test`, as `opa test` (cmd/test.go) declares it: the flag
// table and its reading into TestParams. Values are checked as pflag checks them, and
// a bad value is a usage error worded as cobra prints it: `invalid argument "x" for
// "--count" flag: strconv.ParseInt: parsing "x": invalid syntax`; enum flags
// (--explain, -t) list their values as OPA's EnumFlag does (`must be one of
// {rego,wasm}`); --capabilities must name a file or a known version. As OPA's
// PreRunE: at least one path is required, and --explain turns on verbose reporting.
// -p/--parallel is accepted (Regent runs tests one after another; the report order,
// by file name then rule order, is the one OPA prints whatever the parallelism).
import { cpus } from 'node:os';
import { UsageError, bool, list, parseArgs, parseGoDuration, str, type FlagSpec } from './args.js';
import { capabilitiesFlagProblem } from './eval-context.js';
import type { ExplainMode } from '../compiler/index.js';

export const TEST_FLAGS: FlagSpec[] = [
  { name: 'verbose', short: 'v', type: 'boolean', description: 'set verbose reporting mode' },
  { name: 'format', short: 'f', type: 'string', choices: ['pretty', 'json', 'gobench'], default: 'pretty', description: 'set output format (gobench: with --bench)' },
  { name: 'coverage', short: 'c', type: 'boolean', description: 'report coverage (overrides debug tracing)' },
  { name: 'threshold', type: 'string', metavar: 'PERCENT', description: 'set coverage threshold and exit with non-zero status if coverage is less than threshold %' },
  { name: 'run', short: 'r', type: 'string', metavar: 'REGEX', description: 'run only test cases matching the regular expression' },
  { name: 'timeout', type: 'string', metavar: 'DURATION', description: 'set test timeout (default 5s)' },
  { name: 'exit-zero-on-skipped', short: 'z', type: 'boolean', description: 'skipped tests return status 0' },
  { name: 'bundle', short: 'b', type: 'boolean', description: 'load paths as bundle files or root directories' },
  { name: 'fail-on-empty', type: 'boolean', description: 'Whether to fail the test when no test was run' },
  { name: 'explain', type: 'string', metavar: '{fails,full,notes,debug}', description: 'enable query explanations' },
  { name: 'var-values', type: 'boolean', description: 'show local variable values in test output' },
  { name: 'count', type: 'string', default: '1', metavar: 'N', description: 'number of times to repeat each test' },
  { name: 'parallel', short: 'p', type: 'string', metavar: 'N', description: 'the number of tests that can run in parallel (accepted; Regent runs tests sequentially)' },
  { name: 'max-errors', short: 'm', type: 'string', default: '10', metavar: 'N', description: 'set the number of errors to allow before compilation fails early' },
  { name: 'capabilities', type: 'string', metavar: 'FILE|VERSION', description: 'set capabilities version or capabilities.json file path' },
  { name: 'schema', short: 's', type: 'string', metavar: 'PATH', description: 'set schema file path or directory path' },
  { name: 'target', short: 't', type: 'string', metavar: '{rego,wasm}', default: 'rego', description: 'set the runtime to exercise' },
  { name: 'watch', short: 'w', type: 'boolean', description: 'watch command line files for changes' },
  { name: 'v0-compatible', type: 'boolean', description: 'opt-in to OPA features and behaviors prior to the OPA v1.0 release' },
  { name: 'v1-compatible', type: 'boolean', description: 'opt-in to OPA features and behaviors that are enabled by default in OPA v1.0' },
  { name: 'bench', type: 'boolean', description: 'benchmark the unit tests' },
  { name: 'benchtime', type: 'string', default: '1s', metavar: 'DURATION', description: 'run each benchmark for about this long (Regent only)' },
  { name: 'benchmem', type: 'boolean', description: 'report memory allocations with benchmark results (accepted; Regent cannot count allocations)' },
  { name: 'ignore', type: 'string', repeatable: true, metavar: 'GLOB', description: "set file and directory names to ignore during loading (e.g., '.*' excludes hidden files)" },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for test' },
];

export const EXPLAIN_VALUES: readonly ExplainMode[] = ['fails', 'full', 'notes', 'debug'];
const TARGETS = ['rego', 'wasm'] as const;

export interface TestParams {
  paths: string[];
  verbose: boolean;
  /** --explain, when given (it implies verbose). */
  explain?: ExplainMode;
  format: string;
  coverage: boolean;
  threshold: number;
  run?: RegExp;
  timeoutMs: number;
  zeroOnSkipped: boolean;
  v0: boolean;
  bench: boolean;
  benchtimeMs: number;
  ignore: string[];
  bundle: boolean;
  failOnEmpty: boolean;
  varValues: boolean;
  count: number;
  parallel: number;
  maxErrors: number;
  capabilities?: string;
  schema?: string;
  target: (typeof TARGETS)[number];
  watch: boolean;
}

/** `-p, --parallel` or `--count`, as pflag names a flag in its errors. */
function shown(name: string): string {
  const spec = TEST_FLAGS.find((s) => s.name === name);
  return spec?.short ? `-${spec.short}, --${name}` : `--${name}`;
}

function invalid(name: string, value: string, why: string): UsageError {
  return new UsageError(`invalid argument ${JSON.stringify(value)} for ${JSON.stringify(shown(name))} flag: ${why}`);
}

/** An int flag as pflag reads it (strconv.ParseInt, base 0: `10`, `0x1f`, `0o17`, `-1`). */
export function intValue(name: string, text: string): number {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)$/.exec(text.replace(/(?<=[0-9a-fA-F])_(?=[0-9a-fA-F])/g, ''));
  const digits = m?.[2]?.replace(/^0(?=[0-7])/, '0o');
  const n = digits !== undefined ? Number(digits) * (m![1] === '-' ? -1 : 1) : NaN;
  if (Number.isNaN(n)) throw invalid(name, text, `strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  if (!Number.isSafeInteger(n)) throw invalid(name, text, `strconv.ParseInt: parsing ${JSON.stringify(text)}: value out of range`);
  return n;
}

function enumValue<T extends string>(name: string, text: string, values: readonly T[]): T {
  if (!(values as readonly string[]).includes(text)) throw invalid(name, text, `must be one of {${values.join(',')}}`);
  return text as T;
}

/** Read the command line; undefined for `--help`. Throws UsageError (or SyntaxError for a bad --run regex). */
export function parseTestParams(argv: string[]): TestParams | undefined {
  const args = parseArgs(argv, TEST_FLAGS);
  if (bool(args, 'help')) return undefined;
  const th = str(args, 'threshold');
  const threshold = th === undefined ? 0 : Number(th);
  if (th !== undefined && (th.trim() === '' || Number.isNaN(threshold))) throw invalid('threshold', th, `strconv.ParseFloat: parsing ${JSON.stringify(th)}: invalid syntax`);
  const explainText = str(args, 'explain');
  const explain = explainText === undefined ? undefined : enumValue('explain', explainText, EXPLAIN_VALUES);
  const caps = str(args, 'capabilities');
  const badCaps = caps === undefined ? undefined : capabilitiesFlagProblem(caps);
  if (badCaps !== undefined) throw new UsageError(badCaps);
  const timeout = str(args, 'timeout');
  const run = str(args, 'run');
  const schema = str(args, 'schema');
  const params: TestParams = {
    paths: args.positionals,
    verbose: bool(args, 'verbose') || explain !== undefined,
    ...(explain !== undefined ? { explain } : {}),
    format: str(args, 'format') ?? 'pretty',
    coverage: bool(args, 'coverage') || threshold > 0,
    threshold,
    timeoutMs: (timeout !== undefined ? goDuration('timeout', timeout) : 0) || 5_000,
    zeroOnSkipped: bool(args, 'exit-zero-on-skipped'),
    v0: bool(args, 'v0-compatible'),
    bench: bool(args, 'bench'),
    benchtimeMs: goDuration('benchtime', str(args, 'benchtime') ?? '1s'),
    ignore: list(args, 'ignore'),
    bundle: bool(args, 'bundle'),
    failOnEmpty: bool(args, 'fail-on-empty'),
    varValues: bool(args, 'var-values'),
    count: intValue('count', str(args, 'count') ?? '1'),
    parallel: str(args, 'parallel') === undefined ? cpus().length : intValue('parallel', str(args, 'parallel')!),
    maxErrors: intValue('max-errors', str(args, 'max-errors') ?? '10'),
    ...(caps !== undefined ? { capabilities: caps } : {}),
    ...(schema !== undefined && schema !== '' ? { schema } : {}),
    target: enumValue('target', str(args, 'target') ?? 'rego', TARGETS),
    watch: bool(args, 'watch'),
  };
  if (args.positionals.length === 0) throw new UsageError('specify at least one file');
  if (run !== undefined && run !== '') params.run = new RegExp(run);
  return params;
}

/** Go's time.ParseDuration (args.ts) of a duration flag, in milliseconds; a bad value is pflag's error. */
export function goDuration(name: string, text: string): number {
  try {
    return parseGoDuration(text);
  } catch (e) {
    throw invalid(name, text, (e as Error).message);
  }
}
