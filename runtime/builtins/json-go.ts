// A JSON syntax checker that reports errors with Go's encoding/json wording
// ("invalid character 'x' looking for beginning of value", "unexpected end of
// JSON input", …), as OPA surfaces them from json.unmarshal. Iterative, with
// Go's maximum nesting depth of 10000.
import { JSONSyntaxError } from '../value/json-parse.js';
import { parseJSON } from '../value/json.js';
import type { Value } from '../value/value.js';

const MAX_DEPTH = 10000;

/** Go's quoteChar: the offending character in single quotes. */
function quoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  const q = JSON.stringify(c);
  return `'${q.slice(1, -1)}'`;
}

const isWS = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);

export interface ScanResult {
  /** Index just past the first complete value (when no error). */
  end: number;
  /** Go's error text for a syntax error, or undefined. */
  error?: string;
  /** True when the input ended in the middle of a value. */
  eof?: boolean;
}

/** Scan one JSON value starting at `i` (leading whitespace allowed). */
export function scanValue(text: string, i: number): ScanResult {
  const stack: ('obj' | 'arr')[] = [];
  const bad = (at: number, ctx: string): ScanResult => ({ end: at, error: `invalid character ${quoteChar(text[at]!)} ${ctx}` });
  const eof = (): ScanResult => ({ end: text.length, eof: true, error: 'unexpected end of JSON input' });
  const ws = () => {
    while (isWS(text[i])) i++;
  };
  for (;;) {
    // Expect a value.
    ws();
    if (i >= text.length) return eof();
    let c = text[i]!;
    if (c === '{' || c === '[') {
      if (stack.length >= MAX_DEPTH) return { end: i, error: 'exceeded max depth' };
      stack.push(c === '{' ? 'obj' : 'arr');
      i++;
      ws();
      if (i >= text.length) return eof();
      if (c === '[') {
        if (text[i] === ']') {
          stack.pop();
          i++;
        } else continue;
      } else if (text[i] === '}') {
        stack.pop();
        i++;
      } else {
        if (text[i] !== '"') return bad(i, 'looking for beginning of object key string');
        const r = scanKeyColon();
        if (r) return r;
        continue;
      }
    } else if (c === '"') {
      const r = scanString();
      if (r) return r;
    } else if (c === '-' || isDigit(c)) {
      const r = scanNumber();
      if (r) return r;
    } else if (c === 't' || c === 'f' || c === 'n') {
      const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
      for (let k = 1; k < word.length; k++) {
        if (i + k >= text.length) return eof();
        if (text[i + k] !== word[k]) return bad(i + k, `in literal ${word} (expecting ${quoteChar(word[k]!)})`);
      }
      i += word.length;
    } else {
      return bad(i, 'looking for beginning of value');
    }
    // After a value: close containers or continue with the next element.
    for (;;) {
      if (stack.length === 0) return { end: i };
      ws();
      if (i >= text.length) return eof();
      c = text[i]!;
      const top = stack[stack.length - 1]!;
      if (c === ',') {
        i++;
        if (top === 'obj') {
          ws();
          if (i >= text.length) return eof();
          if (text[i] !== '"') return bad(i, 'looking for beginning of object key string');
          const r = scanKeyColon();
          if (r) return r;
        }
        break;
      }
      if ((top === 'obj' && c === '}') || (top === 'arr' && c === ']')) {
        stack.pop();
        i++;
        continue;
      }
      return bad(i, top === 'obj' ? 'after object key:value pair' : 'after array element');
    }
  }

  function scanKeyColon(): ScanResult | undefined {
    const r = scanString();
    if (r) return r;
    ws();
    if (i >= text.length) return eof();
    if (text[i] !== ':') return bad(i, 'after object key');
    i++;
    return undefined;
  }

  function scanString(): ScanResult | undefined {
    i++;
    for (;;) {
      if (i >= text.length) return eof();
      const ch = text[i]!;
      if (ch === '"') {
        i++;
        return undefined;
      }
      if (ch === '\\') {
        i++;
        if (i >= text.length) return eof();
        const e = text[i]!;
        if (e === 'u') {
          for (let k = 1; k <= 4; k++) {
            if (i + k >= text.length) return eof();
            if (!isHex(text[i + k])) return bad(i + k, 'in \\u hexadecimal character escape');
          }
          i += 5;
        } else if ('"\\/bfnrt'.includes(e)) i++;
        else return bad(i, 'in string escape code');
      } else if (ch.charCodeAt(0) < 0x20) {
        return bad(i, 'in string literal');
      } else i++;
    }
  }

  function scanNumber(): ScanResult | undefined {
    if (text[i] === '-') {
      i++;
      if (i >= text.length) return eof();
      if (!isDigit(text[i])) return bad(i, 'in numeric literal');
    }
    if (text[i] === '0') i++;
    else while (isDigit(text[i])) i++;
    if (text[i] === '.') {
      i++;
      if (i >= text.length) return eof();
      if (!isDigit(text[i])) return bad(i, 'after decimal point in numeric literal');
      while (isDigit(text[i])) i++;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (i >= text.length) return eof();
      if (!isDigit(text[i])) return bad(i, 'in exponent of numeric literal');
      while (isDigit(text[i])) i++;
    }
    // A top-level number needs input to tell where it ends: Go reports EOF only
    // mid-literal, so reaching the end here is fine.
    return undefined;
  }
}

/** Go's json.Valid: exactly one value, optionally surrounded by whitespace. */
export function isValidJSON(text: string): boolean {
  const r = scanValue(text, 0);
  if (r.error !== undefined) return false;
  let i = r.end;
  while (isWS(text[i])) i++;
  return i === text.length;
}

/** The error OPA's util.UnmarshalJSON gives for `text`, or undefined if it parses. */
export function unmarshalError(text: string): string | undefined {
  let i = 0;
  while (isWS(text[i])) i++;
  if (i >= text.length) return 'EOF';
  const r = scanValue(text, i);
  if (r.eof) return 'unexpected EOF';
  if (r.error !== undefined) return r.error;
  let j = r.end;
  // Go's decoder needs a delimiter after a top-level scalar (objects and arrays end at once).
  if (j < text.length && !isWS(text[j]) && text[i] !== '{' && text[i] !== '[') {
    return `invalid character ${quoteChar(text[j]!)} after top-level value`;
  }
  while (isWS(text[j])) j++;
  if (j >= text.length) return undefined;
  // decoder.Token() on the rest: a value start yields a token, anything else an error.
  const c = text[j]!;
  if (c === '{' || c === '[') return `error: invalid character '${c}' after top-level value`;
  const next = scanValue(text, j);
  if (next.error !== undefined && !next.eof) return next.error;
  const tokText = text.slice(j, next.eof ? text.length : next.end);
  if (c === '"') return next.eof ? 'unexpected EOF' : `error: invalid character '${JSON.parse(tokText) as string}' after top-level value`;
  if (tokText === 'null') return undefined;
  if (tokText === 'true' || tokText === 'false') return `error: invalid character '%!s(bool=${tokText})' after top-level value`;
  return next.eof ? 'unexpected EOF' : `error: invalid character '${tokText}' after top-level value`;
}

/** Parse the first JSON value of `text` exactly (big numbers kept), as OPA's json.unmarshal. */
export function unmarshalJSON(text: string): Value {
  let i = 0;
  while (isWS(text[i])) i++;
  const r = scanValue(text, i);
  try {
    return parseJSON(text.slice(i, r.end));
  } catch (e) {
    if (e instanceof JSONSyntaxError || e instanceof SyntaxError) throw new Error(`invalid JSON: ${e.message}`);
    throw e;
  }
}
