// `regent eval --partial [-u REF]... <query>`: partial evaluation, printed as
// `opa eval --partial` prints it.
//   json   {"partial": {"queries": [[expr…]…], "modules": [module…]}} (OPA's
//          rego.PartialQueries: support modules under `modules`; empty keys left
//          out, so a query that can never be true prints {"partial": {}})
//   pretty a table with a row per residual query (`Query 1`) and per support
//          module (`Support 1`), each cell the formatted Rego (tabs as two spaces),
//          rows separated by rules as Go's tablewriter draws them with row lines.
// Unknowns default to `input` (as OPA's `-u` default). Generated vars (`$_02`) print
// as OPA names them (`$02`).
import type { Body, Module, Term } from '../compiler/index.js';
import { bodyToJSON, compile, formatModule, mapBody, mapTerm, moduleToJSON, partialEval, stringifyOpaJSON } from '../compiler/index.js';
import { formatBody } from '../compiler/ast/print.js';
import { loadAll } from './loader.js';
import { errorsJSON, errorsText, toOutputErrors, type IO } from './output.js';
import type { EvalRequest } from './eval.js';
import { readInput } from './eval.js';

export type PartialOutcome = { ok: true; queries: Body[]; support: Module[] } | { ok: false; error: unknown };

/** Load, compile and partially evaluate. Never throws. */
export async function evaluatePartial(req: EvalRequest, io?: IO): Promise<PartialOutcome> {
  try {
    const input = readInput(req, io);
    const loaded = await loadAll(req.data, req.bundles, { v0Compatible: req.v0Compatible });
    const policy = compile(loaded.modules, { v0Compatible: req.v0Compatible || loaded.v0 });
    const r = partialEval(policy, req.query, {
      unknowns: req.unknowns && req.unknowns.length > 0 ? req.unknowns : ['input'],
      ...(input !== undefined ? { input } : {}),
      data: loaded.data,
      ...(req.timeoutMs !== undefined ? { deadline: Date.now() + req.timeoutMs } : {}),
    });
    return { ok: true, queries: r.queries, support: r.support };
  } catch (error) {
    return { ok: false, error };
  }
}

/** `$_02` → `$02`, OPA's spelling of generated vars. */
function opaVar(t: Term): Term | undefined {
  return t.kind === 'var' && t.name.startsWith('$_') ? { ...t, name: '$' + t.name.slice(2) } : undefined;
}

function moduleText(m: Module): string {
  const rename = (t: Term): Term => mapTerm(t, opaVar);
  const rules = m.rules.map(function rn(r): Module['rules'][number] {
    const head = { ...r.head, ref: r.head.ref.map(rename), args: r.head.args?.map(rename), key: r.head.key && rename(r.head.key), value: r.head.value && rename(r.head.value) };
    return { ...r, head, body: mapBody(r.body, opaVar), else: r.else && rn(r.else) };
  });
  return formatModule({ ...m, rules }).replace(/\t/g, '  ').trim();
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

export function renderPartial(outcome: PartialOutcome, format: EvalRequest['format']): string {
  if (!outcome.ok) {
    const errs = toOutputErrors(outcome.error);
    return format === 'json' ? errorsJSON(errs) + '\n' : errorsText(errs) + '\n';
  }
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
  return stringifyOpaJSON({ partial }) + '\n';
}

/** `eval --partial`: returns the exit code (1 on errors; with --fail, 1 when no query can be true). */
export async function partialCommand(req: EvalRequest, io: IO): Promise<number> {
  const outcome = await evaluatePartial(req, io);
  io.out(renderPartial(outcome, req.format));
  if (!outcome.ok) return 1;
  const defined = outcome.queries.length > 0;
  if (req.fail && !defined) return 1;
  if (req.failDefined && defined) return 1;
  return 0;
}
