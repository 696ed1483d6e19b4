// Text as the reference control plane (Go, OPA) prints it, for byte-identical
// bundle files, messages and warnings:
//   goJSON       encoding/json Encoder: map keys sorted, `<`, `>`, `&`, U+2028 and
//                U+2029 escaped as \u003c…, compact; the Encoder's trailing "\n"
//                is added by the callers that write files.
//   goList       fmt's %v of a []string: `[a b c]`.
//   regoErrors   OPA's ast.Errors.Error(): `1 error occurred: f:row: code: msg`,
//                or `N errors occurred:` followed by one error per line; error
//                details (source line and caret, have/want) follow as "\n\t" lines.
import { RegoErrors } from '../../../compiler/index.js';

const HTML = /[<>&\u2028\u2029]/g;

/** Compact JSON with sorted object keys and Go's HTML escaping. */
export function goJSON(v: unknown): string {
  return canonical(v).replace(HTML, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

function canonical(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).sort((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b))));
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonical(o[k])).join(',') + '}';
  }
  return JSON.stringify(v);
}

/** fmt.Sprintf("%v", []string{...}). */
export function goList(items: readonly string[]): string {
  return '[' + items.join(' ') + ']';
}

export interface ErrorLike {
  code?: string;
  message: string;
  location?: { file?: string; row: number; col: number };
  details?: string[];
}

/** One OPA error: `file:row: code: message` (`row:col:` without a file), then detail lines. */
export function regoErrorLine(e: ErrorLike): string {
  const l = e.location;
  const prefix = l ? (l.file ? `${l.file}:${l.row}` : `${l.row}:${l.col}`) : '';
  let msg = `${e.code ? e.code + ': ' : ''}${e.message}`;
  if (prefix) msg = `${prefix}: ${msg}`;
  for (const d of e.details ?? []) msg += `\n\t${d}`;
  return msg;
}

/** OPA's ast.Errors.Error(). */
export function regoErrorsText(errs: readonly ErrorLike[]): string {
  if (errs.length === 0) return 'no error(s)';
  if (errs.length === 1) return `1 error occurred: ${regoErrorLine(errs[0]!)}`;
  return `${errs.length} errors occurred:\n${errs.map(regoErrorLine).join('\n')}`;
}

/** Our compiler's errors as OPA prints them; `file` rewrites each location's file name. */
export function formatRegoErrors(e: RegoErrors, file?: (f: string) => string): string {
  return regoErrorsText(
    e.errors.map((x) => ({
      code: x.code,
      message: x.message,
      location: x.location ? { file: file ? file(x.location.file) : x.location.file, row: x.location.row, col: x.location.col } : undefined,
      details: detailLines(x.details),
    })),
  );
}

function detailLines(d: unknown): string[] | undefined {
  if (Array.isArray(d) && d.every((x) => typeof x === 'string')) return d as string[];
  if (d && typeof d === 'object' && Array.isArray((d as { lines?: unknown }).lines)) return (d as { lines: string[] }).lines;
  return undefined;
}
