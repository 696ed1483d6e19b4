// The policy AST in OPA's JSON shape, as GET /v1/policies returns it under `ast`:
// terms are `{type, value}`, calls are expressions whose `terms` array starts with
// the operator ref, rule heads carry `name`, `ref`, `key`, `value` and `assign`.
// Locations are left out, as OPA does by default.
import type { Body, Expr, Import, Module, Rule, RuleHead, Term } from '../../compiler/index.js';
import { RawJSON } from '../api/json.js';

type JSONish = RawJSON | string | number | boolean | null | JSONish[] | { [k: string]: JSONish | undefined };

export function moduleToAST(m: Module): JSONish {
  return {
    package: { path: m.package.path.map(termToAST) },
    ...(m.imports.length ? { imports: m.imports.map(importToAST) } : {}),
    ...(m.rules.length ? { rules: m.rules.map(ruleToAST) } : {}),
  };
}

function importToAST(i: Import): JSONish {
  return { path: termToAST(i.path), ...(i.alias ? { alias: i.alias } : {}) };
}

function ruleToAST(r: Rule): JSONish {
  return {
    ...(r.default ? { default: true } : {}),
    head: headToAST(r.head),
    body: r.body.length ? bodyToAST(r.body) : [{ index: 0, terms: { type: 'boolean', value: true } }],
    ...(r.else ? { else: ruleToAST(r.else) } : {}),
  };
}

function headToAST(h: RuleHead): JSONish {
  const first = h.ref[0];
  const name = first && first.kind === 'var' ? first.name : '';
  const value = h.value ? termToAST(h.value) : h.contains ? undefined : { type: 'boolean', value: true };
  return {
    name,
    ...(h.args ? { args: h.args.map(termToAST) } : {}),
    ...(h.key ? { key: termToAST(h.key) } : {}),
    ...(value ? { value } : {}),
    ...(h.assign ? { assign: true } : {}),
    ref: h.ref.map(termToAST),
  };
}

function bodyToAST(b: Body): JSONish[] {
  return b.map((e, i) => exprToAST(e, i));
}

function exprToAST(e: Expr, index: number): JSONish {
  const out: { [k: string]: JSONish | undefined } = {};
  if (e.negated) out.negated = true;
  out.index = index;
  const body = e.body;
  switch (body.type) {
    case 'term':
      out.terms = body.term.kind === 'call' ? callTerms(body.term.op, body.term.args) : termToAST(body.term);
      break;
    case 'some':
      out.terms = { symbols: body.vars.map(termToAST) };
      break;
    case 'somein': {
      const args = body.key ? [body.key, body.value, body.collection] : [body.value, body.collection];
      const op = body.key ? 'member_3' : 'member_2';
      out.terms = { symbols: [{ type: 'call', value: [internalRef(op), ...args.map(termToAST)] }] };
      break;
    }
    case 'every':
      out.terms = {
        ...(body.key ? { key: termToAST(body.key) } : {}),
        value: termToAST(body.value),
        domain: termToAST(body.domain),
        body: bodyToAST(body.body),
      };
      break;
  }
  if (e.with.length) out.with = e.with.map((w) => ({ target: termToAST(w.target), value: termToAST(w.value) }));
  return out;
}

function internalRef(name: string): JSONish {
  return { type: 'ref', value: [{ type: 'var', value: 'internal' }, { type: 'string', value: name }] };
}

function opRef(op: Term): JSONish {
  return op.kind === 'var' ? { type: 'ref', value: [{ type: 'var', value: op.name }] } : termToAST(op);
}

function callTerms(op: Term, args: Term[]): JSONish[] {
  return [opRef(op), ...args.map(termToAST)];
}

export function termToAST(t: Term): JSONish {
  switch (t.kind) {
    case 'null':
      return { type: 'null' };
    case 'boolean':
      return { type: 'boolean', value: t.value };
    case 'number':
      return { type: 'number', value: new RawJSON(t.text.replace(/_/g, '')) };
    case 'string':
      return { type: 'string', value: t.value };
    case 'var':
      return { type: 'var', value: t.name };
    case 'ref':
      return { type: 'ref', value: [termToAST(t.head), ...t.path.map(termToAST)] };
    case 'array':
      return { type: 'array', value: t.items.map(termToAST) };
    case 'set':
      return { type: 'set', value: t.items.map(termToAST) };
    case 'object':
      return { type: 'object', value: t.entries.map(([k, v]) => [termToAST(k), termToAST(v)]) };
    case 'arraycomp':
      return { type: 'arraycomprehension', value: { term: termToAST(t.head), body: bodyToAST(t.body) } };
    case 'setcomp':
      return { type: 'setcomprehension', value: { term: termToAST(t.head), body: bodyToAST(t.body) } };
    case 'objectcomp':
      return { type: 'objectcomprehension', value: { key: termToAST(t.key), value: termToAST(t.value), body: bodyToAST(t.body) } };
    case 'call':
      return { type: 'call', value: callTerms(t.op, t.args) };
    case 'template':
      return { type: 'templatestring', value: t.parts.map((p) => (typeof p === 'string' ? { type: 'string', value: p } : termToAST(p))) };
  }
}
