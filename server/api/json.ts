// JSON text output shaped like Go's encoding/json, which OPA uses: compact with a
// trailing newline (2-space indent with `pretty`), struct fields in declaration
// order (plain objects keep their key order here), Rego values with sorted keys,
// and the HTML characters <, > and & escaped as \u003c, \u003e and \u0026.
import { goEscapeHTML, toJSONText, type Value } from '../../runtime/index.js';

/** Already-rendered JSON text to splice into the output unchanged. */
export class RawJSON {
  constructor(readonly text: string) {}
}

/** A Rego value rendered on demand (sorted keys, exact numbers). */
export class ValueJSON {
  constructor(readonly value: Value) {}
}


/** Re-indent compact JSON text (used for pre-rendered values inside pretty output). */
export function indentJSON(text: string, indent: string, cur: string): string {
  if (!indent) return text;
  if (text.includes('\n')) return text.replace(/\n/g, '\n' + cur); // rendered pretty already
  return text.length < 2 || (text[0] !== '{' && text[0] !== '[') ? text : JSON.stringify(JSON.parse(text), null, indent).replace(/\n/g, '\n' + cur);
}

export function stringify(x: unknown, pretty = false): string {
  return goEscapeHTML(write(x, pretty ? '  ' : '', '')) + '\n';
}

function write(x: unknown, indent: string, cur: string): string {
  if (x instanceof RawJSON) return indent ? indentJSON(x.text, indent, cur) : x.text;
  if (x instanceof ValueJSON) return indent ? toJSONText(x.value, indent).replace(/\n/g, '\n' + cur) : toJSONText(x.value);
  if (x === null || x === undefined) return 'null';
  if (typeof x !== 'object') return JSON.stringify(x);
  const inner = cur + indent;
  const nl = indent ? '\n' : '';
  if (Array.isArray(x)) {
    if (x.length === 0) return '[]';
    return '[' + nl + x.map((v) => inner + write(v, indent, inner)).join(',' + nl) + nl + cur + ']';
  }
  const entries = Object.entries(x as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  const sep = indent ? ': ' : ':';
  return '{' + nl + entries.map(([k, v]) => inner + JSON.stringify(k) + sep + write(v, indent, inner)).join(',' + nl) + nl + cur + '}';
}

