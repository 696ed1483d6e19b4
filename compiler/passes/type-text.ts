// Types as OPA's type checker writes them in `have:`/`want:` lines
// (v1/types/types.go String methods), and the type of a constant value as OPA's
// TypeEnv gives it (an array literal is `array<…>` of its elements, an object
// `object<k: …>` with keys in order, a set `set[…]` of its elements' union).
import type { BuiltinDecl, TypeSpec } from '../../runtime/builtins/types.js';
import type { Term } from '../ast/nodes.js';
import { compareTypes, sortedMembers } from '../../runtime/builtins/type-order.js';
import { RObject, RSet, typeName, type Value } from '../../runtime/value/index.js';

/** A type's text, as OPA's String(): `array<number>[string]`, `object<a: number>`, `any<null, string>`. */
export function typeString(t: TypeSpec | undefined): string {
  if (t === undefined) return '???';
  switch (t.type) {
    case 'any':
      return t.of && t.of.length ? `any<${t.of.map(typeString).join(', ')}>` : 'any';
    case 'array': {
      let s = 'array';
      if (t.static?.length) s += `<${t.static.map(typeString).join(', ')}>`;
      if (t.dynamic) s += `[${typeString(t.dynamic)}]`;
      return s;
    }
    case 'set':
      return `set[${typeString(t.of)}]`;
    case 'object': {
      let s = 'object';
      if (t.static?.length) s += `<${t.static.map((p) => `${p.key}: ${typeString(p.value)}`).join(', ')}>`;
      if (t.dynamic) s += `[${typeString(t.dynamic.key)}: ${typeString(t.dynamic.value)}]`;
      return s;
    }
    case 'function':
      return `(${[...t.args.map(typeString), ...(t.variadic ? [`${typeString(t.variadic)}...`] : [])].join(', ')}) => ${typeString(t.result)}`;
    default:
      return t.type;
  }
}

/** OPA's types.Or: the union of two types, a superset kept as it is. */
export function orType(a: TypeSpec | undefined, b: TypeSpec): TypeSpec {
  if (a === undefined) return b;
  if (a.type === 'any' || b.type === 'any') {
    const [any, other] = a.type === 'any' ? [a, b] : [b as TypeSpec & { type: 'any' }, a];
    if (!any.of?.length) return any;
    const extra = other.type === 'any' ? (other.of?.length ? other.of : undefined) : [other];
    if (extra === undefined) return other;
    const members = [...any.of];
    for (const x of extra) if (!members.some((m) => compareTypes(m, x) === 0)) members.push(x);
    return { type: 'any', of: sortedMembers(members) };
  }
  return compareTypes(a, b) === 0 ? a : { type: 'any', of: sortedMembers([a, b]) };
}

/** The type OPA's checker gives a constant value. */
export function typeOfValue(v: Value): TypeSpec {
  const n = typeName(v);
  switch (n) {
    case 'array':
      return { type: 'array', static: (v as Value[]).map(typeOfValue) };
    case 'set': {
      let of: TypeSpec | undefined;
      for (const x of (v as RSet).values()) of = orType(of, typeOfValue(x));
      return { type: 'set', of: of ?? { type: 'any' } };
    }
    case 'object': {
      const props = (v as RObject).entries().map(([k, x]) => ({ k, key: typeof k === 'string' ? k : String(k), value: typeOfValue(x) }));
      // OPA's NewObject orders static keys with util.Compare: numbers before strings.
      props.sort((p, q) => (typeof p.k === typeof q.k ? (p.key < q.key ? -1 : p.key > q.key ? 1 : 0) : typeof p.k === 'string' ? 1 : -1));
      return { type: 'object', static: props.map(({ key, value }) => ({ key, value })) };
    }
    default:
      return { type: n } as TypeSpec;
  }
}

/**
 * A builtin's parameters as OPA's NamedFuncArgs prints them: `(x: string, y: string)`
 * (with the result when `withResult`); operators have unnamed types: `(number, number)`.
 */
export function signatureText(decl: BuiltinDecl, withResult: boolean): string {
  const named = (t: TypeSpec, name: string | null | undefined) => (name ? `${name}: ${typeString(t)}` : typeString(t));
  const parts = decl.args.map((t, i) => named(t, decl.argNames?.[i]));
  if (decl.variadic) parts.push(`${typeString(decl.variadic)}...`);
  if (withResult && decl.result) parts.push(named(decl.result, decl.resultName));
  return `(${parts.join(', ')})`;
}

/**
 * The type OPA's TypeEnv gives an argument before type checking (its arity check):
 * literals by their values, `input`/`data` refs `any`, anything else unknown (`???`).
 */
export function literalType(t: Term): TypeSpec | undefined {
  switch (t.kind) {
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      return { type: t.kind };
    case 'template':
      return { type: 'string' };
    case 'array':
      // An element of unknown type prints as `???` (typeString of undefined), as OPA's nil.
      return { type: 'array', static: t.items.map((x) => literalType(x)) as TypeSpec[] };
    case 'set': {
      let of: TypeSpec | undefined;
      for (const x of t.items) {
        const m = literalType(x);
        if (m) of = orType(of, m);
      }
      return { type: 'set', of: of ?? { type: 'any' } };
    }
    case 'object': {
      if (!t.entries.every(([k]) => k.kind === 'string')) return undefined;
      const props = t.entries.map(([k, v]) => ({ key: (k as { value: string }).value, value: literalType(v) as TypeSpec }));
      props.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      return { type: 'object', static: props };
    }
    case 'ref':
      return t.head.kind === 'var' && (t.head.name === 'input' || t.head.name === 'data') ? { type: 'any' } : undefined;
    case 'var':
      return t.name === 'input' || t.name === 'data' ? { type: 'any' } : undefined;
    default:
      return undefined;
  }
}

/**
 * OPA's ArgErrDetail, the details of `f: invalid argument(s)` and `f: arity mismatch`:
 * the argument types it has (an unknown one, such as a nested call's output, is
 * `???` and JSON null) and the parameters it wants. Printed as
 *   have: (number, ???)
 *   want: (x: string, y: string)
 * with the result in `want:` when `withResult` (invalid arguments). The JSON form is
 * `{"have": [types], "want": {"args": [types], "variadic"?: type}}`, as OPA's FuncArgs
 * (a named parameter's type has its `name`).
 */
export class ArgErrDetail {
  readonly have: (TypeSpec | null)[];
  readonly want: { args: (TypeSpec & { name?: string })[]; variadic?: TypeSpec };
  constructor(
    have: (TypeSpec | undefined)[],
    private readonly decl: BuiltinDecl,
    private readonly withResult: boolean,
  ) {
    Object.defineProperty(this, 'decl', { enumerable: false });
    Object.defineProperty(this, 'withResult', { enumerable: false });
    this.have = have.map((t) => t ?? null);
    // OPA's NamedType adds the parameter's name to its type's JSON.
    const args = decl.args.map((t, i) => (decl.argNames?.[i] ? { ...t, name: decl.argNames[i] } : t));
    this.want = { args, ...(decl.variadic ? { variadic: decl.variadic } : {}) };
  }

  detailLines(): string[] {
    return [`have: (${this.have.map((t) => typeString(t ?? undefined)).join(', ')})`, `want: ${signatureText(this.decl, this.withResult)}`];
  }
}
