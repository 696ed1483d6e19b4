// `print` and the `internal.*` builtins OPA declares: internal.print (print's
// compiled form: an array of per-argument value sets), internal.template_string
// (the concatenation behind `$"…{x}…"`), and internal.test_case (a no-op marker
// `opa test` uses). The planner handles `print(…)` calls itself; these
// implementations serve other callers (e.g. `with` replacements, direct calls).
import type { BuiltinContext, BuiltinDef } from './types.js';
import { T } from './types.js';
import { asArray } from './args.js';
import { BuiltinError } from './errors.js';
import type { Value } from '../value/value.js';
import { RSet } from '../value/collections.js';
import { formatPlain } from '../value/format.js';

/** Text of one `print` / template operand: a set of its values (empty = undefined). */
function operandText(v: Value, what: string): string {
  if (!(v instanceof RSet)) return formatPlain(v);
  const xs = v.values();
  if (xs.length === 0) return '<undefined>';
  if (xs.length > 1) throw new BuiltinError(`${what} must not produce multiple outputs`);
  return formatPlain(xs[0]!);
}

function printValues(args: Value[], ctx: BuiltinContext): Value {
  ctx.print(args.map((a) => formatPlain(a)).join(' '));
  return true;
}

function internalPrint(args: Value[], ctx: BuiltinContext): Value {
  const parts = asArray(args[0]!, 1);
  ctx.print(parts.map((p) => (p instanceof RSet ? p.values().map(formatPlain).join(' ') || '<undefined>' : formatPlain(p))).join(' '));
  return true;
}

function templateString(args: Value[]): Value {
  return asArray(args[0]!, 1)
    .map((p) => (typeof p === 'string' ? p : operandText(p, 'template-strings')))
    .join('');
}

export const builtins: BuiltinDef[] = [
  {
    decl: { name: 'print', args: [], variadic: T.any, description: 'Prints its operands (undefined operands print as <undefined>).' },
    impl: printValues,
  },
  {
    decl: { name: 'internal.print', args: [T.arrayOf(T.setOf(T.any))] },
    impl: internalPrint,
  },
  {
    decl: { name: 'internal.template_string', args: [T.arrayOf(T.any)], result: T.string },
    impl: templateString,
  },
  {
    decl: { name: 'internal.test_case', args: [T.arrayOf(T.any)] },
    impl: () => true,
  },
];
