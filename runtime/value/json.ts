// Conversions between Rego values and JSON: plain JS objects in and out, and JSON
// text that keeps big numbers exact. Output is canonical: object keys sorted, sets
// as sorted arrays, and non-string object keys written as their JSON text (as OPA).
import type { Value } from './value.js';
import { BigNum, formatNumber, parseNumber } from './number.js';
import { RObject, RSet } from './collections.js';
import { parseJSONExact } from './json-parse.js';

/** A JSON-compatible JS value (the output of JSON.parse). */
export type JSONValue = null | boolean | number | string | JSONValue[] | { [k: string]: JSONValue };

/** Convert parsed JSON (or YAML) into a Rego value. */
export function fromJS(x: unknown): Value {
  if (x === null || x === undefined) return null;
  switch (typeof x) {
    case 'boolean':
    case 'string':
      return x;
    case 'number':
      return x === 0 ? 0 : x;
    case 'bigint':
      return parseNumber(x.toString());
  }
  if (x instanceof BigNum || x instanceof RObject || x instanceof RSet) return x;
  if (Array.isArray(x)) return x.map(fromJS);
  if (x instanceof Date) return x.toISOString();
  const o = new RObject();
  for (const k of Object.keys(x as object)) o.set(k, fromJS((x as Record<string, unknown>)[k]));
  return o;
}

/**
 * Text that may hold a number a double cannot keep exact (OPA keeps JSON numbers
 * as their text): 16 or more digits in a row, counted across a decimal point
 * (`684004062482084.046880866`), or a large exponent (`1e30`, `1e-300`). A match in
 * a string only costs the slower exact parser; parseNumber still picks a double
 * whenever one represents the number exactly.
 */
export const INEXACT_NUMBER = /\d[\d.]{15,}|[eE]\+?\d{2,}|[eE]-\d{3,}/;

/** Parse JSON text into a Rego value, keeping numbers beyond a double's precision exact. */
export function parseJSON(text: string): Value {
  if (INEXACT_NUMBER.test(text)) return parseJSONExact(text);
  return fromJS(JSON.parse(text));
}

/** Convert a Rego value to plain JS for JSON output (BigNum becomes a number). */
export function toJS(v: Value): JSONValue {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof BigNum) return Number(formatNumber(v));
  if (Array.isArray(v)) return v.map(toJS);
  if (v instanceof RSet) return v.values().map(toJS);
  const out: Record<string, JSONValue> = {};
  for (const [k, x] of v.entries()) out[typeof k === 'string' ? k : toJSONText(k)] = toJS(x);
  return out;
}

/** Canonical JSON text of a value (exact numbers, sorted keys, sets as arrays). */
export function toJSONText(v: Value, indent = ''): string {
  return write(v, indent, '');
}

function write(v: Value, indent: string, cur: string): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return formatNumber(v);
    case 'string':
      return JSON.stringify(v);
  }
  if (v instanceof BigNum) return formatNumber(v);
  const inner = cur + indent;
  const nl = indent ? '\n' : '';
  const sep = indent ? ': ' : ':';
  if (Array.isArray(v) || v instanceof RSet) {
    const items = Array.isArray(v) ? v : v.values();
    if (items.length === 0) return '[]';
    return '[' + nl + items.map((x) => inner + write(x, indent, inner)).join(',' + nl) + nl + cur + ']';
  }
  const entries = v.entries().map(([k, x]) => [typeof k === 'string' ? k : toJSONText(k), x] as const);
  if (entries.some(([k]) => typeof k !== 'string')) entries.sort();
  if (entries.length === 0) return '{}';
  const sorted = [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return '{' + nl + sorted.map(([k, x]) => inner + JSON.stringify(k) + sep + write(x, indent, inner)).join(',' + nl) + nl + cur + '}';
}
