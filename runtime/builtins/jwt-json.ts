// JSON helpers that mimic Go's encoding/json where JWT builtins expose it: the
// syntax error messages of json.Unmarshal ("invalid character 'x' looking for
// beginning of value", "unexpected end of JSON input") and json.Marshal's output
// (sorted keys, HTML-safe escaping).
import { parseJSON, toJSONText, type Value } from '../value/index.js';

function quoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  const code = c.codePointAt(0)!;
  if (code < 0x20 || code === 0x7f) {
    const esc: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };
    return `'${esc[code] ?? '\\x' + code.toString(16).padStart(2, '0')}'`;
  }
  return `'${c}'`;
}

class JSONScanError extends Error {}

/** Validate JSON text as Go does; returns Go's error message, or undefined when valid. */
export function goJSONSyntaxError(text: string): string | undefined {
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const fail = (ctx: string): never => {
    if (i >= n) throw new JSONScanError('unexpected end of JSON input');
    const c = String.fromCodePoint(text.codePointAt(i)!);
    throw new JSONScanError(`invalid character ${quoteChar(c)} ${ctx}`);
  };
  const value = (): void => {
    ws();
    if (i >= n) fail('looking for beginning of value');
    const c = text[i]!;
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('looking for beginning of object key string');
        string();
        ws();
        if (text[i] !== ':') fail('after object key');
        i++;
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail('after object key:value pair');
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail('after array element');
      }
    }
    if (c === '"') return string();
    if (c === '-' || (c >= '0' && c <= '9')) return number();
    for (const lit of ['true', 'false', 'null']) {
      if (c === lit[0]) {
        i++;
        for (let k = 1; k < lit.length; k++, i++) if (text[i] !== lit[k]) fail(`in literal ${lit} (expecting '${lit[k]}')`);
        return;
      }
    }
    fail('looking for beginning of value');
  };
  const string = (): void => {
    i++;
    for (;;) {
      if (i >= n) fail('');
      const c = text[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c < ' ') fail('in string literal');
      if (c === '\\') {
        i++;
        const e = text[i];
        if (e === 'u') {
          i++;
          for (let k = 0; k < 4; k++, i++) if (!/[0-9a-fA-F]/.test(text[i] ?? '')) fail('in \\u hexadecimal character escape');
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) fail('in string escape code');
      }
      i++;
    }
  };
  const digits = () => {
    while (i < n && text[i]! >= '0' && text[i]! <= '9') i++;
  };
  const number = (): void => {
    if (text[i] === '-') {
      i++;
      if (!(text[i]! >= '0' && text[i]! <= '9')) fail('in numeric literal');
    }
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      if (!(text[i]! >= '0' && text[i]! <= '9')) fail('after decimal point in numeric literal');
      digits();
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (!(text[i]! >= '0' && text[i]! <= '9')) fail('in exponent of numeric literal');
      digits();
    }
  };
  try {
    value();
    ws();
    if (i < n) fail('after top-level value');
  } catch (e) {
    if (e instanceof JSONScanError) return e.message;
    throw e;
  }
  return undefined;
}

/** json.Unmarshal into a Rego value, with Go's error messages. */
export function goJSONParse(text: string): Value {
  const err = goJSONSyntaxError(text);
  if (err !== undefined) throw new SyntaxError(err);
  return parseJSON(text);
}

/** json.Marshal of a Rego value: canonical JSON with Go's HTML-safe escapes. */
export function goJSONMarshal(v: Value): string {
  return toJSONText(v)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
