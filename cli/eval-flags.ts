// The `regent eval` command line, as `opa eval` takes it (OPA's cmd/eval.go): every
// flag of `opa eval` (help sorted by name, as cobra lists them), the request they make,
// and OPA's argument checks (validateEvalParams), whose failures are usage errors
// (`Error: …` and the usage, exit code 1). Flags that only tune OPA's internal
// optimizations (--disable-indexing, --disable-early-exit,
// --optimize-store-for-read-speed, --v1-compatible, which is Regent's default) are
// accepted and change nothing: results are the same with or without them.
import type { ExplainMode } from '../compiler/interp/index.js';
import { parseTerm } from '../compiler/parser/index.js';
import { UsageError, bool, list, parseArgs, str, type FlagSpec, type ParsedArgs } from './args.js';
import type { InstrumentOptions } from './eval-run.js';

export const EVAL_FORMATS = ['json', 'values', 'bindings', 'pretty', 'source', 'raw', 'discard'] as const;
export type EvalFormat = (typeof EVAL_FORMATS)[number];

const flag = (name: string, type: FlagSpec['type'], description: string, more: Partial<FlagSpec> = {}): FlagSpec => ({ name, type, description, ...more });

/** Every flag of `opa eval`, sorted by long name. */
export const EVAL_FLAGS: FlagSpec[] = [
  flag('bundle', 'string', 'set bundle file(s) or directory path(s)', { short: 'b', repeatable: true, metavar: 'PATH' }),
  flag('capabilities', 'string', 'set capabilities version or capabilities.json file path', { metavar: 'FILE|VERSION' }),
  flag('count', 'string', 'number of times to repeat each benchmark (default 1)', { metavar: 'INT' }),
  flag('coverage', 'boolean', 'report coverage'),
  flag('data', 'string', 'set policy or data file(s)', { short: 'd', repeatable: true, metavar: 'PATH' }),
  flag('disable-early-exit', 'boolean', "disable 'early exit' optimizations (results are the same)"),
  flag('disable-indexing', 'boolean', 'disable indexing optimizations (results are the same)'),
  flag('disable-inlining', 'string', 'set paths of documents to exclude from inlining', { repeatable: true, metavar: 'REF' }),
  flag('entrypoint', 'string', 'set slash separated entrypoint path', { short: 'e', repeatable: true, metavar: 'PATH' }),
  flag('explain', 'string', 'enable query explanations (default off)', { choices: ['off', 'full', 'notes', 'fails', 'debug'], metavar: '{off,full,notes,fails,debug}' }),
  flag('fail', 'boolean', 'exits with non-zero exit code on undefined/empty result and errors'),
  flag('fail-defined', 'boolean', 'exits with non-zero exit code on defined/non-empty result and errors'),
  flag('format', 'string', 'set output format (default json)', { short: 'f', choices: [...EVAL_FORMATS], metavar: `{${EVAL_FORMATS.join(',')}}` }),
  flag('help', 'boolean', 'help for eval', { short: 'h' }),
  flag('ignore', 'string', "set file and directory names to ignore during loading (e.g., '.*' excludes hidden files)", { repeatable: true, metavar: 'GLOB' }),
  flag('import', 'string', 'set query import(s)', { repeatable: true, metavar: 'IMPORT' }),
  flag('input', 'string', 'set input file path', { short: 'i', metavar: 'FILE' }),
  flag('instrument', 'boolean', 'enable query instrumentation metrics (implies --metrics)'),
  flag('metrics', 'boolean', 'report query performance metrics'),
  flag('nondeterminstic-builtins', 'boolean', 'evaluate nondeterministic builtins (if all arguments are known) during partial eval'),
  flag('optimize', 'string', 'set optimization level', { short: 'O', metavar: 'INT' }),
  flag('optimize-store-for-read-speed', 'boolean', 'optimize default in-memory store for read speed (results are the same)'),
  flag('package', 'string', 'set query package', { metavar: 'PACKAGE' }),
  flag('partial', 'boolean', 'perform partial evaluation', { short: 'p' }),
  flag('pretty-limit', 'string', 'set limit after which pretty output gets truncated (default 80; as in opa eval, not applied)', { metavar: 'INT' }),
  flag('profile', 'boolean', 'perform expression profiling (implies --metrics)'),
  flag('profile-limit', 'string', 'set number of profiling results to show (default 10)', { metavar: 'INT' }),
  flag('profile-sort', 'string', 'set sort order of expression profiler results. Accepts: total_time_ns, num_eval, num_redo, num_gen_expr, file, line', { repeatable: true, metavar: 'CRITERIA' }),
  flag('schema', 'string', 'set schema file path or directory path', { short: 's', metavar: 'PATH' }),
  flag('shallow-inlining', 'boolean', 'disable inlining of rules that depend on unknowns'),
  flag('show-builtin-errors', 'boolean', 'collect and return all encountered built-in errors, built in errors are not fatal'),
  flag('stdin', 'boolean', 'read query from stdin'),
  flag('stdin-input', 'boolean', 'read input document from stdin', { short: 'I' }),
  flag('strict', 'boolean', 'enable compiler strict mode', { short: 'S' }),
  flag('strict-builtin-errors', 'boolean', 'treat the first built-in function error encountered as fatal'),
  flag('target', 'string', 'set the runtime to exercise (default rego)', { short: 't', choices: ['rego', 'wasm'], metavar: '{rego,wasm}' }),
  flag('timeout', 'string', 'set eval timeout (default unlimited)', { metavar: 'DURATION' }),
  flag('unknowns', 'string', 'set paths to treat as unknown during partial evaluation (default [input])', { short: 'u', repeatable: true, metavar: 'REF' }),
  flag('v0-compatible', 'boolean', 'opt-in to OPA features and behaviors prior to the OPA v1.0 release'),
  flag('v1-compatible', 'boolean', "opt-in to OPA features and behaviors that are enabled by default in OPA v1.0 (Regent's default)"),
  flag('var-values', 'boolean', 'show local variable values in pretty trace output'),
];

export const USAGE = 'regent eval <query> [flags]';
export const DESCRIPTION = `Evaluate a Rego query and print the result.

Output Formats
--------------

Set the output format with the --format flag.

    --format=json      : output raw query results as JSON
    --format=values    : output line separated JSON arrays containing expression values
    --format=bindings  : output line separated JSON objects containing variable bindings
    --format=pretty    : output query results in a human-readable format
    --format=source    : output partial evaluation results in a source format
    --format=raw       : output the values from query results in a scripting friendly format
    --format=discard   : output the result field as "discarded" when non-nil

Errors exit with code 2 (printed in the JSON output for json and discard, on stderr
otherwise); --fail and --fail-defined exit with code 1; a bad command line exits 1.

The -O flag controls the optimization level. By default, optimization is disabled (-O=0).
When optimization is enabled the 'eval' command generates a bundle from the files provided
with either the --bundle or --data flag, and evaluates the query against it. At least one
entrypoint must be supplied, either via the -e option, or via entrypoint metadata annotations.`;

export interface EvalRequest extends InstrumentOptions {
  query: string;
  /** `--stdin`: the query is read from stdin (evalCommand fills `query`). */
  stdinQuery?: boolean;
  data: string[];
  bundles: string[];
  input?: string;
  stdinInput: boolean;
  format: EvalFormat;
  v0Compatible: boolean;
  strictBuiltinErrors: boolean;
  /** --show-builtin-errors: report the builtin errors evaluation treats as undefined (evalCommand). */
  showBuiltinErrors?: boolean;
  /** Where evaluation collects those errors (set by evalCommand for --show-builtin-errors). */
  builtinErrorSink?: Error[];
  /** Exit 1 when undefined / when defined. */
  fail: boolean;
  failDefined: boolean;
  timeoutMs?: number;
  explain?: ExplainMode;
  /** --var-values: local variable values in the pretty trace. */
  varValues?: boolean;
  /** `--partial` (cli/eval-partial.ts) with its `-u` unknowns and inlining controls. */
  partial?: boolean;
  unknowns?: string[];
  disableInlining?: string[];
  shallowInlining?: boolean;
  nondeterministicBuiltins?: boolean;
  /** `-t wasm`: evaluate through the Wasm back end (cli/eval-wasm.ts). */
  target?: 'rego' | 'wasm';
  /** --count N: evaluate N times (cli/eval-instrument.ts). */
  count?: number;
  /** --ignore GLOB: names skipped while loading -d/-b directories (cli/eval-load.ts). */
  ignore?: string[];
  /** -S/--strict: the compiler's strict mode. */
  strict?: boolean;
  /** -O N with -e entrypoints: evaluate against the optimized bundle (cli/eval-load.ts). */
  optimize?: number;
  entrypoints?: string[];
}

/** Parse `5s`, `500ms`, `1m`, or a bare number of seconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new UsageError(`invalid duration: ${text}`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return n * (unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000);
}

/** An int flag as pflag reads it (strconv.ParseInt base 0: `10`, `0x10`, `-1`). */
function intFlag(args: ParsedArgs, name: string): number | undefined {
  const text = str(args, name);
  if (text === undefined) return undefined;
  const m = /^([+-]?)(0x[0-9a-f]+|0o?[0-7]+|0b[01]+|\d+)$/i.exec(text.trim().replace(/_/g, ''));
  const n = m ? Number(m[2]!.replace(/^0(?=[0-7])/, '0o')) * (m[1] === '-' ? -1 : 1) : NaN;
  if (!Number.isSafeInteger(n)) throw new UsageError(`invalid argument ${JSON.stringify(text)} for "--${name}" flag: strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  return n;
}

/** OPA's check of -u values: `input`, or a term that parses to a ref. */
function checkUnknowns(unknowns: string[]): void {
  for (const u of unknowns) {
    if (u === 'input') continue;
    let t;
    try {
      t = parseTerm(u);
    } catch (e) {
      throw new UsageError(e instanceof Error ? e.message : String(e));
    }
    if (t.kind !== 'ref') throw new UsageError('illegal argument with --unknowns, specify string with one or more --unknowns');
  }
}

/** Turn argv into a request, with OPA's argument checks. Throws UsageError. */
export function parseEvalArgs(argv: string[]): EvalRequest | 'help' {
  const args = parseArgs(argv, EVAL_FLAGS);
  if (bool(args, 'help')) return 'help';
  const n = args.positionals.length;
  const stdin = bool(args, 'stdin');
  if (n > 0 && stdin) throw new UsageError('specify query argument or --stdin but not both');
  if (n === 0 && !stdin) throw new UsageError('specify query argument or --stdin');
  if (n > 1) throw new UsageError('specify at most one query argument');
  if (stdin && bool(args, 'stdin-input')) throw new UsageError('specify --stdin or --stdin-input but not both');
  if (bool(args, 'stdin-input') && str(args, 'input') !== undefined) throw new UsageError('specify --stdin-input or --input but not both');
  if (bool(args, 'fail') && bool(args, 'fail-defined')) throw new UsageError('specify --fail or --fail-defined but not both');
  const format = (str(args, 'format') ?? 'json') as EvalFormat;
  const partial = bool(args, 'partial');
  if (partial && format !== 'pretty' && format !== 'json' && format !== 'source') throw new UsageError('invalid output format for partial evaluation');
  if (!partial && format === 'source') throw new UsageError('invalid output format for evaluation');
  checkUnknowns(list(args, 'unknowns'));
  const optimize = intFlag(args, 'optimize') ?? 0;
  if (optimize > 0 && list(args, 'data').length > 0 && list(args, 'bundle').length > 0) throw new UsageError('specify either --data or --bundle flag with optimization level greater than 0');
  const count = intFlag(args, 'count') ?? 1;
  if (count < 1) throw new UsageError(`invalid argument "${str(args, 'count')}" for "--count" flag: must be at least 1`);
  intFlag(args, 'pretty-limit');
  const timeout = str(args, 'timeout');
  const explain = str(args, 'explain');
  return {
    query: stdin ? '' : args.positionals[0]!,
    ...(stdin ? { stdinQuery: true } : {}),
    data: list(args, 'data'),
    bundles: list(args, 'bundle'),
    ...(str(args, 'input') !== undefined ? { input: str(args, 'input')! } : {}),
    stdinInput: bool(args, 'stdin-input'),
    format,
    v0Compatible: bool(args, 'v0-compatible'),
    strictBuiltinErrors: bool(args, 'strict-builtin-errors'),
    ...(bool(args, 'show-builtin-errors') ? { showBuiltinErrors: true } : {}),
    fail: bool(args, 'fail'),
    failDefined: bool(args, 'fail-defined'),
    ...(timeout !== undefined ? { timeoutMs: parseDuration(timeout) } : {}),
    ...(explain !== undefined && explain !== 'off' ? { explain: explain as ExplainMode } : {}),
    ...(bool(args, 'var-values') ? { varValues: true } : {}),
    ...(partial ? partialArgs(args) : {}),
    ...(str(args, 'target') === 'wasm' ? { target: 'wasm' as const } : {}),
    ...(count !== 1 ? { count } : {}),
    ...(list(args, 'ignore').length > 0 ? { ignore: list(args, 'ignore').flatMap((g) => g.split(',')) } : {}),
    ...(bool(args, 'strict') ? { strict: true } : {}),
    ...(optimize > 0 ? { optimize } : {}),
    ...(list(args, 'entrypoint').length > 0 ? { entrypoints: list(args, 'entrypoint') } : {}),
    ...instrumentArgs(args),
  };
}

/** --partial's options: -u (default input), --disable-inlining, --shallow-inlining, --nondeterminstic-builtins. */
function partialArgs(args: ParsedArgs): Partial<EvalRequest> {
  const o: Partial<EvalRequest> = { partial: true, unknowns: list(args, 'unknowns') };
  if (list(args, 'disable-inlining').length > 0) o.disableInlining = list(args, 'disable-inlining');
  if (bool(args, 'shallow-inlining')) o.shallowInlining = true;
  if (bool(args, 'nondeterminstic-builtins')) o.nondeterministicBuiltins = true;
  return o;
}

/**
 * --metrics, --instrument, --profile (--profile-limit, --profile-sort), --coverage,
 * --package, --import, --capabilities, -s (cli/eval-run.ts). As OPA: a profile limit
 * or sort order turns profiling on, and profiling and --instrument imply --metrics.
 */
function instrumentArgs(args: ParsedArgs): InstrumentOptions {
  const limit = intFlag(args, 'profile-limit');
  const sort = list(args, 'profile-sort').flatMap((s) => s.split(','));
  const o: InstrumentOptions = {};
  const profile = bool(args, 'profile') || limit !== undefined || sort.length > 0;
  if (bool(args, 'metrics') || bool(args, 'instrument') || profile) o.metrics = true;
  if (bool(args, 'instrument')) o.instrument = true;
  if (profile) {
    o.profile = true;
    o.profileLimit = limit ?? 10;
    if (sort.length > 0) o.profileSort = sort;
  }
  if (bool(args, 'coverage')) o.coverage = true;
  if (str(args, 'package') !== undefined) o.package = str(args, 'package')!;
  if (list(args, 'import').length > 0) o.imports = list(args, 'import');
  if (str(args, 'capabilities') !== undefined) o.capabilities = str(args, 'capabilities')!;
  if (str(args, 'schema') !== undefined) o.schema = str(args, 'schema')!;
  return o;
}
