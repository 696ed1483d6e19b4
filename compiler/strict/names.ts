// Strict mode, the module-level name checks (all rego_compile_error):
//   import data.foo unused                 OPA's ResolveRefs stage, at the import: an import
//                                          whose name no rule head or body resolves to
//   rules/args/variables must not shadow input (use a different … name)
//                                          OPA's CheckKeywordOverrides: `input`/`data` as a rule
//                                          name (at the rule), an argument (at the argument) or
//                                          an assignment target anywhere (at the expression)
//   import must not shadow import data.x   OPA's CheckDuplicateImports, at the later import
// Import usage is decided as OPA's resolveRefsInRule does: a var resolves to an
// import unless the rule declares that name locally (function args, `:=` targets,
// `some`, `some … in` patterns; comprehension and `every` locals inside them).
// Function argument patterns and the rule name itself are never resolved.
// `future.*` and `rego.*` imports are exempt. The ResolveRefs stage also rejects
// function args named `input`/`data` (`args must not shadow input (use a different
// variable name)`, at the rule); that error is reported with the unused imports.
import type { Body, Expr, Import, Module, Rule, Term } from '../ast/nodes.js';
import { kindOf, walk } from '../ast/walk.js';
import { formatTerm } from '../ast/print.js';
import { RegoError } from '../source/diagnostics.js';
import { assignCall, declaredVars, rootDocName, termVarNames } from './scope.js';

/** The name an import binds: its alias, else the last path element. */
export function importName(imp: Import): string | undefined {
  if (imp.alias) return imp.alias;
  const p = imp.path;
  if (p.kind === 'var') return p.name;
  if (p.path.length === 0) return p.head.kind === 'var' ? p.head.name : undefined;
  const last = p.path[p.path.length - 1]!;
  return last.kind === 'string' ? last.value : undefined;
}

/** OPA's Import.String(): `import data.foo.bar`, `import data.x as y`. */
export function importText(imp: Import): string {
  return `import ${formatTerm(imp.path)}${imp.alias ? ` as ${imp.alias}` : ''}`;
}

function importRoot(imp: Import): string {
  const p = imp.path;
  return p.kind === 'var' ? p.name : p.head.kind === 'var' ? p.head.name : '';
}

/** `args must not shadow …` and `import … unused` for one module (OPA's ResolveRefs stage). */
export function unusedImportErrors(m: Module): RegoError[] {
  const errors: RegoError[] = [];
  const used = new Map<string, boolean>();
  for (const imp of m.imports) {
    const root = importRoot(imp);
    const name = importName(imp);
    if (root === 'future' || root === 'rego' || name === undefined) continue;
    used.set(name, false);
  }
  for (const r of m.rules) {
    for (let x: Rule | undefined = r; x; x = x.else) {
      const shadow = argShadowing(x);
      if (shadow) {
        errors.push(new RegoError('rego_compile_error', `args must not shadow ${shadow} (use a different variable name)`, x.loc));
        break;
      }
      new Usage(used).rule(x);
    }
  }
  for (const imp of m.imports) {
    const name = importName(imp);
    if (name !== undefined && used.get(name) === false) errors.push(new RegoError('rego_compile_error', `${importText(imp)} unused`, imp.loc));
  }
  return errors;
}

/** `import must not shadow import …` for one module (OPA's checkDuplicateImports). */
export function duplicateImportErrors(m: Module): RegoError[] {
  const errors: RegoError[] = [];
  const seen = new Map<string, Import>();
  for (const imp of m.imports) {
    const name = importName(imp) ?? '';
    const first = seen.get(name);
    if (first) errors.push(new RegoError('rego_compile_error', `import must not shadow ${importText(first)}`, imp.loc));
    else seen.set(name, imp);
  }
  return errors;
}

/** The root document (`input`/`data`) an argument pattern names, if any. */
function argShadowing(r: Rule): string | undefined {
  let found: string | undefined;
  const visit = (t: Term): void => {
    if (found) return;
    const root = rootDocName(t);
    if (root && t.kind === 'ref') found = root;
    else if (t.kind === 'ref') [t.head, ...t.path].forEach(visit);
    else if (t.kind === 'array') t.items.forEach(visit);
    else if (t.kind === 'object') t.entries.forEach(([, v]) => visit(v));
  };
  (r.head.args ?? []).forEach(visit);
  return found;
}

/** Marks the imports a rule's head and body resolve to. */
class Usage {
  private ignore: Set<string>[] = [];

  constructor(private used: Map<string, boolean>) {}

  rule(r: Rule): void {
    const args = new Set<string>();
    for (const a of r.head.args ?? []) termVarNames(a, args);
    this.ignore.push(args, declaredVars(r.body));
    r.head.ref.slice(1).forEach((t) => this.term(t));
    if (r.head.key) this.term(r.head.key);
    if (r.head.value) this.term(r.head.value);
    this.body(r.body);
  }

  private name(n: string): void {
    if (this.used.has(n) && !this.ignore.some((s) => s.has(n))) this.used.set(n, true);
  }

  private body(b: Body): void {
    for (const e of b) this.expr(e);
  }

  private expr(e: Expr): void {
    const b = e.body;
    if (b.type === 'term') this.term(b.term);
    else if (b.type === 'somein') {
      if (b.key) this.term(b.key);
      this.term(b.value);
      this.term(b.collection);
    } else if (b.type === 'every') {
      const locals = new Set<string>();
      if (b.key) locals.add(b.key.name);
      locals.add(b.value.name);
      this.ignore.push(locals);
      this.term(b.domain);
      this.body(b.body);
      this.ignore.pop();
    }
    for (const w of e.with) {
      this.term(w.target);
      this.term(w.value);
    }
    if (e.notBody) this.body(e.notBody);
  }

  private term(t: Term): void {
    switch (t.kind) {
      case 'var': return this.name(t.name);
      case 'ref':
        this.term(t.head);
        return t.path.forEach((p) => this.term(p));
      case 'array': case 'set': return t.items.forEach((x) => this.term(x));
      case 'object': return t.entries.forEach(([k, v]) => (this.term(k), this.term(v)));
      case 'call':
        this.term(t.op);
        return t.args.forEach((x) => this.term(x));
      case 'arraycomp': case 'setcomp': case 'objectcomp':
        this.ignore.push(declaredVars(t.body));
        if (t.kind === 'objectcomp') (this.term(t.key), this.term(t.value));
        else this.term(t.head);
        this.body(t.body);
        this.ignore.pop();
        return;
      case 'template': return t.parts.forEach((p) => typeof p !== 'string' && this.term(p));
      default: return;
    }
  }
}

const ROOTS = new Set(['input', 'data']);

/** `… must not shadow input/data` for one module (OPA's checkRootDocumentOverrides). */
export function rootShadowingErrors(m: Module): RegoError[] {
  const errors: RegoError[] = [];
  const error = (message: string, loc: RegoError['location']) => errors.push(new RegoError('rego_compile_error', message, loc));
  // Rules and their arguments (`else` branches share the head, so only the first counts).
  for (const r of m.rules) {
    const h = r.head.ref[0];
    if (h?.kind === 'var' && ROOTS.has(h.name)) error(`rules must not shadow ${h.name} (use a different rule name)`, r.loc);
    for (const a of r.head.args ?? []) {
      const root = a.kind === 'ref' ? rootDocName(a) : undefined;
      if (root) error(`args must not shadow ${root} (use a different variable name)`, a.loc);
    }
  }
  // Assignments to `input`/`data`, in every body of the module.
  walk(m, (node) => {
    if (kindOf(node) !== 'expr') return;
    const n = node as Expr;
    if (n.body.type !== 'term') return;
    const a = assignCall(n.body.term);
    const root = a && rootDocName(a.lhs);
    if (root) error(`variables must not shadow ${root} (use a different variable name)`, n.loc);
  });
  return errors;
}
