// Pass `rule-tree`: group rules by the path they define under `data`, then check
// them as OPA's checkRuleConflicts does (rule-conflicts.ts: kind, arity, one default,
// no rules below a ground rule, no package where a rule is).
//   p := 1            → complete group at [pkg, p]
//   p contains x      → set group at [pkg, p]
//   a.b[x] := y       → object group at [pkg, a, b] with dynamic keys [x]
//   f(x) := y         → function group at [pkg, f]
import type { Module, Rule, Term } from '../ast/nodes.js';
import type { GroupKind, TreeNode } from '../ir/ir.js';
import type { Pass } from './pass.js';
import { packagePath } from './pass.js';
import { ruleConflictErrors } from './rule-conflicts.js';

export interface GroupRule {
  rule: Rule;
  module: Module;
  /** Head ref terms after the group path (dynamic keys). */
  keys: Term[];
}

export interface GroupInfo {
  id: number;
  kind: GroupKind;
  path: string[];
  rules: GroupRule[];
  defaultRule?: GroupRule;
  /** Every rule at this path, defaults included, for the conflict checks. */
  all: GroupRule[];
  arity?: number;
  /** Object groups built from `contains` rules: each leaf is a set. */
  leafSet: boolean;
  node: number;
}

export interface RuleTree {
  nodes: TreeNode[];
  groups: GroupInfo[];
  /** Group id by dotted path, for lookups by name. */
  byPath: Map<string, number>;
}

export const ruleTree: Pass = {
  name: 'rule-tree',
  run(state) {
    const tree: RuleTree = { nodes: [{ id: 0, path: [], children: new Map(), groups: [] }], groups: [], byPath: new Map() };
    for (const m of state.modules) {
      const pkg = packagePath(m);
      nodeAt(tree, pkg); // packages exist as nodes even when empty
      for (const rule of m.rules) addRule(tree, m, pkg, rule);
    }
    state.errors.push(...ruleConflictErrors(tree, state.modules));
    state.tree = tree;
  },
  dump: (state) =>
    state.tree?.groups.map((g) => ({ path: 'data.' + g.path.join('.'), kind: g.kind, rules: g.rules.length, default: !!g.defaultRule })),
};

function nodeAt(tree: RuleTree, path: string[]): TreeNode {
  let node = tree.nodes[0]!;
  for (let i = 0; i < path.length; i++) {
    let id = node.children.get(path[i]!);
    if (id === undefined) {
      id = tree.nodes.length;
      tree.nodes.push({ id, path: path.slice(0, i + 1), children: new Map(), groups: [] });
      node.children.set(path[i]!, id);
    }
    node = tree.nodes[id]!;
  }
  return node;
}

function classify(rule: Rule, pkg: string[]): { path: string[]; keys: Term[]; kind: GroupKind; leafSet: boolean } {
  const ref = rule.head.ref;
  const path = [...pkg];
  let i = 0;
  for (; i < ref.length; i++) {
    const t = ref[i]!;
    if (i === 0 && t.kind === 'var') path.push(t.name);
    else if (t.kind === 'string') path.push(t.value);
    else break;
  }
  const keys = ref.slice(i);
  // `f() := v` has no parameters: OPA makes it a plain complete rule.
  if (rule.head.args && rule.head.args.length > 0) return { path, keys, kind: 'function', leafSet: false };
  if (keys.length === 0) return { path, keys, kind: rule.head.contains ? 'set' : 'complete', leafSet: false };
  return { path, keys, kind: 'object', leafSet: rule.head.contains };
}

function addRule(tree: RuleTree, module: Module, pkg: string[], rule: Rule): void {
  const c = classify(rule, pkg);
  const dotted = c.path.join('.');
  let id = tree.byPath.get(dotted);
  if (id === undefined) {
    const node = nodeAt(tree, c.path);
    id = tree.groups.length;
    tree.groups.push({ id, kind: c.kind, path: c.path, rules: [], all: [], leafSet: c.leafSet, node: node.id, arity: rule.head.args?.length });
    node.groups.push(id);
    tree.byPath.set(dotted, id);
  }
  const g = tree.groups[id]!;
  const entry: GroupRule = { rule, module, keys: c.keys };
  g.all.push(entry);
  if (rule.default) {
    g.defaultRule ??= entry;
    if (g.rules.length === 0) g.kind = c.kind;
    return;
  }
  // The kind of the first non-default rule; rule-conflicts.ts reports disagreements.
  if (g.rules.length === 0) {
    g.kind = c.kind;
    g.leafSet = c.leafSet;
    g.arity = rule.head.args?.length;
  }
  g.rules.push(entry);
}
