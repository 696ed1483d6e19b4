// Rego text form of values, as OPA's Value.String() prints them: used by string
// interpolation, sprintf's %v, print() and error messages.
import type { Value } from './value.js';
import { BigNum, formatNumber } from './number.js';
import { RObject, RSet } from './collections.js';
import { jsonQuote } from './quote.js';

/** Print a value as a Rego term: strings quoted, sets as {a, b}, empty set as set(). */
export function formatTerm(v: Value): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return formatNumber(v);
    case 'string':
      return jsonQuote(v);
  }
  if (v instanceof BigNum) return formatNumber(v);
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i ? ', ' : '') + formatTerm(v[i]!);
    return out + ']';
  }
  if (v instanceof RSet) {
    if (v.size === 0) return 'set()';
    const xs = v.values();
    let out = '{';
    for (let i = 0; i < xs.length; i++) out += (i ? ', ' : '') + formatTerm(xs[i]!);
    return out + '}';
  }
  if (v instanceof RObject) return '{' + v.entries().map(([k, x]) => formatTerm(k) + ': ' + formatTerm(x)).join(', ') + '}';
  return String(v);
}

/** Like formatTerm, but a top-level string prints without quotes (sprintf %v, interpolation). */
export function formatPlain(v: Value): string {
  return typeof v === 'string' ? v : formatTerm(v);
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** OPA's text of a ref under `data`: `data.a.b`, with `["c-d"]` for keys that are not identifiers. */
export function dataRefText(path: readonly string[]): string {
  let out = 'data';
  for (const seg of path) out += IDENTIFIER.test(seg) ? '.' + seg : `[${JSON.stringify(seg)}]`;
  return out;
}
