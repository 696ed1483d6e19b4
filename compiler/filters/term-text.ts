// Terms and expressions of residual queries as text, the way OPA's Term.String()
// and Expr.String() print them in filter error messages:
//   refs      input.fruits.colour, input.fruits[__local1__1].price, data.x["a-b"]
//   calls     object.get(input, ["user"], "unknown"), equal(input.x, "orange")
//             (operators are printed by builtin name, never infix)
//   literals  strings JSON-quoted, numbers as written, sets `{1, 2}` / `set()`,
//             objects `{"k": v}`
// Also the helpers the checks and the translator share to look at residual
// expressions: the operator name of a call (`internal.member_2`, `data.p.f`),
// whether a ref starts at `input` or `data`, and ref segments as strings.
import type { CallTerm, Expr, RefTerm, Term } from '../ast/nodes.js';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KEYWORDS = new Set(['as', 'default', 'else', 'false', 'import', 'not', 'null', 'package', 'some', 'true', 'with', 'if', 'contains', 'in', 'every']);

/** A var name as OPA prints it: wildcards `$_N` become `$N`. */
export function varText(name: string): string {
  return name.startsWith('$_') ? `$${name.slice(2)}` : name;
}

export function termText(t: Term): string {
  switch (t.kind) {
    case 'null':
      return 'null';
    case 'boolean':
      return String(t.value);
    case 'number':
      return t.text;
    case 'string':
      return JSON.stringify(t.value);
    case 'var':
      return varText(t.name);
    case 'ref':
      return refText(t);
    case 'array':
      return `[${t.items.map(termText).join(', ')}]`;
    case 'set':
      return t.items.length === 0 ? 'set()' : `{${t.items.map(termText).join(', ')}}`;
    case 'object':
      return `{${t.entries.map(([k, v]) => `${termText(k)}: ${termText(v)}`).join(', ')}}`;
    case 'arraycomp':
      return `[${termText(t.head)} | ${bodyText(t.body)}]`;
    case 'setcomp':
      return `{${termText(t.head)} | ${bodyText(t.body)}}`;
    case 'objectcomp':
      return `{${termText(t.key)}: ${termText(t.value)} | ${bodyText(t.body)}}`;
    case 'call':
      return callText(t);
    case 'template':
      return '$"…"';
  }
}

export function refText(r: RefTerm): string {
  let out = r.head.kind === 'var' ? varText(r.head.name) : termText(r.head);
  for (const p of r.path) {
    if (p.kind === 'string' && IDENT.test(p.value) && !KEYWORDS.has(p.value)) out += `.${p.value}`;
    else out += `[${termText(p)}]`;
  }
  return out;
}

export function callText(c: CallTerm): string {
  return `${opName(c)}(${c.args.map(termText).join(', ')})`;
}

export function bodyText(b: Expr[]): string {
  return b.map(exprText).join('; ');
}

export function exprText(e: Expr): string {
  let s: string;
  const b = e.body;
  switch (b.type) {
    case 'term':
      s = termText(b.term);
      break;
    case 'some':
      s = `some ${b.vars.map(termText).join(', ')}`;
      break;
    case 'somein':
      s = `some ${b.key ? `${termText(b.key)}, ` : ''}${termText(b.value)} in ${termText(b.collection)}`;
      break;
    case 'every':
      s = `every ${b.key ? `${termText(b.key)}, ` : ''}${termText(b.value)} in ${termText(b.domain)} { ${bodyText(b.body)} }`;
      break;
  }
  if (e.negated) s = `not ${s}`;
  for (const w of e.with) s += ` with ${termText(w.target)} as ${termText(w.value)}`;
  return s;
}

/** The dotted name of a call's operator: `eq`, `internal.member_2`, `data.filters.f`. */
export function opName(c: CallTerm): string {
  const op = c.op;
  return op.kind === 'var' ? op.name : refText(op);
}

/** The call of an expression that is a plain call (`IsCall` in OPA), else undefined. */
export function exprCall(e: Expr): CallTerm | undefined {
  return e.body.type === 'term' && e.body.term.kind === 'call' && !e.notBody ? e.body.term : undefined;
}

/**
 * The operator name used by the checks and the translator: a top-level `equal`
 * (`==`) counts as `eq`, since OPA's compiler rewrites top-level `==` into
 * unification before partial evaluation.
 */
export function filterOp(c: CallTerm): string {
  const n = opName(c);
  return n === 'equal' ? 'eq' : n;
}

/** True for refs rooted at var `root` (`input`, `data`). */
export function refRootedAt(t: Term, root: string): t is RefTerm {
  return t.kind === 'ref' && t.head.kind === 'var' && t.head.name === root;
}

/** True when `t` is the var `input`/`data` itself or a ref starting with it. */
export function rootedAt(t: Term, root: string): boolean {
  return (t.kind === 'var' && t.name === root) || refRootedAt(t, root);
}

/** A ref's path segments as strings when every one is a string or var term. */
export function refSegments(r: RefTerm): string[] | undefined {
  const out: string[] = [];
  for (const p of r.path) {
    if (p.kind === 'string') out.push(p.value);
    else if (p.kind === 'var') out.push(p.name);
    else return undefined;
  }
  return out;
}

/** True for null, boolean, number and string terms (OPA's ast.IsScalar). */
export function isScalar(t: Term): boolean {
  return t.kind === 'null' || t.kind === 'boolean' || t.kind === 'number' || t.kind === 'string';
}
