// Strict mode, OPA's RewriteLocalVars stage (compile.go `rewriteLocalVars`):
//   assigned var x unused                                  (`x := …` never read; strict only)
//   unused argument x. (hint: use _ (wildcard variable) instead)   (strict only)
//   declared var x unused                                  (`some x` / `every x` never read)
// and the declaration errors OPA reports in the same stage (`var x referenced
// above`, `var x assigned above`, `var x declared above`, `arg x redeclared`,
// `cannot assign vars inside negated expression`, `cannot assign to …`,
// `called function f shadowed`); all are rego_compile_error. The walk mirrors
// OPA's on the source AST: one scope per rule body, comprehension body and
// `every` body; within a rule branch, once any error is found the later unused
// checks of that branch are skipped, as in OPA.
import { valueName } from '../ast/walk.js';
import type { Body, Expr, Location, Module, Rule, RuleHead, Term, VarTerm } from '../ast/nodes.js';
import { forEachTerm, refName } from '../ast/transform.js';
import { RegoError } from '../source/diagnostics.js';
import { assignCall, declaredVars, isScalar, rootDocName, termVarNames, VarStack, type Occurrence } from './scope.js';

/**
 * Every RewriteLocalVars-stage error of a module's rules, in OPA's order. Without
 * `strict` only what OPA always reports: `declared var x unused` and the
 * declaration errors (`assigned var x unused` and unused arguments are strict-only).
 */
export function unusedVarErrors(m: Module, strict = true): RegoError[] {
  const out: RegoError[] = [];
  for (const r of m.rules) out.push(...checkRule(r, strict));
  return out;
}

function err(message: string, loc: Location): RegoError {
  return new RegoError('rego_compile_error', message, loc);
}

function checkRule(rule: Rule, strict: boolean): RegoError[] {
  const out: RegoError[] = [];
  const args = rule.head.args ?? [];
  const argsStack = new VarStack();
  // Every variable of the arguments, in order; wildcards are never reported.
  const unusedArgs = new Map<string, boolean>();
  for (const a of args) walkVars(a, (v) => unusedArgs.set(v.name, v.wildcard === true));
  for (const a of args) declareArg(a, argsStack, out);
  for (let r: Rule | undefined = rule; r; r = r.else) {
    const w = new LocalsWalker(argsStack.copy(), strict);
    out.push(...w.ruleBranch(r, unusedArgs));
    for (const name of [...unusedArgs.keys()]) if (w.stack.count(name) > 1) unusedArgs.delete(name);
  }
  for (const [name, wildcard] of unusedArgs) {
    if (!wildcard && strict) out.push(err(`unused argument ${name}. (hint: use _ (wildcard variable) instead)`, rule.head.loc));
  }
  return out;
}

/** OPA's ruleArgLocalRewriter: argument variables become `arg` occurrences. */
function declareArg(t: Term, stack: VarStack, out: RegoError[]): void {
  switch (t.kind) {
    case 'var':
      if (stack.declared(t.name)) stack.seen(t.name);
      else stack.insert(t.name, 'arg', t.wildcard === true);
      return;
    case 'object':
      for (const [, v] of t.entries) declareArg(v, stack, out);
      return;
    case 'call':
      out.push(err('rule arguments cannot contain calls', t.loc));
      return;
    case 'ref':
      declareArg(t.head, stack, out);
      for (const p of t.path) declareArg(p, stack, out);
      return;
    case 'array':
      for (const x of t.items) declareArg(x, stack, out);
      return;
    default:
      return; // scalars, sets, comprehensions, templates
  }
}

/** Every var term under `t`, nested bodies included (OPA's VarVisitor over the args). */
function walkVars(t: Term, fn: (v: VarTerm) => void): void {
  forEachTerm(t, (x) => {
    if (x.kind === 'var') fn(x);
  });
}

/** `headMayHaveVars`: some argument, key, value or ref part is not a scalar. */
function headMayHaveVars(h: RuleHead): boolean {
  return (h.args ?? []).some((a) => !isScalar(a)) || !isScalar(h.key) || !isScalar(h.value) || h.ref.slice(1).some((t) => !isScalar(t));
}

class LocalsWalker {
  errs: RegoError[] = [];

  constructor(
    public stack: VarStack,
    readonly strict: boolean,
  ) {}

  /** One rule or `else` branch: head comprehensions, then the body. */
  ruleBranch(r: Rule, unusedArgs: Map<string, boolean>): RegoError[] {
    const out: RegoError[] = [];
    const used = new Set<string>();
    if (headMayHaveVars(r.head)) {
      out.push(...headComprehensions(r.head, this.strict));
      for (const t of r.head.ref.slice(1)) if (!isScalar(t)) termVarNames(t, used);
      if (!isScalar(r.head.key)) termVarNames(r.head.key, used);
      if (!isScalar(r.head.value)) {
        const valueVars = termVarNames(r.head.value);
        for (const v of valueVars) {
          used.add(v);
          unusedArgs.delete(v);
        }
      }
    }
    this.body(r.body, used, r.loc);
    out.push(...this.errs);
    return out;
  }

  body(body: Body, used: Set<string>, fallback: Location): void {
    for (const e of body) this.expr(e);
    const first = body[0]?.loc ?? fallback;
    this.checkUnusedAssigned(used, first);
    this.checkUnusedDeclared(body, used, first);
  }

  expr(e: Expr): void {
    const b = e.body;
    switch (b.type) {
      case 'term': {
        const a = assignCall(b.term);
        if (a) return this.assignment(e, a.lhs, a.rhs);
        if (b.term.kind === 'call') b.term.args.forEach((x) => this.term(x));
        else this.term(b.term);
        break;
      }
      case 'some':
        for (const v of b.vars) if (!this.declare(v.name, 'declared', v.wildcard === true, e.loc, e.loc)) return;
        return;
      case 'somein': {
        const container = termVarNames(b.collection);
        const outputs = new Set<string>();
        const wild = new Set<string>();
        for (const t of [b.key, b.value]) {
          if (t) patternVars(t, (v) => {
            if (container.has(v.name)) return;
            outputs.add(v.name);
            if (v.wildcard) wild.add(v.name);
          });
        }
        for (const name of [...outputs].sort()) if (!this.declare(name, 'declared', wild.has(name), e.loc, e.loc)) return;
        this.term(b.value);
        this.term(b.collection);
        if (b.key) this.term(b.key);
        break;
      }
      case 'every':
        this.term(b.domain);
        this.stack.push();
        try {
          for (const v of [b.key, b.value]) {
            if (v && !v.wildcard && !this.declare(v.name, 'declared', false, e.loc, e.loc)) return;
          }
          this.body(b.body, new Set(), e.loc);
          this.withs(e);
        } finally {
          this.stack.pop();
        }
        return;
    }
    this.withs(e);
    if (e.notBody) this.scoped(e.notBody, new Set(), e.loc);
  }

  private withs(e: Expr): void {
    for (const w of e.with) {
      this.term(w.target);
      this.term(w.value);
    }
  }

  private scoped(body: Body, used: Set<string>, loc: Location, heads: Term[] = []): void {
    this.stack.push();
    this.body(body, used, loc);
    for (const h of heads) this.term(h);
    this.stack.pop();
  }

  /** `lhs := rhs`: the right side is read first, then the left side's vars are assigned. */
  private assignment(e: Expr, lhs: Term, rhs: Term): void {
    if (e.negated) {
      this.errs.push(err('cannot assign vars inside negated expression', e.loc));
      return;
    }
    this.term(rhs);
    for (const w of e.with) this.term(w.value);
    const assign = (t: Term): void => {
      const root = rootDocName(t);
      if (t.kind === 'var' || root) {
        this.declare(root ?? (t as VarTerm).name, 'assigned', t.kind === 'var' && t.wildcard === true, t.loc, e.loc);
      } else if (t.kind === 'array') t.items.forEach(assign);
      else if (t.kind === 'object') for (const [, v] of t.entries) assign(v);
      else this.errs.push(err(`cannot assign to ${valueName(t)}`, t.loc));
    };
    assign(lhs);
  }

  /** Declare a name in the current scope; false (and an error) if it occurred there already. */
  private declare(name: string, occ: Occurrence, wildcard: boolean, loc: Location, exprLoc: Location): boolean {
    const prev = this.stack.occurrence(name);
    if (prev) {
      const message = prev === 'seen' ? `var ${name} referenced above` : prev === 'assigned' ? `var ${name} assigned above` : prev === 'declared' ? `var ${name} declared above` : `arg ${name} redeclared`;
      this.errs.push(err(message, loc));
      return false;
    }
    this.stack.insert(name, occ, wildcard, exprLoc);
    return true;
  }

  /** A term read in the current scope (OPA's rewriteDeclaredVarsInTermRecursive). */
  term(t: Term): void {
    switch (t.kind) {
      case 'var':
        if (this.stack.declared(t.name)) this.stack.seen(t.name);
        else this.stack.insert(t.name, 'seen', t.wildcard === true);
        return;
      case 'ref':
        if (rootDocName(t)) return;
        this.term(t.head);
        t.path.forEach((p) => this.term(p));
        return;
      case 'call': {
        const head = t.op.kind === 'var' ? t.op : t.op.head;
        const local = head.kind === 'var' ? this.stack.declared(head.name) : undefined;
        if (local && local.occ !== 'seen') this.errs.push(err(`called function ${refName(t.op) ?? ''} shadowed`, t.loc));
        t.args.forEach((x) => this.term(x));
        return;
      }
      case 'array':
      case 'set':
        t.items.forEach((x) => this.term(x));
        return;
      case 'object':
        for (const [k, v] of t.entries) {
          this.term(k);
          this.term(v);
        }
        return;
      case 'arraycomp':
      case 'setcomp':
        return this.scoped(t.body, termVarNames(t.head), t.loc, [t.head]);
      case 'objectcomp':
        return this.scoped(t.body, termVarNames(t.value, termVarNames(t.key)), t.loc, [t.key, t.value]);
      case 'template':
        t.parts.forEach((p) => typeof p !== 'string' && this.term(p));
        return;
      default:
        return;
    }
  }

  private checkUnusedAssigned(used: Set<string>, first: Location): void {
    if (this.errs.length > 0 || !this.strict) return;
    for (const v of this.stack.current().values()) {
      if (v.occ === 'assigned' && !v.wildcard && v.count <= 1 && !used.has(v.name)) {
        this.errs.push(err(`assigned var ${v.name} unused`, v.exprLoc ?? first));
      }
    }
  }

  private checkUnusedDeclared(body: Body, used: Set<string>, first: Location): void {
    if (this.errs.length > 0) return;
    for (const v of this.stack.current().values()) {
      if (v.occ !== 'declared' || v.wildcard || v.count > 1 || used.has(v.name)) continue;
      const at = body.find((e) => declaredVars([e]).has(v.name));
      this.errs.push(err(`declared var ${v.name} unused`, at?.loc ?? first));
    }
  }
}

/** Comprehensions in a rule head, each checked on a fresh stack (OPA's nested head transform). */
function headComprehensions(h: RuleHead, strict: boolean): RegoError[] {
  const w = new LocalsWalker(new VarStack(), strict);
  const visit = (t: Term): void => {
    switch (t.kind) {
      case 'arraycomp':
      case 'setcomp':
      case 'objectcomp':
        w.term(t);
        return;
      case 'ref':
        visit(t.head);
        t.path.forEach(visit);
        return;
      case 'array':
      case 'set':
        t.items.forEach(visit);
        return;
      case 'object':
        t.entries.forEach(([k, v]) => (visit(k), visit(v)));
        return;
      case 'call':
        t.args.forEach(visit);
        return;
      default:
        return;
    }
  };
  for (const t of [...(h.args ?? []), h.key, h.value]) if (t) visit(t);
  return w.errs;
}

/** Vars a pattern binds by unification: vars, array items, object values. */
function patternVars(t: Term, fn: (v: VarTerm) => void): void {
  if (t.kind === 'var') fn(t);
  else if (t.kind === 'array') t.items.forEach((x) => patternVars(x, fn));
  else if (t.kind === 'object') for (const [, v] of t.entries) patternVars(v, fn);
}

