// Pass `check-recursion`: rules may not depend on themselves. Builds the group
// dependency graph from the IR (rule, vdoc and function references) and reports
// each cycle as OPA does: `rule data.a.p is recursive: data.a.p -> data.a.q -> data.a.p`.
import { RegoError } from '../source/diagnostics.js';
import type { Block, Expr, Pattern, PolicyIR, RuleDef, Stmt } from '../ir/ir.js';
import type { Pass } from './pass.js';

export const checkRecursion: Pass = {
  name: 'check-recursion',
  run(state) {
    const ir = state.ir!;
    const deps = ir.groups.map((g) => {
      const out = new Set<number>();
      for (const d of g.defs) defDeps(ir, d, out);
      return out;
    });
    const reported = new Set<number>();
    for (const g of ir.groups) {
      if (reported.has(g.id)) continue;
      const cycle = findCycle(g.id, deps);
      if (!cycle) continue;
      cycle.forEach((id) => reported.add(id));
      const names = cycle.map((id) => 'data.' + ir.groups[id]!.path.join('.'));
      const loc = ir.groups[g.id]!.defs[0]?.loc;
      state.errors.push(new RegoError('rego_recursion_error', `rule ${names[0]} is recursive: ${names.join(' -> ')}`, loc));
    }
  },
};

function findCycle(start: number, deps: Set<number>[]): number[] | undefined {
  const path: number[] = [];
  const visiting = new Set<number>();
  const done = new Set<number>();
  const visit = (id: number): number[] | undefined => {
    if (id === start && path.length > 0) return [...path, start];
    if (visiting.has(id) || done.has(id)) return undefined;
    visiting.add(id);
    path.push(id);
    for (const d of deps[id]!) {
      const r = visit(d);
      if (r) return r;
    }
    path.pop();
    visiting.delete(id);
    done.add(id);
    return undefined;
  };
  return visit(start);
}

function defDeps(ir: PolicyIR, d: RuleDef, out: Set<number>): void {
  blockDeps(ir, d.body, out);
  d.keys.forEach((k) => exprDeps(ir, k, out));
  exprDeps(ir, d.value, out);
  if (d.else) defDeps(ir, d.else, out);
}

function blockDeps(ir: PolicyIR, b: Block, out: Set<number>): void {
  for (const s of b) stmtDeps(ir, s, out);
}

function stmtDeps(ir: PolicyIR, s: Stmt, out: Set<number>): void {
  switch (s.k) {
    case 'let':
    case 'test':
    case 'capture':
      return exprDeps(ir, s.expr, out);
    case 'equal':
      exprDeps(ir, s.a, out);
      return exprDeps(ir, s.b, out);
    case 'match':
      patternDeps(ir, s.pattern, out);
      return exprDeps(ir, s.expr, out);
    case 'scan':
      exprDeps(ir, s.source, out);
      patternDeps(ir, s.key, out);
      return patternDeps(ir, s.value, out);
    case 'relation':
      s.args.forEach((a) => exprDeps(ir, a, out));
      return patternDeps(ir, s.out, out);
    case 'not':
      return blockDeps(ir, s.body, out);
    case 'every':
      exprDeps(ir, s.domain, out);
      return blockDeps(ir, s.body, out);
    case 'with':
      s.mods.forEach((m) => 'value' in m && 'k' in m.value && m.value.k !== 'fnref' && exprDeps(ir, m.value as Expr, out));
      return blockDeps(ir, s.body, out);
    case 'print':
      return s.args.forEach((a) => exprDeps(ir, a, out));
  }
}

function patternDeps(ir: PolicyIR, p: Pattern, out: Set<number>): void {
  if (p.k === 'value') exprDeps(ir, p.expr, out);
  else if (p.k === 'array') p.items.forEach((x) => patternDeps(ir, x, out));
  else if (p.k === 'object') p.entries.forEach(([k, v]) => (exprDeps(ir, k, out), patternDeps(ir, v, out)));
}

function exprDeps(ir: PolicyIR, e: Expr, out: Set<number>): void {
  switch (e.k) {
    case 'rule':
      out.add(e.group);
      return;
    case 'callfn':
      out.add(e.group);
      return e.args.forEach((a) => exprDeps(ir, a, out));
    case 'vdoc':
      return nodeGroups(ir, e.node, out);
    case 'vdocdot':
      // Dynamic keys are checked at run time (a rule re-entering itself is an error).
      return exprDeps(ir, e.key, out);
    case 'dot':
      exprDeps(ir, e.base, out);
      return exprDeps(ir, e.key, out);
    case 'call':
      return e.args.forEach((a) => exprDeps(ir, a, out));
    case 'array':
    case 'set':
      return e.items.forEach((a) => exprDeps(ir, a, out));
    case 'object':
      return e.entries.forEach(([k, v]) => (exprDeps(ir, k, out), exprDeps(ir, v, out)));
    case 'compr':
      blockDeps(ir, e.body, out);
      exprDeps(ir, e.head, out);
      if (e.key) exprDeps(ir, e.key, out);
      return;
    case 'template':
      return e.parts.forEach((p) => typeof p !== 'string' && exprDeps(ir, p, out));
    default:
      return;
  }
}

function nodeGroups(ir: PolicyIR, id: number, out: Set<number>): void {
  const n = ir.nodes[id]!;
  n.groups.forEach((g) => ir.groups[g]!.kind !== 'function' && out.add(g));
  for (const c of n.children.values()) nodeGroups(ir, c, out);
}
