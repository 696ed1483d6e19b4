// OPA's checkRuleConflicts (v1/ast/compile.go), run by pass `rule-tree` once every
// rule has its group. With OPA's codes, messages and locations:
//   - a rule whose ref is ground (`a.b := 1`, `s contains x`, `f(x)`) may have no
//     rules below it: `rule data.p.a.b conflicts with [data.p.a.b.c]`;
//   - the rules of one path must agree in kind (single- or multi-value), arity, and
//     complete against partial (`o := {}` with `o[k] := v`), default rules included:
//     `conflicting rules data.p.o found`, at the first rule;
//   - one default per path: `multiple default rules data.p.x found at a.rego:2,
//     a.rego:3`, at the package of the first default's module;
//   - no package may sit where a rule is: `package p.q conflicts with rule q defined
//     at a.rego:2`, at the package of the rule's module.
// Rules are taken in OPA's order: modules by file name, then source order.
import type { Module, Rule, Term } from '../ast/nodes.js';
import { RegoError } from '../source/diagnostics.js';
import type { Location } from '../source/location.js';
import type { GroupRule, RuleTree } from './rule-tree.js';
import { packagePath } from './pass.js';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function keyText(t: Term): string {
  if (t.kind === 'string') return IDENT.test(t.value) ? `.${t.value}` : `[${JSON.stringify(t.value)}]`;
  if (t.kind === 'var') return `[${t.name}]`;
  if (t.kind === 'number') return `[${String((t as { value: unknown }).value)}]`;
  return '[_]';
}

/** A rule's full ref as OPA prints it: `data.p.a.b`, `data.p.q[x]`. */
function ruleRef(path: string[], keys: Term[]): string {
  return 'data' + path.map((p) => (IDENT.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`)).join('') + keys.map(keyText).join('');
}

function locText(l: Location): string {
  return l.file ? `${l.file}:${l.row}` : `${l.row}:${l.col}`;
}

function byModuleOrder(a: GroupRule, b: GroupRule): number {
  if (a.module.file !== b.module.file) return a.module.file < b.module.file ? -1 : 1;
  return a.rule.loc.offset - b.rule.loc.offset || a.rule.loc.row - b.rule.loc.row || a.rule.loc.col - b.rule.loc.col;
}

export function ruleConflictErrors(tree: RuleTree, modules: Module[]): RegoError[] {
  const errors: RegoError[] = [];
  // The rules below each node (their full refs), for the extent check.
  const below = (nodeId: number): string[] => {
    const out: string[] = [];
    const walk = (id: number) => {
      const n = tree.nodes[id]!;
      for (const key of [...n.children.keys()].sort()) {
        const child = tree.nodes[n.children.get(key)!]!;
        for (const gid of child.groups) for (const r of tree.groups[gid]!.all) out.push(ruleRef(tree.groups[gid]!.path, r.keys));
        walk(child.id);
      }
    };
    walk(nodeId);
    // OPA's refSet.AddPrefix keeps the shortest refs; Sorted orders them.
    const sorted = [...new Set(out)].sort();
    return sorted.filter((r) => !sorted.some((p) => p !== r && (r.startsWith(p + '.') || r.startsWith(p + '['))));
  };
  const visit = (id: number) => {
    const node = tree.nodes[id]!;
    for (const gid of node.groups) {
      const g = tree.groups[gid]!;
      const rules = [...g.all].sort(byModuleOrder);
      if (rules.length === 0) continue;
      const first = rules[0]!.rule;
      const name = ruleRef(g.path, rules[rules.length - 1]!.keys);
      const kinds = new Set(rules.map((r) => r.rule.head.contains));
      const arities = new Set(rules.map((r) => r.rule.head.args?.length ?? 0));
      const complete = rules.filter((r) => !r.rule.head.contains && r.keys.length === 0).length;
      const defaults = rules.filter((r) => r.rule.default);
      const conflicts = rules.some((r) => r.keys.length === 0) ? below(id) : [];
      if (conflicts.length > 0) errors.push(new RegoError('rego_type_error', `rule ${name} conflicts with [${conflicts.join(' ')}]`, first.loc));
      else if (kinds.size > 1 || arities.size > 1 || (complete >= 1 && complete < rules.length)) {
        errors.push(new RegoError('rego_type_error', `conflicting rules ${name} found`, first.loc));
      } else if (defaults.length > 1) {
        const at = defaults.map((d) => locText(d.rule.loc)).join(', ');
        errors.push(new RegoError('rego_type_error', `multiple default rules ${name} found at ${at}`, defaults[0]!.module.package.loc));
      }
    }
    for (const key of [...node.children.keys()].sort()) visit(node.children.get(key)!);
  };
  visit(0);
  errors.push(...packageConflicts(modules));
  return errors;
}

/** A package at the path of a rule with a ground ref in another module. */
function packageConflicts(modules: Module[]): RegoError[] {
  const errors: RegoError[] = [];
  const sorted = [...modules].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const packages = new Map<string, Module[]>();
  for (const m of sorted) {
    const k = packagePath(m).join('.');
    packages.set(k, [...(packages.get(k) ?? []), m]);
  }
  for (const m of sorted) {
    const pkg = packagePath(m);
    for (const r of m.rules) {
      const path = groundPath(r);
      if (path === undefined) continue;
      for (const other of packages.get([...pkg, ...path].join('.')) ?? []) {
        if (other === m) continue;
        const head = path.map((p, i) => (i === 0 ? p : IDENT.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`)).join('');
        errors.push(new RegoError('rego_type_error', `package ${[...pkg, ...path].join('.')} conflicts with rule ${head} defined at ${locText(r.loc)}`, m.package.loc));
      }
    }
  }
  return errors;
}

/** The head ref of a rule when it is all constant (`q`, `a.b`), else undefined. */
function groundPath(r: Rule): string[] | undefined {
  const out: string[] = [];
  for (const [i, t] of r.head.ref.entries()) {
    if (i === 0 && t.kind === 'var') out.push(t.name);
    else if (t.kind === 'string') out.push(t.value);
    else return undefined;
  }
  return out;
}
