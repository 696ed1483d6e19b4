// OPA's RewriteTemplateStrings checks (v1/ast/compile.go rewriteTemplateString), a
// stage before the safety checks: every variable a template-string part reads
// (outside comprehensions) must be an output of the enclosing body (anywhere in it)
// or a function argument, else `var x is undeclared` (rego_compile_error) at the
// part; a part calling a relation builtin (`walk`) is `illegal call to relation
// built-in 'walk' that may cause multiple outputs`, without a location (OPA builds it
// from a nil term). Head templates see the rule body's variables. "An output of the
// body" is taken as "appears in the body outside closures": a variable that appears
// but is never bound fails the safety check after this.
import type { Body, Module, Rule, Term } from '../ast/nodes.js';
import { refName } from '../ast/transform.js';
import { RegoError } from '../source/diagnostics.js';
import { exprTerms } from './analyze.js';
import { bodyNames } from './head-safety.js';
import { ROOT_VARS, directVars } from './scope.js';
import { displayVarName } from '../passes/resolve-refs.js';

export function templateErrors(modules: Module[], isRelation: (name: string) => boolean): RegoError[] {
  const errors: RegoError[] = [];
  const check = new TemplateCheck(isRelation, errors);
  for (const m of modules) for (const top of m.rules) for (let r: Rule | undefined = top; r; r = r.else) check.rule(r);
  return errors;
}

/** The same checks over an ad-hoc query (OPA's query compiler rewrites template strings too). */
export function queryTemplateErrors(body: Body, isRelation: (name: string) => boolean): RegoError[] {
  const errors: RegoError[] = [];
  new TemplateCheck(isRelation, errors).query(body);
  return errors;
}

class TemplateCheck {
  constructor(
    private readonly isRelation: (name: string) => boolean,
    private readonly errors: RegoError[],
  ) {}

  rule(r: Rule): void {
    const safe = new Set(ROOT_VARS);
    for (const a of r.head.args ?? []) directVars(a).forEach((v) => safe.add(v.name));
    const inner = this.body(r.body, safe);
    for (const t of [...r.head.ref.slice(1), r.head.key, r.head.value]) if (t) this.term(t, inner);
  }

  query(body: Body): void {
    this.body(body, new Set(ROOT_VARS));
  }

  /** Check a body's terms; returns the variables safe inside it. */
  private body(body: Body, outer: Set<string>): Set<string> {
    const safe = new Set([...outer, ...bodyNames(body)]);
    for (const e of body) {
      for (const t of exprTerms(e)) this.term(t, safe);
      if (e.notBody) this.body(e.notBody, safe);
      if (e.body.type === 'every') {
        const vars = new Set(safe);
        for (const v of [e.body.key, e.body.value]) if (v) vars.add(v.name);
        this.body(e.body.body, vars);
      }
    }
    return safe;
  }

  private term(t: Term, safe: Set<string>): void {
    switch (t.kind) {
      case 'template':
        for (const p of t.parts) if (typeof p !== 'string') this.part(p, safe);
        return;
      case 'arraycomp':
      case 'setcomp': {
        const inner = this.body(t.body, safe);
        this.term(t.head, inner);
        return;
      }
      case 'objectcomp': {
        const inner = this.body(t.body, safe);
        this.term(t.key, inner);
        this.term(t.value, inner);
        return;
      }
      case 'ref':
        this.term(t.head, safe);
        t.path.forEach((x) => this.term(x, safe));
        return;
      case 'call':
        t.args.forEach((x) => this.term(x, safe));
        return;
      case 'array':
      case 'set':
        t.items.forEach((x) => this.term(x, safe));
        return;
      case 'object':
        t.entries.forEach(([k, v]) => (this.term(k, safe), this.term(v, safe)));
        return;
      default:
        return;
    }
  }

  private part(p: Term, safe: Set<string>): void {
    const name = p.kind === 'call' ? refName(p.op) : undefined;
    if (name !== undefined && this.isRelation(name)) {
      this.errors.push(new RegoError('rego_compile_error', `illegal call to relation built-in '${name}' that may cause multiple outputs`));
      return;
    }
    const names = [...new Set(directVars(p).map((v) => v.name))].filter((n) => !n.startsWith('$') && !safe.has(n)).sort();
    for (const n of names) this.errors.push(new RegoError('rego_compile_error', `var ${displayVarName(n)} is undeclared`, p.loc));
    this.term(p, safe);
  }
}
