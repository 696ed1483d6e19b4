// A small exact JSON parser, used only when the text holds numbers that a double
// cannot represent. It builds Rego values directly; numbers keep their source text.
import type { Value } from './value.js';
import { parseNumber } from './number.js';
import { RObject } from './collections.js';

export class JSONSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
  }
}

export function parseJSONExact(text: string): Value {
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const fail = (msg: string): never => {
    throw new JSONSyntaxError(msg, i);
  };
  const value = (depth: number): Value => {
    if (depth > 10000) fail('maximum nesting depth exceeded');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o = new RObject();
      ws();
      if (text[i] === '}') {
        i++;
        return o;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected string key');
        const k = str();
        ws();
        if (text[i] !== ':') fail("expected ':'");
        i++;
        o.set(k, value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return o;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const a: Value[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return a;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 4096));
    if (m && m[0].length > 0) {
      i += m[0].length;
      return parseNumber(m[0]);
    }
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    return fail('invalid character');
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const v = value(0);
  ws();
  if (i !== text.length) fail('unexpected trailing characters');
  return v;
}
