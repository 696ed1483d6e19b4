// Pass `check-types`: builtin calls whose arguments are constants must match the
// builtin's declared argument types (OPA's rego_type_error). Arity was checked
// while planning. Only literal values are judged here, so a valid program is
// never rejected for a type this checker cannot infer.
import { RegoError } from '../source/diagnostics.js';
import type { Block, Expr } from '../ir/ir.js';
import { visitBlock, visitDef } from '../ir/visit.js';
import { getBuiltin } from '../../runtime/builtins/catalog.js';
import type { TypeSpec } from '../../runtime/builtins/types.js';
import { RObject, RSet, typeName, type Value } from '../../runtime/value/index.js';
import type { Pass } from './pass.js';

export const checkTypes: Pass = {
  name: 'check-types',
  run(state) {
    const ir = state.ir!;
    const visit = (e: Expr) => checkExpr(e, state.errors);
    for (const g of ir.groups) for (const d of g.defs) visitDef(d, visit);
  },
};

/** Check the calls of a query plan's block (used by prepare()). */
export function checkBlockTypes(b: Block): RegoError[] {
  const errors: RegoError[] = [];
  visitBlock(b, (e) => checkExpr(e, errors));
  return errors;
}

function checkExpr(e: Expr, errors: RegoError[]): void {
  if (e.k !== 'call') return;
  const def = getBuiltin(e.name);
  if (!def) return;
  const args = def.decl.args;
  const bad = e.args.some((a, i) => a.k === 'const' && args[i] !== undefined && !matches(a.value, args[i]!));
  if (!bad) return;
  const have = e.args.map((a) => (a.k === 'const' ? valueType(a.value) : 'any')).join(', ');
  const want = args.map(typeString).join(', ');
  errors.push(new RegoError('rego_type_error', `${e.name}: invalid argument(s)\n\thave: (${have})\n\twant: (${want})`, e.loc));
}

/** Does a value belong to a declared type? */
export function matches(v: Value, t: TypeSpec): boolean {
  switch (t.type) {
    case 'any':
      return !t.of || t.of.length === 0 || t.of.some((x) => matches(v, x));
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      return typeName(v) === t.type;
    case 'array':
      if (!Array.isArray(v)) return false;
      return v.every((x, i) => {
        const el = t.static?.[i] ?? t.dynamic;
        return el === undefined ? t.static === undefined : matches(x, el);
      }) && (t.dynamic !== undefined || (t.static?.length ?? 0) === v.length || t.static === undefined);
    case 'set':
      return v instanceof RSet && v.values().every((x) => matches(x, t.of));
    case 'object':
      if (!(v instanceof RObject)) return false;
      return v.entries().every(([k, x]) => {
        const st = typeof k === 'string' ? t.static?.find((s) => s.key === k) : undefined;
        if (st) return matches(x, st.value);
        if (t.dynamic) return matches(k, t.dynamic.key) && matches(x, t.dynamic.value);
        return t.static === undefined;
      });
    case 'function':
      return false;
  }
}

export function typeString(t: TypeSpec): string {
  switch (t.type) {
    case 'any':
      return t.of && t.of.length ? `any<${t.of.map(typeString).join(', ')}>` : 'any';
    case 'array':
      if (t.static) return `array<${t.static.map(typeString).join(', ')}>`;
      return `array[${t.dynamic ? typeString(t.dynamic) : 'any'}]`;
    case 'set':
      return `set[${typeString(t.of)}]`;
    case 'object':
      if (t.dynamic) return `object[${typeString(t.dynamic.key)}: ${typeString(t.dynamic.value)}]`;
      return `object<${(t.static ?? []).map((s) => `${s.key}: ${typeString(s.value)}`).join(', ')}>`;
    case 'function':
      return 'function';
    default:
      return t.type;
  }
}

function valueType(v: Value): string {
  const n = typeName(v);
  if (n === 'array') return `array<${(v as Value[]).map(valueType).join(', ')}>`;
  return n;
}
