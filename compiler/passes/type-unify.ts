// OPA's type relations for the checker (v1/ast/check.go unifies and v1/types
// Select, Keys, Values): whether a type can be used where another is declared, and
// the types of a value's members.
import type { Expr } from '../ir/ir.js';
import type { TypeSpec } from '../../runtime/builtins/types.js';
import { compareTypes } from '../../runtime/builtins/type-order.js';
import { orType, typeOfValue } from './type-text.js';

/** OPA's unifies(a, b): can a value of type `a` be one of type `b`? (`any` fits everything but functions.) */
export function unifies(a: TypeSpec | undefined, b: TypeSpec | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  if (a.type === 'any' && unifiesAny(a.of ?? [], b)) return true;
  if (b.type === 'any' && unifiesAny(b.of ?? [], a)) return true;
  if (a.type === 'any' || b.type === 'any') return false;
  if (a.type !== b.type) return false;
  switch (a.type) {
    case 'array': {
      const o = b as typeof a;
      return staticFits(a, o) && staticFits(o, a) && (a.dynamic === undefined || o.dynamic === undefined || unifies(a.dynamic, o.dynamic));
    }
    case 'object': {
      const o = b as typeof a;
      const fits = (x: typeof a, y: typeof a) => (x.static ?? []).every((p) => unifies(p.value, selectKey(y, p.key)));
      return fits(a, o) && fits(o, a) && (a.dynamic === undefined || o.dynamic === undefined || unifies(a.dynamic.value, o.dynamic.value));
    }
    case 'set':
      return unifies(a.of, (b as typeof a).of);
    case 'function': {
      const o = b as typeof a;
      return a.args.length === o.args.length && a.args.every((x, i) => unifies(x, o.args[i]));
    }
    default:
      return true;
  }
}

function unifiesAny(of: TypeSpec[], b: TypeSpec): boolean {
  if (b.type === 'function') return false;
  return of.length === 0 || of.some((x) => unifies(x, b));
}

function staticFits(a: TypeSpec & { type: 'array' }, b: TypeSpec & { type: 'array' }): boolean {
  return (a.static ?? []).every((x, i) => unifies(x, arrayAt(b, i)));
}

function arrayAt(t: TypeSpec & { type: 'array' }, i: number): TypeSpec | undefined {
  return t.static?.[i] ?? t.dynamic;
}

function selectKey(t: TypeSpec & { type: 'object' }, key: string): TypeSpec | undefined {
  const p = t.static?.find((x) => x.key === key);
  if (p) return p.value;
  if (t.dynamic && containsType(t.dynamic.key, { type: 'string' })) return t.dynamic.value;
  return undefined;
}

/** OPA's types.Contains: `a` is `b` or an `any` that holds it. */
function containsType(a: TypeSpec, b: TypeSpec): boolean {
  if (a.type === 'any') return b.type !== 'function' && (!a.of?.length || a.of.some((x) => compareTypes(x, b) === 0));
  return compareTypes(a, b) === 0;
}

/**
 * The type of `t[key]` (OPA's types.Select for a constant key; a computed key gives
 * the type of any member); undefined where OPA's checker would find no such member.
 */
export function selectType(t: TypeSpec, key: Expr): TypeSpec | undefined {
  if (key.k !== 'const') return valuesOf(t);
  const k = key.value as unknown;
  switch (t.type) {
    case 'any': {
      if (!t.of?.length) return t;
      let out: TypeSpec | undefined;
      for (const m of t.of) {
        const x = selectType(m, key);
        if (x) out = orType(out, x);
      }
      return out;
    }
    case 'array':
      return typeof k === 'number' && Number.isInteger(k) && k >= 0 ? arrayAt(t, k) : undefined;
    case 'object':
      if (typeof k === 'string') return selectKey(t, k);
      return t.dynamic && containsType(t.dynamic.key, typeOfValue(key.value)) ? t.dynamic.value : undefined;
    case 'set': {
      const kt = typeOfValue(key.value);
      if (compareTypes(t.of, kt) === 0) return t.of;
      return t.of.type === 'any' && containsType(t.of, kt) ? kt : undefined;
    }
    default:
      return undefined;
  }
}

const ANY: TypeSpec = { type: 'any' };

/** OPA's types.Keys: what iterating a value of type `t` binds its key to. */
export function keysOf(t: TypeSpec): TypeSpec {
  switch (t.type) {
    case 'array':
      return { type: 'number' };
    case 'object': {
      let out: TypeSpec | undefined;
      for (const p of t.static ?? []) out = orType(out, typeOfValue(p.key));
      if (t.dynamic) out = orType(out, t.dynamic.key);
      return out ?? ANY;
    }
    case 'set':
      return t.of;
    case 'any':
      return unionOver(t, keysOf);
    default:
      return ANY;
  }
}

/** OPA's types.Values: what iterating a value of type `t` binds its value to. */
export function valuesOf(t: TypeSpec): TypeSpec {
  switch (t.type) {
    case 'array': {
      let out: TypeSpec | undefined;
      for (const x of t.static ?? []) out = orType(out, x);
      if (t.dynamic) out = orType(out, t.dynamic);
      return out ?? ANY;
    }
    case 'object': {
      let out: TypeSpec | undefined;
      for (const p of t.static ?? []) out = orType(out, p.value);
      if (t.dynamic) out = orType(out, t.dynamic.value);
      return out ?? ANY;
    }
    case 'set':
      return t.of;
    case 'any':
      return unionOver(t, valuesOf);
    default:
      return ANY;
  }
}

function unionOver(t: TypeSpec & { type: 'any' }, f: (m: TypeSpec) => TypeSpec): TypeSpec {
  if (!t.of?.length) return ANY;
  let out: TypeSpec | undefined;
  for (const m of t.of) out = orType(out, f(m));
  return out ?? ANY;
}
