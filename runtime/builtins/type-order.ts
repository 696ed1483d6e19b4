// OPA's order of types (v1/types/types.go Compare and typeOrder): null, boolean,
// number, string, array, object, set, any, function; composites compare their parts.
// OPA's NewAny sorts its members in this order, so `any<…>` lists in declarations,
// capabilities JSON and type-error messages come out as OPA writes them
// (`any<string, array[any], object[any: any], set[any]>`).
import type { TypeSpec } from './types.js';

const ORDER: Record<TypeSpec['type'], number> = { null: 0, boolean: 1, number: 2, string: 3, array: 4, object: 5, set: 6, any: 7, function: 8 };

/** -1, 0 or 1: `a` before, equal to, or after `b` in OPA's type order. */
export function compareTypes(a: TypeSpec | undefined, b: TypeSpec | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  const x = ORDER[a.type];
  const y = ORDER[b.type];
  if (x !== y) return x < y ? -1 : 1;
  switch (a.type) {
    case 'array': {
      const o = b as typeof a;
      if ((a.dynamic === undefined) !== (o.dynamic === undefined)) return a.dynamic ? 1 : -1;
      return compareTypes(a.dynamic, o.dynamic) || compareLists(a.static ?? [], o.static ?? []);
    }
    case 'object': {
      const o = b as typeof a;
      if ((a.dynamic === undefined) !== (o.dynamic === undefined)) return a.dynamic ? 1 : -1;
      if (a.dynamic && o.dynamic) {
        const c = compareTypes(a.dynamic.key, o.dynamic.key) || compareTypes(a.dynamic.value, o.dynamic.value);
        if (c) return c;
      }
      const sa = a.static ?? [];
      const sb = o.static ?? [];
      for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
        if (sa[i]!.key !== sb[i]!.key) return sa[i]!.key < sb[i]!.key ? -1 : 1;
        const c = compareTypes(sa[i]!.value, sb[i]!.value);
        if (c) return c;
      }
      return Math.sign(sa.length - sb.length);
    }
    case 'set':
      return compareTypes(a.of, (b as typeof a).of);
    case 'any':
      return compareLists(a.of ?? [], (b as typeof a).of ?? []);
    case 'function': {
      const o = b as typeof a;
      if (a.args.length !== o.args.length) return a.args.length < o.args.length ? -1 : 1;
      return compareLists(a.args, o.args) || compareTypes(a.result, o.result) || compareTypes(a.variadic, o.variadic);
    }
    default:
      return 0;
  }
}

function compareLists(a: TypeSpec[], b: TypeSpec[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareTypes(a[i], b[i]);
    if (c) return c;
  }
  return Math.sign(a.length - b.length);
}

/** OPA's NewAny: the members in type order. */
export function sortedMembers(ts: TypeSpec[]): TypeSpec[] {
  return [...ts].sort(compareTypes);
}
