// `regent eval [flags] <query>`: evaluate a Rego query, compatible with `opa eval`.
// The command line and OPA's argument checks: cli/eval-flags.ts (a bad command line
// prints `Error: …` and the usage, exit code 1). The output formats: cli/eval-formats.ts.
// Loading (-d, -b, --ignore, -O/-e): cli/eval-load.ts. Instrumentation (--metrics,
// --instrument, --profile, --coverage, --package, --import, --capabilities, -s):
// cli/eval-run.ts, and --count: cli/eval-instrument.ts. --partial: cli/eval-partial.ts.
// Exit codes, as opa eval's RunE and main: 2 when loading, parsing, compiling or
// evaluating failed (the errors printed as the format prints them); 1 for --fail on an
// undefined result and --fail-defined on a defined one; 0 otherwise. Problems found
// before evaluating (an unreadable input document or stdin, an optimization failure,
// conflicting options) print plainly on stderr, exit code 2, as opa eval's setupEval.
// --explain evaluates with the reference interpreter and prints its trace as OPA does.
// Imports name compiler modules directly, and the interpreter (--explain) and partial
// evaluation (--partial) load on use: `regent eval` starts in a fraction of the time.
import { compile } from '../compiler/policy.js';
import { RegoError, RegoErrors, throwErrors } from '../compiler/source/diagnostics.js';
import { pathConflictErrors, rulePathsOf } from '../compiler/passes/path-conflicts.js';
import { stringifyOpaJSON } from '../compiler/ast/opa-json.js';
import type { TraceEvent } from '../compiler/interp/index.js';
import type { ResultRow } from '../compiler/api.js';
import type { Value } from '../runtime/value/index.js';
import { UsageError, formatHelp } from './args.js';
import { InputError, parseInput, readInputFile } from './loader.js';
import type { IO } from './output.js';
import { usageFailed } from './usage.js';
import { DESCRIPTION, EVAL_FLAGS, USAGE, parseEvalArgs, type EvalFormat, type EvalRequest } from './eval-flags.js';
import { renderOutcome, type Rendered } from './eval-formats.js';
import { EvalSetupError, loadForEval } from './eval-load.js';
import { repeat, type Extras } from './eval-instrument.js';

export { EVAL_FLAGS, parseDuration, parseEvalArgs, type EvalRequest } from './eval-flags.js';

/** True when an instrumentation/context flag is set (then cli/eval-run.ts evaluates; --explain stays here). */
function isInstrumentedRequest(r: EvalRequest): boolean {
  if (r.explain !== undefined) return false;
  return !!(r.metrics || r.instrument || r.profile || r.coverage || r.package !== undefined || r.imports?.length || r.capabilities !== undefined || r.schema !== undefined);
}

/** Outcome of an evaluation: rows, or the errors to report. */
export type EvalOutcome = ({ ok: true; rows: ResultRow[] } | { ok: false; error: unknown }) & { explanation?: TraceEvent[] };

/** The input document of the request, if any. Throws InputError. */
export function readInput(req: EvalRequest, io?: IO): Value | undefined {
  if (req.input !== undefined) return readInputFile(req.input);
  if (!req.stdinInput) return undefined;
  if (!io?.stdin) throw new InputError('stdin is not available');
  return parseInput(io.stdin());
}

/** The evaluation options of a request: input, data, strict builtin errors, print to stderr, deadline. */
export function evalOptions(req: EvalRequest, input: Value | undefined, data: Value, io?: IO) {
  return {
    ...(input !== undefined ? { input } : {}),
    data,
    strictBuiltinErrors: req.strictBuiltinErrors,
    print: (msg: string) => io?.err(msg + '\n'),
    ...(req.timeoutMs !== undefined ? { deadline: Date.now() + req.timeoutMs } : {}),
    ...(req.builtinErrorSink ? { builtinErrors: req.builtinErrorSink } : {}),
  };
}

/** Load everything, compile, prepare and evaluate. Never throws. */
export async function evaluate(req: EvalRequest, io?: IO): Promise<EvalOutcome> {
  try {
    const input = readInput(req, io);
    const loaded = await loadForEval(req);
    const policy = compile(loaded.modules, { v0Compatible: req.v0Compatible || loaded.v0, ...(req.strict ? { strict: true } : {}) });
    // OPA's rego package compiles with WithPathConflictsCheck against the loaded data.
    if (loaded.data.size > 0) throwErrors(pathConflictErrors(rulePathsOf(policy.modules), loaded.data));
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
    return { ok: false, error: limitErrors(error) };
  }
}

/** OPA's compiler stops at 10 errors (CompileErrorLimitDefault) and adds `error limit reached`. */
function limitErrors(error: unknown): unknown {
  const LIMIT = 10;
  if (!(error instanceof RegoErrors) || error.errors.length <= LIMIT) return error;
  return new RegoErrors([...error.errors.slice(0, LIMIT), new RegoError('rego_compile_error', 'error limit reached')]);
}

/** The reference interpreter, loaded by the first `--explain` evaluation. */
let interp: typeof import('../compiler/interp/index.js') | undefined;

/**
 * Render an outcome (its explanation from `evaluate`, extras from cli/eval-run.ts) for
 * stdout and stderr, with the builtin errors --show-builtin-errors collected.
 */
export function render(outcome: EvalOutcome & { extras?: Extras }, format: EvalFormat, builtinErrors: Error[] = [], varValues = false): Rendered {
  const events = outcome.explanation;
  const trace =
    events && events.length > 0 && interp
      ? { pretty: interp.prettyTrace(events, { locations: true, exprVariables: varValues }), json: stringifyOpaJSON(events.map(interp.evalEventJSON), '  ', '  ') }
      : undefined;
  return renderOutcome(
    {
      ...(outcome.ok ? { rows: outcome.rows } : { error: outcome.error }),
      ...(trace ? { trace } : {}),
      ...(outcome.extras ? { extras: outcome.extras } : {}),
      ...(builtinErrors.length > 0 ? { builtinErrors } : {}),
    },
    format,
  );
}

/** Errors opa eval's setupEval reports before evaluating: plainly on stderr, exit code 2. */
function isSetupError(e: unknown): e is Error {
  return e instanceof InputError || e instanceof EvalSetupError;
}

/** IO whose stdin is read once (--count and --stdin read it again). */
function stdinOnce(io: IO): IO {
  if (!io.stdin) return io;
  let text: string | undefined;
  const read = io.stdin.bind(io);
  return { out: io.out, err: io.err, stdin: () => (text ??= read()) };
}

/** What opa eval's setupEval refuses before evaluating (exit code 2). */
function setupProblem(req: EvalRequest): string | undefined {
  if (req.strictBuiltinErrors && req.showBuiltinErrors)
    return 'cannot use --show-builtin-errors with --strict-builtin-errors, --strict-builtin-errors will return the first built-in error encountered immediately';
  return undefined;
}

/** The `eval` command. Returns the exit code. */
export async function evalCommand(argv: string[], io: IO): Promise<number> {
  let req: EvalRequest | 'help';
  try {
    req = parseEvalArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailed(io, e.message, formatHelp(USAGE, DESCRIPTION, EVAL_FLAGS));
  }
  if (req === 'help') {
    io.out(formatHelp(USAGE, DESCRIPTION, EVAL_FLAGS) + '\n');
    return 0;
  }
  // opa reads --capabilities while parsing flags: a bad value is a usage error
  const badCaps = req.capabilities === undefined ? undefined : (await import('./eval-context.js')).capabilitiesFlagProblem(req.capabilities);
  if (badCaps !== undefined) return usageFailed(io, badCaps, formatHelp(USAGE, DESCRIPTION, EVAL_FLAGS));
  io = stdinOnce(io);
  // opa eval's setupEval warns and evaluates without a trace: the Wasm target has none.
  if (req.explain !== undefined && req.target === 'wasm') io.err(`warning: explain mode "${req.explain}" is not supported with wasm target\n`);
  const problem = setupProblem(req);
  if (problem !== undefined) {
    io.err(problem + '\n');
    return 2;
  }
  if (req.stdinQuery) {
    if (!io.stdin) {
      io.err('stdin is not available\n');
      return 2;
    }
    req = { ...req, query: io.stdin() };
  }
  // --show-builtin-errors: the first evaluation's builtin errors are reported (opa's result[0]).
  const sink: Error[] | undefined = req.showBuiltinErrors ? [] : undefined;
  const r: EvalRequest = sink ? { ...req, builtinErrorSink: sink } : req;
  if (r.partial) return (await import('./eval-partial.js')).partialCommand(r, io);
  const run = isInstrumentedRequest(r) ? await import('./eval-run.js') : undefined;
  const once = (): Promise<EvalOutcome & { extras?: Extras }> => (run ? run.evaluateInstrumented(r, io) : evaluate(r, io));
  let outcome = await once();
  if (!outcome.ok && isSetupError(outcome.error)) {
    io.err(outcome.error.message + '\n');
    return 2;
  }
  const builtinErrors = sink ? sink.slice() : [];
  if ((r.count ?? 1) > 1) outcome = await repeat(outcome, r.count!, once);
  // Builtin errors alone are not a failed evaluation (opa eval: exit code as without them).
  const printed = render(outcome, r.format, builtinErrors, r.varValues === true);
  io.out(printed.out);
  if (printed.err) io.err(printed.err);
  // opa eval: evaluation errors exit 2 (RunE's newExitErrorWrap(2, …)); --fail/--fail-defined exit 1
  if (!outcome.ok) return 2;
  const defined = outcome.rows.length > 0;
  if ((r.fail && !defined) || (r.failDefined && defined)) return 1;
  return 0;
}
