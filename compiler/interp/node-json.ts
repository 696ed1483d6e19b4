// AST nodes and values in OPA's JSON form, as trace events carry them in the REST
// API (`explain=full`): a term is `{type, value}` — `{"type":"var","value":"x"}`,
// `{"type":"ref","value":[…terms]}`, `{"type":"call","value":[op, …args]}`,
// `{"type":"object","value":[[k, v], …]}`, comprehensions `{"term"|"key"+"value", "body"}`.
// An expression is `{index, negated?, terms, with?}` where `terms` is an array
// `[op, …args]` for calls and a single term otherwise (a `{symbols}` object for
// `some`, `{key, value, domain, body}` for `every`); keys come out sorted, as Go's
// map encoding does. A rule is `{body, default?, else?, head}`. Locations are left
// out (OPA includes them only when asked). Numbers stay exact: the result holds
// RNumbers, which cli/output.ts `toJSON` prints verbatim.
import type { Body, Expr, Rule, RuleHead, Term, VarTerm } from '../ast/nodes.js';
import type { Value } from '../../runtime/value/value.js';
import { RObject, RSet } from '../../runtime/value/collections.js';

export type JSONNode = null | boolean | string | number | object;

/** Position of each expression in its body (OPA's `Expr.Index`). */
export type IndexOf = (e: Expr) => number;

const noIndex: IndexOf = () => 0;

export function termJSON(t: Term, indexOf: IndexOf = noIndex): JSONNode {
  switch (t.kind) {
    case 'null':
      return { type: 'null' };
    case 'boolean':
      return { type: 'boolean', value: t.value };
    case 'number':
      return { type: 'number', value: t.value };
    case 'string':
      return { type: 'string', value: t.value };
    case 'var':
      return { type: 'var', value: t.name };
    case 'ref':
      return { type: 'ref', value: [termJSON(t.head, indexOf), ...t.path.map((p) => termJSON(p, indexOf))] };
    case 'array':
      return { type: 'array', value: t.items.map((x) => termJSON(x, indexOf)) };
    case 'set':
      return { type: 'set', value: t.items.map((x) => termJSON(x, indexOf)) };
    case 'object':
      return { type: 'object', value: t.entries.map(([k, v]) => [termJSON(k, indexOf), termJSON(v, indexOf)]) };
    case 'arraycomp':
      return { type: 'arraycomprehension', value: { body: bodyJSON(t.body, indexOf), term: termJSON(t.head, indexOf) } };
    case 'setcomp':
      return { type: 'setcomprehension', value: { body: bodyJSON(t.body, indexOf), term: termJSON(t.head, indexOf) } };
    case 'objectcomp':
      return {
        type: 'objectcomprehension',
        value: { body: bodyJSON(t.body, indexOf), key: termJSON(t.key, indexOf), value: termJSON(t.value, indexOf) },
      };
    case 'call':
      return { type: 'call', value: [opJSON(t.op), ...t.args.map((a) => termJSON(a, indexOf))] };
    case 'template':
      return {
        type: 'templatestring',
        value: t.parts.map((p) => (typeof p === 'string' ? { type: 'string', value: p } : termJSON(p, indexOf))),
      };
  }
}

/** A call's operator is always a ref in OPA, `equal` → `[var equal]`. */
function opJSON(op: Term): JSONNode {
  if (op.kind === 'var') return { type: 'ref', value: [{ type: 'var', value: op.name }] };
  return termJSON(op);
}

export function exprJSON(e: Expr, indexOf: IndexOf = noIndex): JSONNode {
  const out: Record<string, JSONNode> = { index: indexOf(e) };
  if (e.negated) out.negated = true;
  out.terms = exprTerms(e, indexOf);
  if (e.with.length > 0) out.with = e.with.map((w) => ({ target: termJSON(w.target, indexOf), value: termJSON(w.value, indexOf) }));
  return out;
}

function exprTerms(e: Expr, indexOf: IndexOf): JSONNode {
  if (e.notBody) return { type: 'body', value: bodyJSON(e.notBody, indexOf) };
  const b = e.body;
  switch (b.type) {
    case 'term':
      if (b.term.kind === 'call') return [opJSON(b.term.op), ...b.term.args.map((a) => termJSON(a, indexOf))];
      return termJSON(b.term, indexOf);
    case 'some':
      return { symbols: b.vars.map((v: VarTerm) => termJSON(v, indexOf)) };
    case 'somein': {
      const args = [...(b.key ? [b.key] : []), b.value, b.collection].map((x) => termJSON(x, indexOf));
      const name = b.key ? 'member_3' : 'member_2';
      const op = { type: 'ref', value: [{ type: 'var', value: 'internal' }, { type: 'string', value: name }] };
      return { symbols: [{ type: 'call', value: [op, ...args] }] };
    }
    case 'every':
      return {
        body: bodyJSON(b.body, indexOf),
        domain: termJSON(b.domain, indexOf),
        key: b.key ? termJSON(b.key, indexOf) : null,
        value: termJSON(b.value, indexOf),
      };
  }
}

export function bodyJSON(b: Body, indexOf: IndexOf = noIndex): JSONNode {
  return b.map((e) => exprJSON(e, indexOf));
}

function headJSON(h: RuleHead, indexOf: IndexOf): JSONNode {
  const out: Record<string, JSONNode> = {};
  if (h.args) out.args = h.args.map((a) => termJSON(a, indexOf));
  if (h.assign) out.assign = true;
  if (h.key) out.key = termJSON(h.key, indexOf);
  const first = h.ref[0];
  if (first && first.kind === 'var' && h.ref.length === 1) out.name = first.name;
  out.ref = h.ref.map((t) => termJSON(t, indexOf));
  if (h.value) out.value = termJSON(h.value, indexOf);
  else if (!h.key) out.value = { type: 'boolean', value: true };
  return out;
}

export function ruleJSON(r: Rule, indexOf: IndexOf = noIndex): JSONNode {
  const out: Record<string, JSONNode> = { body: bodyJSON(r.body, indexOf) };
  if (r.default) out.default = true;
  if (r.else) out.else = ruleJSON(r.else, indexOf);
  out.head = headJSON(r.head, indexOf);
  return out;
}

/** A run-time value as an OPA term (for trace locals). */
export function valueJSON(v: Value): JSONNode {
  if (v === null) return { type: 'null' };
  if (typeof v === 'boolean') return { type: 'boolean', value: v };
  if (typeof v === 'string') return { type: 'string', value: v };
  if (Array.isArray(v)) return { type: 'array', value: v.map(valueJSON) };
  if (v instanceof RSet) return { type: 'set', value: v.values().map(valueJSON) };
  if (v instanceof RObject) return { type: 'object', value: v.entries().map(([k, x]) => [valueJSON(k), valueJSON(x)]) };
  return { type: 'number', value: v };
}
