// Output helpers shared by the CLI commands: a JSON writer that prints Rego values
// and plain JS objects the way OPA's Go encoder does (2-space indent, exact numbers,
// sets as sorted arrays, object keys of RObjects sorted, `<`, `>`, `&` escaped),
// error normalisation and OPA's error texts, and the pretty/raw result formats.
import { RegoError, RegoErrors, hasDetailLines, type ErrorDetails } from '../compiler/source/diagnostics.js';
import { EvalError } from '../compiler/eval/errors.js';
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

/** The text of a scalar, or undefined for arrays, sets and objects. */
function scalarJSON(x: unknown): string | undefined {
  if (x === null || x === undefined) return 'null';
  if (typeof x === 'boolean') return x ? 'true' : 'false';
  if (typeof x === 'number') return Number.isFinite(x) ? formatNumber(x) : 'null';
  if (typeof x === 'bigint') return x.toString();
  if (typeof x === 'string') return quote(x);
  if (x instanceof BigNum) return formatNumber(x);
  if (typeof x !== 'object') return 'null';
  return undefined;
}

/** The members of a composite: brackets and (key prefix, value) pairs, object keys sorted for RObjects. */
function members(x: object, sep: string): { open: string; close: string; items: [string, unknown][] } {
  if (Array.isArray(x)) return { open: '[', close: ']', items: x.map((v) => ['', v]) };
  if (x instanceof RSet) return { open: '[', close: ']', items: x.values().map((v) => ['', v]) };
  if (x instanceof RObject) {
    const entries = x.entries().map(([k, v]) => [typeof k === 'string' ? k : toJSONText(k), v] as const);
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return { open: '{', close: '}', items: entries.map(([k, v]) => [quote(k) + sep, v]) };
  }
  const entries = Object.entries(x as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return { open: '{', close: '}', items: entries.map(([k, v]) => [quote(k) + sep, v]) };
}

/**
 * JSON text of `x`: Values (RObject, RSet, BigNum, arrays, scalars) and plain JS
 * objects (printed in insertion order). `indent` '' gives compact output. Documents
 * nested too deeply for the recursive writer go through an explicit stack.
 */
export function toJSON(x: unknown, indent = '  ', cur = ''): string {
  try {
    return toJSONRec(x, indent, cur, 0);
  } catch (e) {
    if (e === TOO_DEEP || e instanceof RangeError) return toJSONDeep(x, indent, cur);
    throw e;
  }
}

/**
 * Nesting past which the recursive writer hands over to the explicit stack. Decided
 * by depth, not only by catching the stack overflow: an overflow can surface as
 * another error (under a test runner's module proxies, an import read as undefined).
 */
const MAX_RECURSIVE_DEPTH = 1000;
const TOO_DEEP = Symbol('too deep');

function toJSONRec(x: unknown, indent: string, cur: string, depth: number): string {
  const scalar = scalarJSON(x);
  if (scalar !== undefined) return scalar;
  if (depth > MAX_RECURSIVE_DEPTH) throw TOO_DEEP;
  const { open, close, items } = members(x as object, indent ? ': ' : ':');
  if (items.length === 0) return open + close;
  const inner = cur + indent;
  const nl = indent ? '\n' : '';
  return open + nl + items.map(([p, v]) => inner + p + toJSONRec(v, indent, inner, depth + 1)).join(',' + nl) + nl + cur + close;
}

/** toJSON with an explicit stack instead of recursion (exported for tests). */
export function toJSONDeep(x: unknown, indent: string, cur: string): string {
  const nl = indent ? '\n' : '';
  const sep = indent ? ': ' : ':';
  const out: string[] = [];
  const stack: { items: [string, unknown][]; i: number; cur: string; close: string }[] = [];
  const write = (v: unknown, at: string): void => {
    const scalar = scalarJSON(v);
    if (scalar !== undefined) return void out.push(scalar);
    const m = members(v as object, sep);
    if (m.items.length === 0) return void out.push(m.open + m.close);
    out.push(m.open + nl);
    stack.push({ items: m.items, i: 0, cur: at, close: m.close });
  };
  write(x, cur);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.i === top.items.length) {
      out.push(nl + top.cur + top.close);
      stack.pop();
      continue;
    }
    const [prefix, v] = top.items[top.i]!;
    if (top.i++ > 0) out.push(',' + nl);
    out.push(top.cur + indent + prefix);
    write(v, top.cur + indent);
  }
  return out.join('');
}

// ---------------------------------------------------------------- errors

/** One error as OPA's JSON output shows it. */
export interface OutputError {
  message: string;
  code?: string;
  location?: { file: string; row: number; col: number };
  /** OPA's error details (a parse error's source line and caret, a type error's types). */
  details?: ErrorDetails;
}

/** Flatten anything thrown into OPA-style errors. */
export function toOutputErrors(e: unknown): OutputError[] {
  if (e instanceof RegoErrors) return e.errors.flatMap(toOutputErrors);
  if (e instanceof RegoError || e instanceof EvalError) {
    const l = e.location;
    const d = e instanceof RegoError && e.details ? { details: e.details } : {};
    return [{ message: e.message, code: e.code, ...(l ? { location: { file: l.file, row: l.row, col: l.col } } : {}), ...d }];
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
  // As ast.Error.Error(): `file:row`, or `row:col` when there is no file (a query).
  const prefix = l ? (l.file ? `${l.file}:${l.row}: ` : `${l.row}:${l.col}: `) : '';
  const d = e.details;
  const lines = (hasDetailLines(d) ? d.detailLines() : []).map((x) => '\n\t' + x).join('');
  return `${prefix}${e.code ? e.code + ': ' : ''}${e.message}${lines}`;
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
  return toJSON({ result: resultRows(rows) });
}

/** The `result` member's value: each row's expressions and its bindings (sorted by name). */
export function resultRows(rows: ResultRow[]): unknown[] {
  return rows.map((r) => ({
    expressions: r.expressions.map((e) => ({ value: e.value, text: e.text, location: { row: e.location.row, col: e.location.col } })),
    ...(Object.keys(r.bindings).length > 0 ? { bindings: sortedBindings(r.bindings) } : {}),
  }));
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
