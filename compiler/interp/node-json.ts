// Trace-event nodes and run-time values in OPA's JSON form, as the REST API's
// `explanation` carries them. AST nodes go through compiler/ast/opa-json.ts (the
// shared OPA JSON writer); this file only adapts it to single expressions (with
// their index in the enclosing body) and rules, and converts run-time Values of
// trace locals into OPA terms `{type, value}`. Print the result with
// stringifyOpaJSON, which keeps numbers exact.
import type { Body, Expr, Module, Rule } from '../ast/nodes.js';
import { bodyToJSON, moduleToJSON, OpaJSONNumber } from '../ast/opa-json.js';
import type { Value } from '../../runtime/value/value.js';
import { RObject, RSet } from '../../runtime/value/collections.js';
import { formatNumber } from '../../runtime/value/number.js';

export type JSONNode = null | boolean | string | number | object;

/** Position of each expression in its body (OPA's `Expr.Index`). */
export type IndexOf = (e: Expr) => number;

const noIndex: IndexOf = () => 0;

export function exprJSON(e: Expr, indexOf: IndexOf = noIndex): JSONNode {
  return { ...bodyToJSON([e])[0]!, index: indexOf(e) };
}

export function bodyJSON(b: Body, indexOf: IndexOf = noIndex): JSONNode {
  return b.map((e) => exprJSON(e, indexOf));
}

export function ruleJSON(r: Rule, _indexOf: IndexOf = noIndex): JSONNode {
  const m: Module = {
    kind: 'module',
    file: r.loc.file,
    package: { kind: 'package', path: [], loc: r.loc },
    imports: [],
    rules: [r],
    annotations: [],
    comments: [],
    regoVersion: 1,
  };
  return (moduleToJSON(m, { comments: false }).rules as JSONNode[])[0]!;
}

/** A run-time value as an OPA term (for trace locals). */
export function valueJSON(v: Value): JSONNode {
  if (v === null) return { type: 'null', value: {} };
  if (typeof v === 'boolean') return { type: 'boolean', value: v };
  if (typeof v === 'string') return { type: 'string', value: v };
  if (typeof v === 'number') return { type: 'number', value: v };
  if (Array.isArray(v)) return { type: 'array', value: v.map(valueJSON) };
  if (v instanceof RSet) return { type: 'set', value: v.values().map(valueJSON) };
  if (v instanceof RObject) return { type: 'object', value: v.entries().map(([k, x]) => [valueJSON(k), valueJSON(x)]) };
  return { type: 'number', value: new OpaJSONNumber(formatNumber(v)) };
}
