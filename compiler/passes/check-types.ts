// Pass `check-types`: builtin call arguments must fit the builtin's declared types
// (OPA's rego_type_error), with the types type-infer.ts gives them. Arity was
// checked while planning. `matches` judges a value against a type (partial
// evaluation uses it for constant arguments).
import { RegoError } from '../source/diagnostics.js';
import type { Block, PolicyIR } from '../ir/ir.js';
import { TypeChecker } from './type-infer.js';
import type { TypeSpec } from '../../runtime/builtins/types.js';
import { RObject, RSet, typeName, type Value } from '../../runtime/value/index.js';
import type { Pass } from './pass.js';

export const checkTypes: Pass = {
  name: 'check-types',
  run(state) {
    const ir = state.ir!;
    const checker = new TypeChecker(ir);
    for (const g of ir.groups) for (const d of g.defs) checker.checkDef(d);
    state.errors.push(...checker.errors);
  },
};

/** Check the calls of a query plan's block (used by prepare()); `ir` gives rule types. */
export function checkBlockTypes(b: Block, ir?: PolicyIR): RegoError[] {
  const checker = new TypeChecker(ir);
  checker.checkQuery(b);
  return checker.errors;
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
