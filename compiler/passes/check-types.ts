// Pass `check-types`: builtin calls whose arguments are constants must match the
// builtin's declared argument types (OPA's rego_type_error). Arity was checked
// while planning. Only literal values are judged here, so a valid program is
// never rejected for a type this checker cannot infer.
import { RegoError } from '../source/diagnostics.js';
import type { Block, Expr, PolicyIR, RuleDef, Stmt } from '../ir/ir.js';
import { getBuiltin } from '../../runtime/builtins/catalog.js';
import type { TypeSpec } from '../../runtime/builtins/types.js';
import { RObject, RSet, typeName, type Value } from '../../runtime/value/index.js';
import type { Pass } from './pass.js';

export const checkTypes: Pass = {
  name: 'check-types',
  run(state) {
    const ir = state.ir!;
    const visit = (e: Expr) => checkExpr(e, state.errors);
    for (const g of ir.groups) for (const d of g.defs) walkDef(d, visit);
  },
};

/** Check the calls of a query plan's block (used by prepare()). */
export function checkBlockTypes(b: Block): RegoError[] {
  const errors: RegoError[] = [];
  walkBlock(b, (e) => checkExpr(e, errors));
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

function walkDef(d: RuleDef, fn: (e: Expr) => void): void {
  walkBlock(d.body, fn);
  d.keys.forEach((k) => walkExpr(k, fn));
  walkExpr(d.value, fn);
  if (d.else) walkDef(d.else, fn);
}

function walkBlock(b: Block, fn: (e: Expr) => void): void {
  for (const s of b) walkStmt(s, fn);
}

function walkStmt(s: Stmt, fn: (e: Expr) => void): void {
  switch (s.k) {
    case 'let':
    case 'test':
    case 'capture':
      return walkExpr(s.expr, fn);
    case 'equal':
      walkExpr(s.a, fn);
      return walkExpr(s.b, fn);
    case 'match':
      return walkExpr(s.expr, fn);
    case 'scan':
      return walkExpr(s.source, fn);
    case 'relation':
      return s.args.forEach((a) => walkExpr(a, fn));
    case 'not':
    case 'with':
      return walkBlock(s.body, fn);
    case 'every':
      walkExpr(s.domain, fn);
      return walkBlock(s.body, fn);
    case 'print':
      return s.args.forEach((a) => walkExpr(a, fn));
  }
}

function walkExpr(e: Expr, fn: (e: Expr) => void): void {
  fn(e);
  switch (e.k) {
    case 'dot':
      walkExpr(e.base, fn);
      return walkExpr(e.key, fn);
    case 'vdocdot':
      return walkExpr(e.key, fn);
    case 'call':
    case 'callfn':
      return e.args.forEach((a) => walkExpr(a, fn));
    case 'array':
    case 'set':
      return e.items.forEach((a) => walkExpr(a, fn));
    case 'object':
      return e.entries.forEach(([k, v]) => (walkExpr(k, fn), walkExpr(v, fn)));
    case 'compr':
      walkBlock(e.body, fn);
      walkExpr(e.head, fn);
      if (e.key) walkExpr(e.key, fn);
      return;
    case 'template':
      return e.parts.forEach((p) => typeof p !== 'string' && walkExpr(p, fn));
    default:
      return;
  }
}
