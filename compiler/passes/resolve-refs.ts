// Pass `resolve-refs`: make every reference to a rule or import absolute.
// Inside `package a`, the name `p` of a rule in package a becomes `data.a.p`;
// `import data.x.y as z` makes `z` mean `data.x.y`; `import input.u` makes `u`
// mean `input.u`. Names declared locally (`:=`, `some`, `every`, function args)
// shadow rule names for the whole rule.
import type { Body, Import, Module, RefTerm, Rule, Term, VarTerm } from '../ast/nodes.js';
import { forEachTerm, mapBody, mapTerm } from '../ast/transform.js';
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
  const pkg = packagePath(m);
  const imports = importTargets(m.imports);
  const rules = m.rules.map((r) => resolveRule(r, pkg, ruleNames, imports));
  return { ...m, rules };
}

function resolveRule(r: Rule, pkg: string[], ruleNames: Set<string>, imports: Map<string, Term>): Rule {
  const locals = declaredLocals(r);
  const resolve = (v: VarTerm): Term | undefined => {
    if (locals.has(v.name) || v.wildcard) return undefined;
    const imp = imports.get(v.name);
    if (imp) return { ...imp, loc: v.loc } as Term;
    if (ruleNames.has(v.name)) return dataRef(pkg, v);
    return undefined;
  };
  const fn = (t: Term): Term | undefined => {
    if (t.kind === 'var') return resolve(t);
    if (t.kind === 'ref' && t.head.kind === 'var') {
      const head = resolve(t.head);
      const path = t.path.map((p) => mapTerm(p, fn));
      if (head && head.kind === 'ref') return { ...t, head: head.head, path: [...head.path, ...path] };
      if (head) return { ...t, head, path };
      return { ...t, path };
    }
    return undefined;
  };
  const resolveHeadRef = (ref: Term[]): Term[] => ref.map((t, i) => (i === 0 ? t : mapTerm(t, fn)));
  const head = r.head;
  const out: Rule = {
    ...r,
    head: {
      ...head,
      ref: resolveHeadRef(head.ref),
      args: head.args?.map((a) => mapTerm(a, fn)),
      key: head.key && mapTerm(head.key, fn),
      value: head.value && mapTerm(head.value, fn),
    },
    body: mapBody(r.body, fn),
    else: r.else && resolveRule(r.else, pkg, ruleNames, imports),
  };
  return out;
}

function dataRef(pkg: string[], v: VarTerm): RefTerm {
  return {
    kind: 'ref',
    head: { kind: 'var', name: 'data', loc: v.loc },
    path: [...pkg, v.name].map((s) => ({ kind: 'string' as const, value: s, loc: v.loc })),
    loc: v.loc,
  };
}

/** Vars a rule declares locally: `:=` targets, `some`, `every`, function args. */
export function declaredLocals(r: Rule): Set<string> {
  const out = new Set<string>();
  const addVars = (t: Term) =>
    forEachTerm(t, (x) => {
      if (x.kind === 'var') out.add(x.name);
    });
  r.head.args?.forEach(addVars);
  const visitBody = (b: Body) => {
    for (const e of b) {
      const eb = e.body;
      if (eb.type === 'some') eb.vars.forEach(addVars);
      else if (eb.type === 'somein') {
        if (eb.key) addVars(eb.key);
        addVars(eb.value);
        visitTerm(eb.collection);
      } else if (eb.type === 'every') {
        if (eb.key) addVars(eb.key);
        addVars(eb.value);
        visitBody(eb.body);
      } else {
        const t = eb.term;
        if (t.kind === 'call' && t.op.kind === 'var' && t.op.name === 'assign' && t.args[0]) {
          addVars(t.args[0]);
          t.args.slice(1).forEach(visitTerm);
        } else visitTerm(t);
      }
    }
  };
  const visitTerm = (t: Term) =>
    forEachTerm(t, (x) => {
      if (x.kind === 'arraycomp' || x.kind === 'setcomp' || x.kind === 'objectcomp') visitBody(x.body);
    });
  visitBody(r.body);
  if (r.else) for (const n of declaredLocals(r.else)) out.add(n);
  return out;
}
