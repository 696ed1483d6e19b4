// Output helpers shared by the CLI commands: a JSON writer that prints Rego values
// and plain JS objects the way OPA's Go encoder does (2-space indent, exact numbers,
// sets as sorted arrays, object keys of RObjects sorted, `<`, `>`, `&` escaped),
// error normalisation and OPA's error texts, and the pretty/raw result formats.
import { RegoError, RegoErrors, EvalError } from '../compiler/index.js';
import type { ResultRow } from '../compiler/api.js';
import { BigNum, RObject, RSet, formatNumber, toJSONText, type Value } from '../runtime/value/index.js';

/** Where command output goes. Tests pass buffers; the binary passes process streams. */
export interface IO {
  out(text: string): void;
  err(text: string): void;
  /** Read all of stdin (for --stdin-input). */
  stdin?(): string;
}

// ---------------------------------------------------------------- JSON

/** Quote a string as Go's encoding/json does (HTML-safe). */
export function quote(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/**
 * JSON text of `x`: Values (RObject, RSet, BigNum, arrays, scalars) and plain JS
 * objects (printed in insertion order). `indent` '' gives compact output.
 */
export function toJSON(x: unknown, indent = '  ', cur = ''): string {
  if (x === null || x === undefined) return 'null';
  if (typeof x === 'boolean') return x ? 'true' : 'false';
  if (typeof x === 'number') return Number.isFinite(x) ? formatNumber(x) : 'null';
  if (typeof x === 'bigint') return x.toString();
  if (typeof x === 'string') return quote(x);
  if (x instanceof BigNum) return formatNumber(x);
  const inner = cur + indent;
  const nl = indent ? '\n' : '';
  const sep = indent ? ': ' : ':';
  const list = (items: string[], open: string, close: string): string =>
    items.length === 0 ? open + close : open + nl + items.map((s) => inner + s).join(',' + nl) + nl + cur + close;
  if (Array.isArray(x)) return list(x.map((v) => toJSON(v, indent, inner)), '[', ']');
  if (x instanceof RSet) return list(x.values().map((v) => toJSON(v, indent, inner)), '[', ']');
  if (x instanceof RObject) {
    const entries = x.entries().map(([k, v]) => [typeof k === 'string' ? k : toJSONText(k), v] as const);
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return list(entries.map(([k, v]) => quote(k) + sep + toJSON(v, indent, inner)), '{', '}');
  }
  if (typeof x === 'object') {
    const entries = Object.entries(x as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return list(entries.map(([k, v]) => quote(k) + sep + toJSON(v, indent, inner)), '{', '}');
  }
  return 'null';
}

// ---------------------------------------------------------------- errors

/** One error as OPA's JSON output shows it. */
export interface OutputError {
  message: string;
  code?: string;
  location?: { file: string; row: number; col: number };
}

/** Flatten anything thrown into OPA-style errors. */
export function toOutputErrors(e: unknown): OutputError[] {
  if (e instanceof RegoErrors) return e.errors.flatMap(toOutputErrors);
  if (e instanceof RegoError || e instanceof EvalError) {
    const l = e.location;
    return [{ message: e.message, code: e.code, ...(l ? { location: { file: l.file, row: l.row, col: l.col } } : {}) }];
  }
  if (e && typeof e === 'object' && Array.isArray((e as { errors?: unknown }).errors))
    return ((e as { errors: unknown[] }).errors).flatMap(toOutputErrors);
  if (e && typeof e === 'object' && typeof (e as { code?: unknown }).code === 'string' && /^(rego|eval)_/.test((e as { code: string }).code)) {
    const o = e as { code: string; message?: string; location?: { file: string; row: number; col: number } };
    const l = o.location;
    return [{ message: String(o.message ?? ''), code: o.code, ...(l ? { location: { file: l.file, row: l.row, col: l.col } } : {}) }];
  }
  return [{ message: e instanceof Error ? e.message : String(e) }];
}

/** `file:row: code: message`, as OPA prints one error. */
export function errorLine(e: OutputError): string {
  const l = e.location;
  const prefix = l ? `${l.file ? l.file + ':' : ''}${l.row}: ` : '';
  return `${prefix}${e.code ? e.code + ': ' : ''}${e.message}`;
}

/** OPA's Errors.Error(): `1 error occurred: …` or `N errors occurred:` + lines. */
export function errorsText(errs: OutputError[]): string {
  if (errs.length === 1) return `1 error occurred: ${errorLine(errs[0]!)}`;
  return `${errs.length} errors occurred:\n${errs.map(errorLine).join('\n')}`;
}

export function errorsJSON(errs: OutputError[]): string {
  return toJSON({ errors: errs });
}

// ---------------------------------------------------------------- results

/** `opa eval --format json` output of a result set. */
export function resultJSON(rows: ResultRow[]): string {
  if (rows.length === 0) return '{}';
  return toJSON({
    result: rows.map((r) => ({
      expressions: r.expressions.map((e) => ({ value: e.value, text: e.text, location: { row: e.location.row, col: e.location.col } })),
      ...(Object.keys(r.bindings).length > 0 ? { bindings: sortedBindings(r.bindings) } : {}),
    })),
  });
}

function sortedBindings(b: Record<string, Value>): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const k of Object.keys(b).sort()) out[k] = b[k]!;
  return out;
}

/** `--format raw`: per row, expression values separated by spaces; strings unquoted. */
export function resultRaw(rows: ResultRow[]): string {
  return rows.map((r) => r.expressions.map((e) => (typeof e.value === 'string' ? e.value : toJSON(e.value, ''))).join(' ') + '\n').join('');
}

/**
 * `--format pretty`: `undefined`; a single value as indented JSON; otherwise a table
 * of the bindings (sorted by name) and the non-boolean expressions.
 */
export function resultPretty(rows: ResultRow[]): string {
  if (rows.length === 0) return 'undefined\n';
  const first = rows[0]!;
  if (rows.length === 1 && Object.keys(first.bindings).length === 0) {
    if (first.expressions.length === 1 || first.expressions.every((e) => typeof e.value === 'boolean'))
      return toJSON(first.expressions[0]!.value) + '\n';
  }
  const vars = Object.keys(first.bindings).sort();
  const exprCols = first.expressions.map((e, i) => ({ e, i })).filter(({ e }) => typeof e.value !== 'boolean');
  const header = [...vars, ...exprCols.map(({ e }) => e.text)];
  if (header.length === 0) return '';
  const body = rows.map((r) => [
    ...vars.map((v) => toJSON(r.bindings[v] ?? null, '')),
    ...exprCols.map(({ i }) => toJSON(r.expressions[i]?.value ?? null, '')),
  ]);
  return table(header, body);
}

/** A bordered table like Go's tablewriter: centred header, left-aligned cells. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const rule = '+' + widths.map((w) => '-'.repeat(w + 2)).join('+') + '+';
  const center = (s: string, w: number): string => {
    const left = Math.floor((w - s.length) / 2);
    return ' '.repeat(left) + s + ' '.repeat(w - s.length - left);
  };
  const line = (cells: string[], fmt: (s: string, w: number) => string): string =>
    '| ' + widths.map((w, i) => fmt(cells[i] ?? '', w)).join(' | ') + ' |';
  return [rule, line(header, center), rule, ...rows.map((r) => line(r, (s, w) => s.padEnd(w))), rule].join('\n') + '\n';
}
