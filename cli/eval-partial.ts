// `regent eval --partial [-u REF]... <query>`: partial evaluation, printed as
// `opa eval --partial` prints it.
//   json   {"partial": {"queries": [[expr…]…], "modules": [module…]}} (OPA's
//          rego.PartialQueries: support modules under `modules`; empty keys left
//          out, so a query that can never be true prints {"partial": {}})
//   pretty a table with a row per residual query (`Query 1`) and per support
//          module (`Support 1`), each cell the formatted Rego (tabs as two spaces),
//          rows separated by rules as Go's tablewriter draws them with row lines;
//          `undefined` when no query can be true (OPA's Output.undefined()).
//   source `# Query N` and the residual query's Rego (one expression a line) with a
//          blank line after it, then `# Module N` and each support module's Rego
//          (OPA's presentation.Source).
// Errors: in the JSON for json, on stderr for pretty and source; exit code 2. As opa
// eval, a partial result never counts as defined (its `result` is empty): --fail exits
// 1 whenever there is no error, --fail-defined never fails. --count N evaluates N times
// (with the timers: `aggregated_metrics` of the N runs in place of `metrics`).
// Unknowns default to `input` (as OPA's `-u` default); --disable-inlining and
// --nondeterminstic-builtins go to the partial evaluator; --shallow-inlining disables
// inlining under all of `data` (as server/control-plane/builder/optimize.ts's level 1).
// Generated vars (`$_02`) print as OPA names them (`$02`). --metrics / --instrument: OPA's
// timers (load, module parse and compile, query parse and compile, partial eval) as a
// `metrics` member before `partial` (json) or a table after the residue (pretty).
import type { Body, Module, Term } from '../compiler/index.js';
import { bodyToJSON, compile, formatModule, mapBody, mapTerm, moduleToJSON, partialEval, stringifyOpaJSON } from '../compiler/index.js';
import { formatBody } from '../compiler/ast/print.js';
import { EvalSetupError, loadForEval } from './eval-load.js';
import { InputError } from './loader.js';
import { errorsJSON, errorsText, toOutputErrors, type IO } from './output.js';
import { aggregateMetrics, jsonExtras, prettyExtras } from './eval-instrument.js';
import type { EvalRequest } from './eval.js';
import { readInput } from './eval.js';

/** A partial evaluation's residue or error; `metrics` (OPA's timers) with --metrics or --instrument. */
export type PartialOutcome = ({ ok: true; queries: Body[]; support: Module[] } | { ok: false; error: unknown }) & {
  metrics?: Record<string, number>;
  /** With --count N > 1, OPA's aggregated_metrics of the N runs in place of `metrics`. */
  aggregatedMetrics?: Record<string, Record<string, number>>;
};

/** Load, compile and partially evaluate. Never throws. */
export async function evaluatePartial(req: EvalRequest, io?: IO): Promise<PartialOutcome> {
  const metrics: Record<string, number> | undefined = req.metrics || req.instrument ? {} : undefined;
  try {
    const input = readInput(req, io);
    const timing = metrics ? await import('./eval-run.js') : undefined;
    const { loaded, policy } = timing ? await timing.loadAndCompileTimed(req, metrics!) : await loadAndCompile(req);
    const opts = {
      unknowns: req.unknowns && req.unknowns.length > 0 ? req.unknowns : ['input'],
      // shallow inlining (no rule depending on unknowns inlined) as `regent build -O 1` does it
      ...(req.disableInlining || req.shallowInlining ? { disableInlining: [...(req.disableInlining ?? []), ...(req.shallowInlining ? ['data'] : [])] } : {}),
      ...(req.nondeterministicBuiltins ? { nondeterministicBuiltins: true } : {}),
    };
    const run = {
      ...(input !== undefined ? { input } : {}),
      data: loaded.data,
      ...(req.timeoutMs !== undefined ? { deadline: Date.now() + req.timeoutMs } : {}),
    };
    const r = timing ? timing.partialEvalTimed(policy, req, opts, run, metrics!) : partialEval(policy, req.query, { ...opts, ...run });
    return { ok: true, queries: r.queries, support: r.support, ...(metrics ? { metrics } : {}) };
  } catch (error) {
    return { ok: false, error, ...(metrics ? { metrics } : {}) };
  }
}

async function loadAndCompile(req: EvalRequest) {
  const loaded = await loadForEval(req);
  return { loaded, policy: compile(loaded.modules, { v0Compatible: req.v0Compatible || loaded.v0, ...(req.strict ? { strict: true } : {}) }) };
}

/** `$_02` → `$02`, OPA's spelling of generated vars. */
function opaVar(t: Term): Term | undefined {
  return t.kind === 'var' && t.name.startsWith('$_') ? { ...t, name: '$' + t.name.slice(2) } : undefined;
}

/** A support module's Rego, generated vars renamed (tabs kept, one final newline). */
function moduleSource(m: Module): string {
  const rename = (t: Term): Term => mapTerm(t, opaVar);
  const rules = m.rules.map(function rn(r): Module['rules'][number] {
    const head = { ...r.head, ref: r.head.ref.map(rename), args: r.head.args?.map(rename), key: r.head.key && rename(r.head.key), value: r.head.value && rename(r.head.value) };
    return { ...r, head, body: mapBody(r.body, opaVar), else: r.else && rn(r.else) };
  });
  return formatModule({ ...m, rules }).replace(/\n*$/, '\n');
}

function moduleText(m: Module): string {
  return moduleSource(m).replace(/\t/g, '  ').trim();
}

function queryText(b: Body): string {
  if (b.length === 0) return 'true';
  return mapBody(b, opaVar)
    .map((e) => formatBody([e]))
    .join('\n');
}

/** Go tablewriter without a header, with row lines and left-aligned multi-line cells. */
function rowTable(rows: [string, string][]): string {
  const cells = rows.map(([a, b]) => [a.split('\n'), b.split('\n')] as const);
  const w0 = Math.max(...cells.map(([a]) => Math.max(...a.map((l) => l.length))));
  const w1 = Math.max(...cells.map(([, b]) => Math.max(...b.map((l) => l.length))));
  const rule = `+${'-'.repeat(w0 + 2)}+${'-'.repeat(w1 + 2)}+`;
  const out = [rule];
  for (const [a, b] of cells) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) out.push(`| ${(a[i] ?? '').padEnd(w0)} | ${(b[i] ?? '').padEnd(w1)} |`);
    out.push(rule);
  }
  return out.join('\n') + '\n';
}

/** `--format source`: each query and support module as Rego (see the header). */
function sourceText(queries: Body[], support: Module[]): string {
  const q = queries.map((b, i) => `# Query ${i + 1}\n${queryText(b)}\n\n`);
  const m = support.map((mod, i) => `# Module ${i + 1}\n${moduleSource(mod)}`);
  return q.join('') + m.join('');
}

/** A partial evaluation as text, errors included (the REPL's `unknown` mode prints this; no rows: ''). */
export function renderPartial(outcome: PartialOutcome, format: EvalRequest['format']): string {
  if (!outcome.ok) {
    const errs = toOutputErrors(outcome.error);
    if (format !== 'json') return errorsText(errs) + '\n';
    const timers = metricsMembers(outcome);
    return timers.length > 0 ? stringifyOpaJSON(Object.fromEntries([...timers, ['errors', errs]])) + '\n' : errorsJSON(errs) + '\n';
  }
  if (format === 'source') return sourceText(outcome.queries, outcome.support);
  if (format === 'pretty') {
    const rows: [string, string][] = [
      ...outcome.queries.map((q, i): [string, string] => [`Query ${i + 1}`, queryText(q)]),
      ...outcome.support.map((m, i): [string, string] => [`Support ${i + 1}`, moduleText(m)]),
    ];
    return rows.length === 0 ? '' : rowTable(rows);
  }
  const partial: Record<string, unknown> = {};
  if (outcome.queries.length > 0) partial.queries = outcome.queries.map((q) => bodyToJSON(q));
  if (outcome.support.length > 0) partial.modules = outcome.support.map((m) => moduleToJSON(m, { comments: false }));
  // OPA's Output struct: `metrics` (or `aggregated_metrics`) before `partial`.
  return stringifyOpaJSON(Object.fromEntries([...metricsMembers(outcome), ['partial', partial]])) + '\n';
}

/** The `metrics` or `aggregated_metrics` member of the JSON output, keys sorted (cli/eval-instrument.ts). */
function metricsMembers(outcome: PartialOutcome): [string, unknown][] {
  return jsonExtras({ ...(outcome.metrics ? { metrics: outcome.metrics } : {}), ...(outcome.aggregatedMetrics ? { aggregatedMetrics: outcome.aggregatedMetrics } : {}) }, 'before');
}

/** What `opa eval --partial` prints in `format`: errors on stderr unless json, `undefined` without queries (pretty). */
export function printPartial(outcome: PartialOutcome, format: EvalRequest['format']): { out: string; err: string } {
  // pretty: the metrics table after the residue (or after `undefined`, or alone when the errors go to stderr), as OPA's PrettyWithOptions
  const table = format !== 'pretty' ? '' : outcome.metrics ? prettyExtras({ metrics: outcome.metrics }) : outcome.aggregatedMetrics ? prettyExtras({ aggregatedMetrics: outcome.aggregatedMetrics }) : '';
  if (!outcome.ok && format !== 'json') return { out: table, err: renderPartial(outcome, format) };
  if (outcome.ok && format === 'pretty' && outcome.queries.length === 0) return { out: 'undefined\n' + table, err: '' };
  return { out: renderPartial(outcome, format) + table, err: '' };
}

/** `eval --partial`: returns the exit code (see the header). */
export async function partialCommand(req: EvalRequest, io: IO): Promise<number> {
  const outcome = await evaluatePartial(req, io);
  if (!outcome.ok && (outcome.error instanceof InputError || outcome.error instanceof EvalSetupError)) {
    io.err(outcome.error.message + '\n');
    return 2;
  }
  const runs = [outcome];
  for (let i = 1; i < (req.count ?? 1); i++) runs.push(await evaluatePartial(req, io));
  // --count N > 1: the timers of all N runs as aggregated_metrics, as opa eval aggregates them.
  const shown: PartialOutcome = runs.length > 1 && outcome.metrics ? { ...outcome, metrics: undefined, aggregatedMetrics: aggregateMetrics(runs.map((r) => r.metrics)) } : outcome;
  const printed = printPartial(shown, req.format);
  io.out(printed.out);
  if (printed.err) io.err(printed.err);
  if (!outcome.ok) return 2; // opa eval: errors exit 2
  // opa eval counts only `result` rows as defined, and a partial evaluation has none
  if (req.fail) return 1;
  return 0;
}
