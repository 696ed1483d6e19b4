// Pass `check-recursion`: rules may not depend on themselves. Builds the group
// dependency graph from the IR (rule, vdoc and function references) and reports
// each cycle as OPA does: `rule data.a.p is recursive: data.a.p -> data.a.q -> data.a.p`.
import { RegoError } from '../source/diagnostics.js';
import type { Expr, PolicyIR } from '../ir/ir.js';
import { visitDef } from '../ir/visit.js';
import type { Pass } from './pass.js';
import { dataRefText } from '../../runtime/value/format.js';

export const checkRecursion: Pass = {
  name: 'check-recursion',
  run(state) {
    const ir = state.ir!;
    const deps = ir.groups.map((g) => {
      const out = new Set<number>();
      for (const d of g.defs) visitDef(d, (e) => exprDeps(ir, e, out));
      return out;
    });
    const cyclic = cyclicGroups(deps);
    const reported = new Set<number>();
    for (const g of ir.groups) {
      if (reported.has(g.id) || !cyclic.has(g.id)) continue;
      const cycle = findCycle(g.id, deps, cyclic);
      if (!cycle) continue;
      cycle.forEach((id) => reported.add(id));
      const names = cycle.map((id) => dataRefText(ir.groups[id]!.path));
      const loc = ir.groups[g.id]!.defs[0]?.loc;
      state.errors.push(new RegoError('rego_recursion_error', `rule ${names[0]} is recursive: ${names.join(' -> ')}`, loc));
    }
  },
};

/**
 * Groups on a cycle: members of a strongly connected component with more than one
 * group, or with a self edge (Tarjan's algorithm, iterative: rule chains can be
 * thousands of groups deep).
 */
function cyclicGroups(deps: Set<number>[]): Set<number> {
  const index = new Int32Array(deps.length).fill(-1);
  const low = new Int32Array(deps.length);
  const onStack = new Uint8Array(deps.length);
  const stack: number[] = [];
  const out = new Set<number>();
  let counter = 0;
  for (let root = 0; root < deps.length; root++) {
    if (index[root] !== -1) continue;
    const work: { id: number; it: Iterator<number> }[] = [];
    const open = (id: number): void => {
      index[id] = low[id] = counter++;
      stack.push(id);
      onStack[id] = 1;
      work.push({ id, it: deps[id]!.values() });
    };
    open(root);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const n = top.it.next();
      if (!n.done) {
        const d = n.value;
        if (index[d] === -1) open(d);
        else if (onStack[d]) low[top.id] = Math.min(low[top.id]!, index[d]!);
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low[parent.id] = Math.min(low[parent.id]!, low[top.id]!);
      if (low[top.id] !== index[top.id]) continue;
      const scc: number[] = [];
      let x: number;
      do {
        x = stack.pop()!;
        onStack[x] = 0;
        scc.push(x);
      } while (x !== top.id);
      if (scc.length > 1 || deps[top.id]!.has(top.id)) for (const id of scc) out.add(id);
    }
  }
  return out;
}

/** The first cycle through `start` in depth-first order (iterative; only cyclic groups can be on one). */
function findCycle(start: number, deps: Set<number>[], cyclic: Set<number>): number[] | undefined {
  const path: number[] = [];
  const its: Iterator<number>[] = [];
  const seen = new Set<number>([start]);
  path.push(start);
  its.push(deps[start]!.values());
  while (its.length > 0) {
    const n = its[its.length - 1]!.next();
    if (n.done) {
      its.pop();
      path.pop();
      continue;
    }
    const d = n.value;
    if (d === start) return [...path, start];
    if (seen.has(d) || !cyclic.has(d)) continue;
    seen.add(d);
    path.push(d);
    its.push(deps[d]!.values());
  }
  return undefined;
}

/** Groups an expression refers to: rules, functions, and every rule below a vdoc. */
function exprDeps(ir: PolicyIR, e: Expr, out: Set<number>): void {
  if (e.k === 'rule' || e.k === 'callfn') out.add(e.group);
  else if (e.k === 'vdoc') nodeGroups(ir, e.node, out);
  // vdocdot: dynamic keys are checked at run time (a rule re-entering itself is an error).
}

function nodeGroups(ir: PolicyIR, id: number, out: Set<number>): void {
  const todo = [id];
  while (todo.length > 0) {
    const n = ir.nodes[todo.pop()!]!;
    n.groups.forEach((g) => ir.groups[g]!.kind !== 'function' && out.add(g));
    const kids = [...n.children.values()];
    for (let i = kids.length - 1; i >= 0; i--) todo.push(kids[i]!);
  }
}
