// OPA's checkSafetyRuleHeads (v1/ast/compile.go), a stage before the bodies' safety
// check: every variable in a rule's head (its ref, key or value; function arguments
// are safe) must appear in its body, or the compile fails with `var x is unsafe` at
// the rule, and the bodies are not checked. A head term that needs evaluation (it
// holds a ref, a call or a comprehension) counts as part of the body, as OPA's
// RewriteRefsInHead moves it there first; so `p := x if { y > 1 }` reports x (the
// head) rather than y (the body).
import type { Body, Module, Rule, Term } from '../ast/nodes.js';
import { forEachTerm } from '../ast/transform.js';
import { needsEval } from './terms.js';
import { RegoError } from '../source/diagnostics.js';
import { exprTerms } from './analyze.js';
import { directVars } from './scope.js';
import { displayVarName } from '../passes/resolve-refs.js';

/** Every unsafe head variable of the modules' rules (else branches included), in module and rule order. */
export function headSafetyErrors(modules: Module[]): RegoError[] {
  const errors: RegoError[] = [];
  for (const m of modules) {
    for (const top of m.rules) for (let r: Rule | undefined = top; r; r = r.else) errors.push(...ruleHeadErrors(r));
  }
  return errors;
}

function ruleHeadErrors(r: Rule): RegoError[] {
  if (r.default) return [];
  const terms = [...r.head.ref.slice(1), ...(r.head.key ? [r.head.key] : []), ...(r.head.value ? [r.head.value] : [])].filter((t) => !needsEval(t, true));
  const headVars = terms.flatMap((t) => directVars(t)).filter((v) => !v.wildcard && !v.name.startsWith('$'));
  if (headVars.length === 0) return [];
  const safe = bodyNames(r.body);
  for (const a of r.head.args ?? []) forEachTerm(a, (x) => x.kind === 'var' && safe.add(x.name));
  for (const t of [...r.head.ref.slice(1), r.head.key, r.head.value]) if (t && needsEval(t, true)) directVars(t).forEach((v) => safe.add(v.name));
  const reported = new Set<string>();
  const errors: RegoError[] = [];
  for (const v of headVars) {
    if (safe.has(v.name) || reported.has(v.name)) continue;
    reported.add(v.name);
    errors.push(new RegoError('rego_unsafe_var_error', `var ${displayVarName(v.name)} is unsafe`, r.loc));
  }
  return errors;
}

/**
 * The names of the variables a body holds outside closures (comprehension and `every`
 * bodies, and template-string parts, which OPA has rewritten to comprehensions by then).
 */
export function bodyNames(body: Body): Set<string> {
  const out = new Set<string>();
  for (const e of body) for (const t of exprTerms(e)) directVars(t, [], false).forEach((v) => out.add(v.name));
  for (const e of body) if (e.body.type === 'every') [e.body.key, e.body.value].forEach((v) => v && out.add(v.name));
  return out;
}

