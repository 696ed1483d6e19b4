// Reads the Rego value text that the Wasm runtime's opa_value_dump prints (JSON plus
// sets as `{a,b}` / `set()` and objects with non-string keys) into Regent values, so
// that Regent's host passes builtin arguments with their exact types and numbers.
// Values go the other way with formatTerm (runtime/value/format.ts) → opa_value_parse.
import { RObject, RSet } from '../value/collections.js';
import { parseJSONExact } from '../value/json-parse.js';
import type { Value } from '../value/value.js';

export function parseValueText(text: string): Value {
  let i = 0;
  const ws = () => { while (i < text.length && ' \n\r\t'.includes(text[i]!)) i++; };
  const value = (): Value => {
    ws();
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const s = JSON.parse(text.slice(i, j + 1)) as string;
      i = j + 1;
      return s;
    }
    if (c === '[') {
      i++;
      const out: Value[] = [];
      ws();
      if (text[i] === ']') { i++; return out; }
      for (;;) {
        out.push(value());
        ws();
        if (text[i++] === ']') return out;
      }
    }
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') { i++; return new RObject(); }
      let o: RObject | undefined;
      let s: RSet | undefined;
      for (;;) {
        const k = value();
        ws();
        if (text[i] === ':') {
          i++;
          (o ??= new RObject()).set(k, value());
        } else (s ??= new RSet()).add(k);
        ws();
        if (text[i++] === '}') return (o ?? s)!;
      }
    }
    if (text.startsWith('set()', i)) { i += 5; return new RSet(); }
    const m = /^(?:null|true|false|-?[0-9][0-9.eE+-]*)/.exec(text.slice(i, i + 400))!;
    i += m[0].length;
    return parseJSONExact(m[0]);
  };
  return value();
}
