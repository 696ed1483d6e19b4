// Pass `check-recursion`: rules may not depend on themselves. Builds the group
// dependency graph from the IR (rule, vdoc and function references) and reports
// each cycle as OPA does: `rule data.a.p is recursive: data.a.p -> data.a.q -> data.a.p`.
import { RegoError } from '../source/diagnostics.js';
import type { Expr, PolicyIR } from '../ir/ir.js';
import { visitDef } from '../ir/visit.js';
import type { Pass } from './pass.js';

export const checkRecursion: Pass = {
  name: 'check-recursion',
  run(state) {
    const ir = state.ir!;
    const deps = ir.groups.map((g) => {
      const out = new Set<number>();
      for (const d of g.defs) visitDef(d, (e) => exprDeps(ir, e, out));
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

/** Groups an expression refers to: rules, functions, and every rule below a vdoc. */
function exprDeps(ir: PolicyIR, e: Expr, out: Set<number>): void {
  if (e.k === 'rule' || e.k === 'callfn') out.add(e.group);
  else if (e.k === 'vdoc') nodeGroups(ir, e.node, out);
  // vdocdot: dynamic keys are checked at run time (a rule re-entering itself is an error).
}

function nodeGroups(ir: PolicyIR, id: number, out: Set<number>): void {
  const n = ir.nodes[id]!;
  n.groups.forEach((g) => ir.groups[g]!.kind !== 'function' && out.add(g));
  for (const c of n.children.values()) nodeGroups(ir, c, out);
}
