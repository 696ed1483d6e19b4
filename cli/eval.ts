// `regent eval [flags] <query>`: evaluate a Rego query, compatible with `opa eval`.
//   -d/--data PATH      policy/data files or directories (repeatable)
//   -b/--bundle PATH    bundle directories or .tar.gz archives (repeatable)
//   -i/--input FILE     input document, read as YAML (so JSON too) whatever its name,
//                       as OPA does; -I/--stdin-input reads stdin
//   --format json|pretty|raw (default json), --v0-compatible, --strict-builtin-errors,
//   --fail (exit 1 when undefined), --fail-defined (exit 1 when defined),
//   --explain notes|fails|full|debug: evaluate with the reference interpreter and
//   print the trace as OPA does (pretty: the trace text before the result; json:
//   an `explanation` array of events after `result`).
//   --metrics, --instrument, --profile (--profile-limit), --coverage, --package,
//   --import, --capabilities, -s/--schema: cli/eval-run.ts (OPA's output shapes).
// Errors (load, parse, compile, eval) print as OPA does: `{"errors":[…]}` for json,
// `N error(s) occurred: …` otherwise, with exit code 1. An unreadable input document
// is reported before evaluation, plainly on stderr (`unable to parse input: …`).
// Imports name compiler modules directly, and the interpreter (--explain) and partial
// evaluation (--partial) load on use: `regent eval` starts in a fraction of the time.
import { compile } from '../compiler/policy.js';
import { stringifyOpaJSON } from '../compiler/ast/opa-json.js';
import type { ExplainMode, TraceEvent } from '../compiler/interp/index.js';
import type { ResultRow } from '../compiler/api.js';
import type { Value } from '../runtime/value/index.js';
import { UsageError, bool, formatHelp, list, parseArgs, str, type FlagSpec } from './args.js';
import { InputError, loadAll, parseInput, readInputFile } from './loader.js';
import { errorsJSON, errorsText, resultJSON, resultPretty, resultRaw, toOutputErrors, type IO } from './output.js';
import type { InstrumentOptions } from './eval-run.js';

/** True when an instrumentation/context flag is set (then cli/eval-run.ts evaluates; --explain stays here). */
function isInstrumentedRequest(r: EvalRequest): boolean {
  if (r.explain !== undefined) return false;
  return !!(r.metrics || r.instrument || r.profile || r.coverage || r.package !== undefined || r.imports?.length || r.capabilities !== undefined || r.schema !== undefined);
}

export const EVAL_FLAGS: FlagSpec[] = [
  { name: 'data', short: 'd', type: 'string', repeatable: true, metavar: 'PATH', description: 'set policy or data file(s) or directories' },
  { name: 'bundle', short: 'b', type: 'string', repeatable: true, metavar: 'PATH', description: 'set bundle directory or .tar.gz archive' },
  { name: 'input', short: 'i', type: 'string', metavar: 'FILE', description: 'set input file path (JSON or YAML)' },
  { name: 'stdin-input', short: 'I', type: 'boolean', description: 'read input document from stdin' },
  { name: 'format', short: 'f', type: 'string', choices: ['json', 'pretty', 'raw'], default: 'json', description: 'set output format' },
  { name: 'v0-compatible', type: 'boolean', description: 'accept Rego v0 syntax' },
  { name: 'strict-builtin-errors', type: 'boolean', description: 'treat the first built-in function error as fatal' },
  { name: 'fail', type: 'boolean', description: 'exit with code 1 if the result is undefined' },
  { name: 'fail-defined', type: 'boolean', description: 'exit with code 1 if the result is defined' },
  { name: 'explain', type: 'string', choices: ['notes', 'fails', 'full', 'debug'], metavar: 'MODE', description: 'enable query explanations (notes, fails, full, debug)' },
  { name: 'timeout', type: 'string', metavar: 'DURATION', description: 'stop evaluation after this long (e.g. 5s, 500ms)' },
  { name: 'partial', short: 'p', type: 'boolean', description: 'perform partial evaluation' },
  { name: 'unknowns', short: 'u', type: 'string', repeatable: true, metavar: 'REF', description: 'set paths to treat as unknown during partial evaluation (default [input])' },
  { name: 'metrics', type: 'boolean', description: 'report query performance metrics' },
  { name: 'instrument', type: 'boolean', description: 'enable query instrumentation metrics (implies --metrics)' },
  { name: 'profile', type: 'boolean', description: 'perform expression profiling' },
  { name: 'profile-limit', type: 'string', default: '10', metavar: 'N', description: 'set number of profiling results to show' },
  { name: 'coverage', type: 'boolean', description: 'report coverage' },
  { name: 'package', type: 'string', metavar: 'PACKAGE', description: 'set query package' },
  { name: 'import', type: 'string', repeatable: true, metavar: 'IMPORT', description: 'set query import(s)' },
  { name: 'capabilities', type: 'string', metavar: 'FILE|VERSION', description: 'set capabilities version or capabilities.json file path' },
  { name: 'schema', short: 's', type: 'string', metavar: 'PATH', description: 'set schema file path or directory path' },
  { name: 'target', short: 't', type: 'string', choices: ['rego', 'wasm'], default: 'rego', description: 'set the runtime to exercise (rego or wasm: a data reference through policy.wasm)' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for eval' },
];

const USAGE = 'regent eval [flags] <query>';
const DESCRIPTION = 'Evaluate a Rego query and print the result.';

export interface EvalRequest extends InstrumentOptions {
  query: string;
  data: string[];
  bundles: string[];
  input?: string;
  stdinInput: boolean;
  format: 'json' | 'pretty' | 'raw';
  v0Compatible: boolean;
  strictBuiltinErrors: boolean;
  /** Exit 1 when undefined / when defined. */
  fail: boolean;
  failDefined: boolean;
  timeoutMs?: number;
  explain?: ExplainMode;
  /** `--partial` (cli/eval-partial.ts) with its `-u` unknowns. */
  partial?: boolean;
  unknowns?: string[];
  /** `-t wasm`: evaluate through the Wasm back end (cli/eval-wasm.ts). */
  target?: 'rego' | 'wasm';
}

/** Outcome of an evaluation: rows, or the errors to report. */
export type EvalOutcome = ({ ok: true; rows: ResultRow[] } | { ok: false; error: unknown }) & { explanation?: TraceEvent[] };

/** Parse `5s`, `500ms`, `1m`, or a bare number of seconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new UsageError(`invalid duration: ${text}`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return n * (unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000);
}

/** The input document of the request, if any. Throws InputError. */
export function readInput(req: EvalRequest, io?: IO): Value | undefined {
  if (req.input !== undefined) return readInputFile(req.input);
  if (!req.stdinInput) return undefined;
  if (!io?.stdin) throw new InputError('stdin is not available');
  return parseInput(io.stdin());
}

/** Load everything, compile, prepare and evaluate. Never throws. */
/** The evaluation options of a request: input, data, strict builtin errors, print to stderr, deadline. */
export function evalOptions(req: EvalRequest, input: Value | undefined, data: Value, io?: IO) {
  return {
    ...(input !== undefined ? { input } : {}),
    data,
    strictBuiltinErrors: req.strictBuiltinErrors,
    print: (msg: string) => io?.err(msg + '\n'),
    ...(req.timeoutMs !== undefined ? { deadline: Date.now() + req.timeoutMs } : {}),
  };
}

export async function evaluate(req: EvalRequest, io?: IO): Promise<EvalOutcome> {
  try {
    const input = readInput(req, io);
    const loaded = await loadAll(req.data, req.bundles, { v0Compatible: req.v0Compatible });
    const policy = compile(loaded.modules, { v0Compatible: req.v0Compatible || loaded.v0 });
    const evalOpts = evalOptions(req, input, loaded.data, io);
    if (req.target === 'wasm') {
      const { evaluateWasm } = await import('./eval-wasm.js');
      return { ok: true, rows: await evaluateWasm(policy, req.query, loaded.data, input) };
    }
    if (req.explain === undefined) return { ok: true, rows: policy.prepare(req.query).eval(evalOpts) };
    interp ??= await import('../compiler/interp/index.js');
    const traced = interp.prepareInterpreted(policy, req.query).evalWithTrace(evalOpts);
    const explanation = interp.explain(traced.events, req.explain);
    return traced.error !== undefined ? { ok: false, error: traced.error, explanation } : { ok: true, rows: traced.rows, explanation };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The reference interpreter, loaded by the first `--explain` evaluation. */
let interp: typeof import('../compiler/interp/index.js') | undefined;

/** Render an outcome in the requested format (an explanation comes from `evaluate`). */
export function render(outcome: EvalOutcome, format: EvalRequest['format']): string {
  const text = renderResult(outcome, format);
  const events = outcome.explanation;
  if (!events || events.length === 0) return text;
  const { prettyTrace, evalEventJSON } = interp!;
  if (format === 'pretty') return prettyTrace(events, { locations: true }) + text;
  if (format !== 'json') return text;
  // `explanation` follows `errors`/`result` in OPA's output object.
  const trace = stringifyOpaJSON(events.map(evalEventJSON), '  ', '  ');
  const body = text.trimEnd();
  return (body === '{}' ? `{\n  "explanation": ${trace}\n}` : `${body.slice(0, -2)},\n  "explanation": ${trace}\n}`) + '\n';
}

function renderResult(outcome: EvalOutcome, format: EvalRequest['format']): string {
  if (!outcome.ok) {
    const errs = toOutputErrors(outcome.error);
    return format === 'json' ? errorsJSON(errs) + '\n' : errorsText(errs) + '\n';
  }
  switch (format) {
    case 'json':
      return resultJSON(outcome.rows) + '\n';
    case 'pretty':
      return resultPretty(outcome.rows);
    case 'raw':
      return resultRaw(outcome.rows);
  }
}

/** Turn argv into a request. Throws UsageError. */
export function parseEvalArgs(argv: string[]): EvalRequest | 'help' {
  const args = parseArgs(argv, EVAL_FLAGS);
  if (bool(args, 'help')) return 'help';
  if (args.positionals.length === 0) throw new UsageError('specify query argument');
  if (args.positionals.length > 1) throw new UsageError(`expected exactly one query argument, got ${args.positionals.length}`);
  if (str(args, 'input') !== undefined && bool(args, 'stdin-input')) throw new UsageError('specify --input or --stdin-input, not both');
  if (bool(args, 'fail') && bool(args, 'fail-defined')) throw new UsageError('specify --fail or --fail-defined, not both');
  const timeout = str(args, 'timeout');
  return {
    query: args.positionals[0]!,
    data: list(args, 'data'),
    bundles: list(args, 'bundle'),
    ...(str(args, 'input') !== undefined ? { input: str(args, 'input')! } : {}),
    stdinInput: bool(args, 'stdin-input'),
    format: (str(args, 'format') ?? 'json') as EvalRequest['format'],
    v0Compatible: bool(args, 'v0-compatible'),
    strictBuiltinErrors: bool(args, 'strict-builtin-errors'),
    fail: bool(args, 'fail'),
    failDefined: bool(args, 'fail-defined'),
    ...(timeout !== undefined ? { timeoutMs: parseDuration(timeout) } : {}),
    ...(str(args, 'explain') !== undefined ? { explain: str(args, 'explain') as ExplainMode } : {}),
    ...(bool(args, 'partial') ? { partial: true, unknowns: list(args, 'unknowns') } : {}),
    ...(str(args, 'target') === 'wasm' ? { target: 'wasm' as const } : {}),
    ...instrumentArgs(args),
  };
}

/** --metrics, --instrument, --profile, --coverage, --package, --import, --capabilities, -s (cli/eval-run.ts). */
function instrumentArgs(args: ReturnType<typeof parseArgs>): InstrumentOptions {
  const limit = Number(str(args, 'profile-limit') ?? '10');
  if (!Number.isInteger(limit)) throw new UsageError(`invalid --profile-limit value: ${str(args, 'profile-limit')}`);
  const o: InstrumentOptions = {};
  if (bool(args, 'metrics')) o.metrics = true;
  if (bool(args, 'instrument')) o.instrument = true;
  if (bool(args, 'profile')) o.profile = true;
  if (bool(args, 'profile') || limit !== 10) o.profileLimit = limit;
  if (bool(args, 'coverage')) o.coverage = true;
  if (str(args, 'package') !== undefined) o.package = str(args, 'package')!;
  if (list(args, 'import').length > 0) o.imports = list(args, 'import');
  if (str(args, 'capabilities') !== undefined) o.capabilities = str(args, 'capabilities')!;
  if (str(args, 'schema') !== undefined) o.schema = str(args, 'schema')!;
  return o;
}

/** The `eval` command. Returns the exit code. */
export async function evalCommand(argv: string[], io: IO): Promise<number> {
  let req: EvalRequest | 'help';
  try {
    req = parseEvalArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`error: ${e.message}\n\n${formatHelp(USAGE, DESCRIPTION, EVAL_FLAGS)}\n`);
    return 2;
  }
  if (req === 'help') {
    io.out(formatHelp(USAGE, DESCRIPTION, EVAL_FLAGS) + '\n');
    return 0;
  }
  if (req.partial) return (await import('./eval-partial.js')).partialCommand(req, io);
  const run = isInstrumentedRequest(req) ? await import('./eval-run.js') : undefined;
  const outcome = run ? await run.evaluateInstrumented(req, io) : await evaluate(req, io);
  if (!outcome.ok && outcome.error instanceof InputError) {
    io.err(outcome.error.message + '\n');
    return 1;
  }
  io.out(run ? run.renderInstrumented(outcome, req.format) : render(outcome, req.format));
  if (!outcome.ok) return 1;
  const defined = outcome.rows.length > 0;
  if (req.fail && !defined) return 1;
  if (req.failDefined && defined) return 1;
  return 0;
}
