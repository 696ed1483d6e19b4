// How `regent eval` prints an outcome in each --format, as OPA's presentation
// package does (internal/presentation): what goes to stdout and what to stderr.
//   json      the Output object on stdout, members in current OPA's field order:
//             metrics, aggregated_metrics, coverage, errors, result, explanation,
//             profile, aggregated_profile (cli/eval-instrument.ts); `{}` when
//             undefined.
//   values    per result row, the JSON array of its expression values (indented as
//             Go's encoder with SetIndent("", "  ")), one document after another.
//   bindings  per result row, the JSON object of its bindings (`{}` without any).
//   raw       per row, the expression values separated by spaces, strings unquoted.
//   pretty    the trace (--explain), then `undefined`, the single value or the table
//             of bindings and values, then the metrics/profile/coverage tables.
//   discard   the json output re-encoded as Go's json.Marshal of a map: keys sorted at
//             every level, numbers as float64, and a non-nil `result` replaced by
//             "discarded" (so `{"result": "discarded"}`, or the errors, or `{}`).
//   source    partial evaluation only (cli/eval-partial.ts).
// Errors: in the output for json and discard; on stderr for the others (OPA v1.9+,
// `N error(s) occurred: …`), after any trace and before any metrics tables. Errors
// collected by --show-builtin-errors come after the evaluation's own; json prints them
// next to the result (`errors` first), the other formats print them instead of it.
import type { ResultRow } from '../compiler/api.js';
import type { Value } from '../runtime/value/index.js';
import { errorsText, resultPretty, resultRaw, resultRows, toJSON, toOutputErrors, type OutputError } from './output.js';
import { jsonExtras, prettyExtras, type Extras } from './eval-instrument.js';
import type { EvalFormat } from './eval-flags.js';

/** Text for stdout and for stderr. */
export interface Rendered {
  out: string;
  err: string;
}

/** What to render: rows or an error, the trace already rendered, and the instrumentation extras. */
export interface RenderInput {
  rows?: ResultRow[];
  error?: unknown;
  /** The explanation as pretty text, and as the JSON array text (indented one level). */
  trace?: { pretty: string; json: string };
  extras?: Extras;
  /** --show-builtin-errors: errors evaluation treated as undefined, reported after `error`'s. */
  builtinErrors?: unknown[];
}

/** `--format values`: each row's expression values as an indented JSON array. */
export function resultValues(rows: ResultRow[]): string {
  return rows.map((r) => toJSON(r.expressions.map((e) => e.value)) + '\n').join('');
}

/** `--format bindings`: each row's bindings (sorted by name) as an indented JSON object. */
export function resultBindings(rows: ResultRow[]): string {
  return rows.map((r) => toJSON(Object.fromEntries(Object.keys(r.bindings).sort().map((k): [string, Value] => [k, r.bindings[k]!]))) + '\n').join('');
}

/** A JSON document as Go re-encodes it after unmarshalling into `any`: map keys sorted. */
function goMapOrder(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(goMapOrder);
  if (x !== null && typeof x === 'object') {
    const o = x as Record<string, unknown>;
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, goMapOrder(o[k])]));
  }
  return x;
}

/** `--format discard` from the json output (see the header). */
export function discardText(jsonText: string): string {
  const doc = JSON.parse(jsonText) as Record<string, unknown>;
  if (doc.result !== undefined && doc.result !== null) doc.result = 'discarded';
  return toJSON(goMapOrder(doc)) + '\n';
}

/**
 * The json output: one object whose members follow current OPA's Output struct
 * (internal/presentation): metrics, aggregated_metrics, coverage, errors, result,
 * explanation, profile, aggregated_profile; `{}` when none is present.
 */
function renderJSON(input: RenderInput, errs: OutputError[] | undefined): string {
  const x = input.extras ?? {};
  const at = (v: unknown): string => toJSON(v, '  ', '  ');
  const rows = input.rows ?? [];
  const members: [string, string | undefined][] = [
    ...jsonExtras(x, 'before').map(([k, v]): [string, string] => [k, at(v)]),
    ['errors', errs ? at(errs) : undefined],
    ['result', rows.length > 0 ? at(resultRows(rows)) : undefined],
    ['explanation', input.trace?.json],
    ...jsonExtras(x, 'after').map(([k, v]): [string, string] => [k, at(v)]),
  ];
  const present = members.filter((m): m is [string, string] => m[1] !== undefined);
  if (present.length === 0) return '{}\n';
  return `{\n${present.map(([k, text]) => `  ${JSON.stringify(k)}: ${text}`).join(',\n')}\n}\n`;
}

/** Render an evaluation outcome in `format` (not `source`: that is partial evaluation's). */
export function renderOutcome(input: RenderInput, format: EvalFormat): Rendered {
  const all = [...(input.error !== undefined ? toOutputErrors(input.error) : []), ...(input.builtinErrors ?? []).flatMap(toOutputErrors)];
  const errs = all.length > 0 ? all : undefined;
  const rows = input.rows ?? [];
  const errText = errs ? errorsText(errs) + '\n' : '';
  switch (format) {
    case 'json':
      return { out: renderJSON(input, errs), err: '' };
    case 'discard':
      return { out: discardText(renderJSON(input, errs)), err: '' };
    case 'pretty': {
      const trace = input.trace?.pretty ?? '';
      const result = errs ? '' : resultPretty(rows);
      return { out: trace + result + (input.extras ? prettyExtras(input.extras) : ''), err: errText };
    }
    case 'values':
      return { out: errs ? '' : resultValues(rows), err: errText };
    case 'bindings':
      return { out: errs ? '' : resultBindings(rows), err: errText };
    case 'raw':
    case 'source':
      return { out: errs ? '' : resultRaw(rows), err: errText };
  }
}
