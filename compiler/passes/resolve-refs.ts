// Pass `resolve-refs`: make every reference to a rule or import absolute, as OPA's
// ResolveRefs stage does. Inside `package a`, the name `p` of a rule in package a
// becomes `data.a.p`; `import data.x.y as z` makes `z` mean `data.x.y`; `import
// input.u` makes `u` mean `input.u` (an import wins over a rule of the same name).
//
// Local names shadow those globals, scoped as in OPA (declaredVarStack):
//   * the rule level: function argument vars, and every var the body declares with
//     `:=`, `some` or `some … in` (also inside `every` bodies, not inside
//     comprehensions), for the whole rule (head and body);
//   * each comprehension: the vars its own body declares;
//   * each `every`: its key and value vars.
// A local named `input` or `data` (`input := {…}`) is a plain variable from there on:
// it is renamed to `input#local` so the planner does not read the root document.
import type { Body, Expr, Import, Location, Module, RefTerm, Rule, Term, VarTerm } from '../ast/nodes.js';
import { forEachTerm, mapExpr, mapTerm, type TermMapper } from '../ast/transform.js';
import type { CompileState, Pass } from './pass.js';
import { packagePath } from './pass.js';

export const resolveRefs: Pass = {
  name: 'resolve-refs',
  run(state) {
    const rulesByPackage = new Map<string, Set<string>>();
    for (const m of state.modules) {
      const key = packagePath(m).join('.');
      const set = rulesByPackage.get(key) ?? new Set<string>();
      for (const r of m.rules) {
        const h = r.head.ref[0];
        if (h?.kind === 'var') set.add(h.name);
      }
      rulesByPackage.set(key, set);
    }
    state.modules = state.modules.map((m) => resolveModule(m, rulesByPackage.get(packagePath(m).join('.')) ?? new Set()));
  },
  dump: (state: CompileState) => state.modules,
};

/** The suffix that marks a local variable named after a root document. */
export const SHADOWED_ROOT_SUFFIX = '#local';

/** A variable's name as the user wrote it (`input#local` → `input`). */
export function displayVarName(name: string): string {
  return name.endsWith(SHADOWED_ROOT_SUFFIX) ? name.slice(0, -SHADOWED_ROOT_SUFFIX.length) : name;
}

function importTargets(imports: Import[]): Map<string, Term> {
  const out = new Map<string, Term>();
  for (const imp of imports) {
    const p = imp.path;
    const root = p.kind === 'var' ? p.name : p.head.kind === 'var' ? p.head.name : '';
    if (root !== 'data' && root !== 'input') continue;
    let name = imp.alias;
    if (!name) {
      const last = p.kind === 'ref' ? p.path[p.path.length - 1] : p;
      name = last?.kind === 'string' ? last.value : last?.kind === 'var' ? last.name : undefined;
    }
    if (name) out.set(name, p);
  }
  return out;
}

function resolveModule(m: Module, ruleNames: Set<string>): Module {
  const globals: Globals = new Map();
  const pkg = packagePath(m);
  for (const name of ruleNames) globals.set(name, (loc) => dataRef(pkg, name, loc));
  for (const [name, target] of importTargets(m.imports)) globals.set(name, (loc) => ({ ...target, loc }) as Term);
  return { ...m, rules: m.rules.map((r) => resolveRule(r, globals)) };
}

/** What each global name stands for, built at the place it is used. */
type Globals = Map<string, (loc: Location) => Term>;

function resolveRule(r: Rule, globals: Globals): Rule {
  const args = new Set<string>();
  // Argument vars (not `input`/`data` read inside an argument, as in `f($"{input.y}")`).
  r.head.args?.forEach((a) => forEachTerm(a, (x) => x.kind === 'var' && x.name !== 'input' && x.name !== 'data' && args.add(x.name)));
  const scope = new Scoped(globals, [args, declaredVars(r.body)]);
  const head = r.head;
  return {
    ...r,
    head: {
      ...head,
      ref: head.ref.map((t, i) => (i === 0 ? t : scope.term(t))),
      args: head.args?.map((a) => scope.term(a)),
      key: head.key && scope.term(head.key),
      value: head.value && scope.term(head.value),
    },
    body: scope.body(r.body),
    else: r.else && resolveRule(r.else, globals),
  };
}

/** Resolution with a stack of locally declared names. */
class Scoped {
  private readonly mapper: TermMapper = (t) => this.replace(t);
  constructor(
    private readonly globals: Globals,
    private readonly stack: Set<string>[],
  ) {}

  private declared(name: string): boolean {
    for (let i = this.stack.length - 1; i >= 0; i--) if (this.stack[i]!.has(name)) return true;
    return false;
  }

  private within<T>(names: Set<string>, fn: () => T): T {
    this.stack.push(names);
    try {
      return fn();
    } finally {
      this.stack.pop();
    }
  }

  term(t: Term): Term {
    return mapTerm(t, this.mapper);
  }

  body(b: Body): Body {
    return b.map((e) => this.expr(e));
  }

  private expr(e: Expr): Expr {
    const b = e.body;
    const withs = e.with.map((w) => {
      const target = this.term(w.target);
      return { ...w, target: target.kind === 'ref' || target.kind === 'var' ? target : w.target, value: this.term(w.value) };
    });
    if (e.notBody) {
      const notBody = e.notBody;
      return { ...e, with: withs, notBody: this.within(declaredVars(notBody), () => this.body(notBody)) };
    }
    if (b.type === 'every') {
      const locals = new Set([b.value.name, ...(b.key ? [b.key.name] : [])]);
      return this.within(locals, () => ({ ...e, with: withs, body: { ...b, domain: this.term(b.domain), body: this.body(b.body) } }));
    }
    return { ...mapExpr({ ...e, with: [] }, this.mapper), with: withs };
  }

  private variable(v: VarTerm): Term | undefined {
    if (v.wildcard) return undefined;
    if (this.declared(v.name)) {
      return v.name === 'input' || v.name === 'data' ? { ...v, name: v.name + SHADOWED_ROOT_SUFFIX } : undefined;
    }
    const g = this.globals.get(v.name);
    return g?.(v.loc);
  }

  private replace(t: Term): Term | undefined {
    switch (t.kind) {
      case 'var':
        return this.variable(t);
      case 'ref': {
        if (t.head.kind !== 'var') return undefined;
        const head = this.variable(t.head);
        const path = t.path.map((p) => this.term(p));
        if (head && head.kind === 'ref') return { ...t, head: head.head, path: [...head.path, ...path] };
        if (head && path.length === 0) return head;
        return { ...t, head: head ?? t.head, path };
      }
      case 'arraycomp':
      case 'setcomp':
        return this.within(declaredVars(t.body), () => ({ ...t, head: this.term(t.head), body: this.body(t.body) }));
      case 'objectcomp':
        return this.within(declaredVars(t.body), () => ({ ...t, key: this.term(t.key), value: this.term(t.value), body: this.body(t.body) }));
      default:
        return undefined;
    }
  }
}

function dataRef(pkg: string[], name: string, loc: Location): RefTerm {
  return {
    kind: 'ref',
    head: { kind: 'var', name: 'data', loc },
    path: [...pkg, name].map((s) => ({ kind: 'string' as const, value: s, loc })),
    loc,
  };
}

/**
 * The names a body declares (OPA's declaredVars): `:=` targets, `some` vars and
 * `some … in` key/value vars, including those inside `every` bodies and `not { }`
 * bodies, but not inside comprehensions (they declare their own).
 */
export function declaredVars(body: Body, out = new Set<string>()): Set<string> {
  const addVars = (t: Term) =>
    forEachTerm(t, (x) => {
      if (x.kind === 'var') out.add(x.name);
    });
  for (const e of body) {
    const b = e.body;
    if (b.type === 'some') b.vars.forEach((v) => out.add(v.name));
    else if (b.type === 'somein') {
      if (b.key) addVars(b.key);
      addVars(b.value);
    } else if (b.type === 'every') declaredVars(b.body, out);
    else if (b.term.kind === 'call' && b.term.op.kind === 'var' && b.term.op.name === 'assign' && b.term.args[0]) addVars(b.term.args[0]);
    if (e.notBody) declaredVars(e.notBody, out);
  }
  return out;
}
