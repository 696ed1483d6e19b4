// Which definitions of a function group can match a call, keyed on one argument: the
// analysis both back ends index user functions with (codegen/js/rule-compiler.ts
// compileFunctionIndex, codegen/wasm/index-dispatch.ts functionIndex), as OPA's rule
// index does for functions. For `f("E") = …`, `f("P") = …`, … the parameter position
// where most definitions (at least two) have a constant scalar pattern keys those
// definitions; the others run on every call. A definition left out for a key cannot
// match: its constant differs from the argument, so its parameter pattern would fail
// before its body runs.
import type { RuleDef, RuleGroup } from './ir.js';
import { canonicalKey } from '../../runtime/value/key.js';
import type { Value } from '../../runtime/value/value.js';

export interface FunctionArgumentIndex {
  /** The parameter position the index keys on. */
  pos: number;
  /** Per distinct constant (canonical key order of first appearance): the definitions with it, in order. */
  entries: { key: Value; defs: number[] }[];
  /** Definitions without a constant there (or not indexable): they run on every call. */
  always: number[];
}

/** Definition `d`'s constant scalar pattern for parameter `i`, if it has one. */
function constParam(d: RuleDef, i: number): Value | undefined {
  const p = d.params[i];
  if (p?.k !== 'value' || p.expr.k !== 'const') return undefined;
  const v = p.expr.value;
  return typeof v === 'object' && v !== null ? undefined : v;
}

/**
 * The argument index of function group `g`, or undefined when no position has a
 * constant in two definitions. `indexable(d)` may keep a definition out of the keyed
 * entries (it then runs on every call).
 */
export function functionArgumentIndex(g: RuleGroup, indexable: (d: RuleDef) => boolean = () => true): FunctionArgumentIndex | undefined {
  if (g.kind !== 'function' || g.defs.length < 2) return undefined;
  const at = (d: RuleDef, i: number): Value | undefined => (indexable(d) ? constParam(d, i) : undefined);
  const arity = g.defs[0]!.params.length;
  let pos = -1;
  let most = 1;
  for (let i = 0; i < arity; i++) {
    const n = g.defs.filter((d) => at(d, i) !== undefined).length;
    if (n > most) [pos, most] = [i, n];
  }
  if (pos < 0) return undefined;
  const byKey = new Map<string, { key: Value; defs: number[] }>();
  const always: number[] = [];
  g.defs.forEach((d, i) => {
    const v = at(d, pos);
    if (v === undefined) return void always.push(i);
    const k = canonicalKey(v);
    const e = byKey.get(k) ?? { key: v, defs: [] };
    e.defs.push(i);
    byKey.set(k, e);
  });
  return { pos, entries: [...byKey.values()], always };
}
