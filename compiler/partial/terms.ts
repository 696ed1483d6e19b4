// Partial evaluation: the values it works with and the AST it emits.
//
// A partial value (`PVal`) is either a known Rego `Value` or a `Sym`: an AST term
// standing for a value that depends on unknowns (a ref into `input`/`data`, a
// residual var, a builtin call on such terms, or a composite holding them).
// Residual expressions are plain AST (ast/nodes.ts) so the existing OPA JSON
// encoder (ast/opa-json.ts) and printer (ast/print.ts) serialize them.
import type { Body, CallTerm, Expr, RefTerm, Term, VarTerm } from '../ast/nodes.js';
import type { Location } from '../source/location.js';
import type { Value } from '../../runtime/value/value.js';
import { BigNum, formatNumber } from '../../runtime/value/number.js';
import { RObject, RSet } from '../../runtime/value/collections.js';
import { forEachTerm, mapTerm } from '../ast/transform.js';

/** Residual terms carry no source location (OPA leaves them out by default). */
export const LOC: Location = { file: '', row: 0, col: 0, offset: 0 };

/** A value that depends on unknowns, as the term that computes it. */
export class Sym {
  constructor(
    private readonly term: Term,
    /** Set for a document that may only be looked into, never used whole (why, as an error). */
    readonly opaque?: string,
    /** A ref into the input or data document itself (looking further into it may reach known parts). */
    readonly doc = false,
  ) {}

  get t(): Term {
    if (this.opaque !== undefined) throw new PartialUnsupported(this.opaque);
    return this.term;
  }

  /** The term even when opaque (for looking further into it). */
  get raw(): Term {
    return this.term;
  }
}

export type PVal = Value | Sym;

export function isSym(v: PVal | undefined): v is Sym {
  return v instanceof Sym;
}

/** Raised for constructs the partial evaluator does not handle (reported as such, never guessed). */
export class PartialUnsupported extends Error {
  constructor(what: string) {
    super(`partial evaluation does not support ${what}`);
  }
}

export const mkVar = (name: string): VarTerm => ({ kind: 'var', name, loc: LOC });
export const mkStr = (value: string): Term => ({ kind: 'string', value, loc: LOC });

/** A ref `head.path…` (dotted names as string terms). */
export function mkRef(head: string, path: (string | Term)[]): RefTerm {
  return { kind: 'ref', head: mkVar(head), path: path.map((p) => (typeof p === 'string' ? mkStr(p) : p)), loc: LOC };
}

/** The operator ref of a builtin or function name (`internal.member_2`, `data.a.f`). */
export function opRef(name: string, loc: Location = LOC): RefTerm | VarTerm {
  const parts = name.split('.');
  if (parts.length === 1) return { kind: 'var', name, loc };
  const r = mkRef(parts[0]!, parts.slice(1));
  return { ...r, head: { ...r.head, loc }, path: r.path.map((p) => ({ ...p, loc })), loc };
}

/** A call; `loc` is the call's source location, `opLoc` its operator's (checks on residuals report them). */
export function mkCall(name: string | RefTerm | VarTerm, args: Term[], loc: Location = LOC, opLoc: Location = loc): CallTerm {
  return { kind: 'call', op: typeof name === 'string' ? opRef(name, opLoc) : name, args, loc };
}

export function mkExpr(term: Term, negated = false, loc: Location = LOC): Expr {
  return { kind: 'expr', negated, body: { type: 'term', term }, with: [], loc };
}

/** `a = b` as a residual expression (OPA's `eq`). */
export function eqExpr(a: Term, b: Term): Expr {
  return mkExpr(mkCall('eq', [a, b]));
}

/** A known value as an AST term. */
export function valueToTerm(v: Value): Term {
  if (v === null) return { kind: 'null', loc: LOC };
  switch (typeof v) {
    case 'boolean':
      return { kind: 'boolean', value: v, loc: LOC };
    case 'string':
      return { kind: 'string', value: v, loc: LOC };
    case 'number':
      return { kind: 'number', value: v, text: formatNumber(v), loc: LOC };
  }
  if (v instanceof BigNum) return { kind: 'number', value: v, text: formatNumber(v), loc: LOC };
  if (Array.isArray(v)) return { kind: 'array', items: v.map(valueToTerm), loc: LOC };
  if (v instanceof RSet) return { kind: 'set', items: v.values().map(valueToTerm), loc: LOC };
  if (v instanceof RObject) return { kind: 'object', entries: v.entries().map(([k, x]) => [valueToTerm(k), valueToTerm(x)] as [Term, Term]), loc: LOC };
  throw new Error('not a Rego value');
}

export function toTerm(v: PVal): Term {
  return v instanceof Sym ? v.t : valueToTerm(v);
}

/** `t[key]`: extends a ref, or makes one with `t` as its head. */
export function refAppend(t: Term, key: Term): RefTerm {
  if (t.kind === 'ref') return { ...t, path: [...t.path, key] };
  return { kind: 'ref', head: t, path: [key], loc: LOC };
}

/**
 * The root and constant path of a ground ref into `input` or `data`
 * (`input.a[1]` → input, ['a', 1]); undefined for anything else.
 */
export function groundRootPath(t: Term): { root: 'input' | 'data'; path: Value[] } | undefined {
  if (t.kind !== 'ref' || t.head.kind !== 'var' || (t.head.name !== 'input' && t.head.name !== 'data')) {
    if (t.kind === 'var' && (t.name === 'input' || t.name === 'data')) return { root: t.name, path: [] };
    return undefined;
  }
  const path: Value[] = [];
  for (const p of t.path) {
    if (p.kind === 'string') path.push(p.value);
    else if (p.kind === 'number') path.push(p.value);
    else if (p.kind === 'boolean') path.push(p.value);
    else if (p.kind === 'null') path.push(null);
    else return undefined;
  }
  return { root: t.head.name as 'input' | 'data', path };
}

/** Every var name in a term (including nested bodies), `input`/`data` excluded. */
export function termVars(t: Term, out = new Set<string>()): Set<string> {
  forEachTerm(t, (x) => {
    if (x.kind === 'var' && x.name !== 'input' && x.name !== 'data') out.add(x.name);
  });
  return out;
}

/** Var names of an expression: its terms, `with` values, nested bodies; call operators are skipped. */
export function exprVars(e: Expr, out = new Set<string>()): Set<string> {
  const add = (t: Term): void => {
    if (t.kind === 'call') {
      t.args.forEach(add);
      return;
    }
    termVars(t, out);
  };
  const b = e.body;
  if (b.type === 'term') add(b.term);
  else if (b.type === 'every') {
    add(b.domain);
    for (const x of b.body) exprVars(x, out);
    if (b.key) out.delete(b.key.name);
    out.delete(b.value.name);
  }
  for (const w of e.with) add(w.value);
  if (e.notBody) for (const x of e.notBody) exprVars(x, out);
  return out;
}

export function bodyVars(b: Body, out = new Set<string>()): Set<string> {
  for (const e of b) exprVars(e, out);
  return out;
}

/** Replace vars by terms throughout a term. */
export function substTerm(t: Term, sub: Map<string, Term>): Term {
  return mapTerm(t, (x) => (x.kind === 'var' ? sub.get(x.name) : undefined));
}

/** True when a term cannot be undefined: scalars, vars and composites of them. */
export function alwaysDefined(t: Term): boolean {
  switch (t.kind) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
    case 'var':
      return true;
    case 'array':
    case 'set':
      return t.items.every(alwaysDefined);
    case 'object':
      return t.entries.every(([k, v]) => alwaysDefined(k) && alwaysDefined(v));
    default:
      return false;
  }
}
