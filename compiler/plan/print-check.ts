// OPA's rewritePrintCalls check (v1/ast/compile.go): every variable a print()
// argument reads must be bound by the expressions before the print in the body, in
// source order, or outside the body (function arguments, enclosing rule vars, input,
// data); otherwise the compile fails with `var x is undeclared` (rego_compile_error)
// at the argument. OPA runs it before the safety check, so `q if { print(y) }` is this
// error rather than `var y is unsafe`, and `print(x); x = 1` is refused, not reordered.
import type { Expr, Term } from '../ast/nodes.js';
import { refName } from '../ast/transform.js';
import { RegoError } from '../source/diagnostics.js';
import { directVars } from './scope.js';
import { displayVarName } from '../passes/resolve-refs.js';

/** The arguments of a body expression that is a print call, else undefined. */
export function printArgs(e: Expr): Term[] | undefined {
  if (e.negated || e.body.type !== 'term') return undefined;
  const t = e.body.term;
  if (t.kind !== 'call') return undefined;
  const name = refName(t.op);
  return name === 'print' || name === 'internal.print' ? t.args : undefined;
}

/**
 * The `undeclared` errors of a print expression: `declared(name)` says whether a
 * variable is bound before the print (or outside the body). Generated variables and
 * wildcards are not reported. Each argument's variables in name order, as OPA's
 * `unsafe.Sorted()`.
 */
export function undeclaredPrintVars(args: Term[], declared: (name: string) => boolean): RegoError[] {
  const errors: RegoError[] = [];
  for (const arg of args) {
    // As OPA's SafetyCheckVisitorParams: comprehension bodies and call operators are not looked into.
    const names = [...new Set(directVars(arg).map((v) => v.name))].filter((n) => !n.startsWith('$') && !declared(n));
    for (const n of names.sort()) errors.push(new RegoError('rego_compile_error', `var ${displayVarName(n)} is undeclared`, arg.loc));
  }
  return errors;
}
