// Text as the reference control plane (Go, OPA) prints it, for byte-identical
// bundle files, messages and warnings:
//   goJSON       encoding/json Encoder: map keys sorted, `<`, `>`, `&`, U+2028 and
//                U+2029 escaped as \u003c…, compact; the Encoder's trailing "\n"
//                is added by the callers that write files.
//   goList       fmt's %v of a []string: `[a b c]`.
//   parseJSONExact  JSON with numbers kept as their text (JSONNumber), as OPA
//                reads data files (json.Number), so `1.0`, `1e3` and integers
//                beyond 2^53 reach data.json unchanged.
//   regoErrors   OPA's ast.Errors.Error(): `1 error occurred: f:row: code: msg`,
//                or `N errors occurred:` followed by one error per line; error
//                details (source line and caret, have/want) follow as "\n\t" lines.
//   regoErrorDetails  the same errors as {file,row,col,code,message} records,
//                stored beside the status record (Regent extension).
import { RegoErrors, hasDetailLines } from '../../../compiler/index.js';
import type { StatusError } from '../contract.js';

const HTML = /[<>&\u2028\u2029]/g;

/** Compact JSON with sorted object keys and Go's HTML escaping. */
export function goJSON(v: unknown): string {
  return canonical(v).replace(HTML, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** A JSON number kept as written. */
export class JSONNumber {
  constructor(readonly text: string) {}
}

function canonical(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof JSONNumber) return v.text;
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    // Go sorts keys by their UTF-8 bytes; UTF-16 order agrees below U+D800.
    const keys = Object.keys(o);
    if (keys.some((k) => /[\ud800-\uffff]/.test(k))) keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    else keys.sort();
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonical(o[k])).join(',') + '}';
  }
  return JSON.stringify(v);
}

const STRING = /"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Parse JSON, numbers as JSONNumber; invalid input throws JSON.parse's error. */
export function parseJSONExact(text: string): unknown {
  let i = 0;
  const fail = (): never => {
    JSON.parse(text); // the standard message for the same input
    throw new SyntaxError(`Unexpected token in JSON at position ${i}`);
  };
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const str = (): string => {
    STRING.lastIndex = i;
    const m = STRING.exec(text);
    if (!m) return fail();
    i += m[0].length;
    return m[0].includes('\\') ? (JSON.parse(m[0]) as string) : m[0].slice(1, -1);
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o: Record<string, unknown> = {};
      ws();
      if (text[i] === '}') return i++, o;
      for (;;) {
        ws();
        const k = str();
        ws();
        if (text[i++] !== ':') fail();
        Object.defineProperty(o, k, { value: value(), enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ',') i++;
        else if (text[i++] === '}') return o;
        else fail();
      }
    }
    if (c === '[') {
      i++;
      const a: unknown[] = [];
      ws();
      if (text[i] === ']') return i++, a;
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i++] === ']') return a;
        else fail();
      }
    }
    if (c === '"') return str();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, i)) return (i += word.length), v;
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return fail();
    i += m[0].length;
    return new JSONNumber(m[0]);
  };
  const v = value();
  ws();
  if (i !== text.length) fail();
  return v;
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

/** Our compiler's errors as located records (file, row, col, code, message); `file` as in formatRegoErrors. */
export function regoErrorDetails(e: RegoErrors, file?: (f: string) => string): StatusError[] {
  return e.errors.map((x) => ({
    file: x.location ? (file ? file(x.location.file) : x.location.file) : '',
    row: x.location?.row ?? 0,
    col: x.location?.col ?? 0,
    code: x.code ?? '',
    message: x.message,
  }));
}

function detailLines(d: unknown): string[] | undefined {
  if (hasDetailLines(d)) return d.detailLines();
  if (Array.isArray(d) && d.every((x) => typeof x === 'string')) return d as string[];
  if (d && typeof d === 'object' && Array.isArray((d as { lines?: unknown }).lines)) return (d as { lines: string[] }).lines;
  return undefined;
}
