// Pass `check-recursion`: rules may not depend on themselves. Builds the group
// dependency graph from the IR (rule, vdoc and function references) and reports
// each cycle as OPA does: `rule data.a.p is recursive: data.a.p -> data.a.q -> data.a.p`.
// Linear in the policy: references to virtual documents are edges to tree-node
// vertices (not to every rule below them), cyclic groups come from one iterative
// Tarjan pass, and the per-group cycle searches share a step budget.
import { RegoError } from '../source/diagnostics.js';
import type { PolicyIR } from '../ir/ir.js';
import { visitDef } from '../ir/visit.js';
import type { Pass } from './pass.js';
import { dataRefText } from '../../runtime/value/format.js';

export const checkRecursion: Pass = {
  name: 'check-recursion',
  run(state) {
    const ir = state.ir!;
    const g = new DepGraph(ir);
    const cyclic = g.cyclicGroups();
    const reported = new Set<number>();
    const budget = { steps: SEARCH_BUDGET };
    for (const group of ir.groups) {
      if (reported.has(group.id) || !cyclic.has(group.id)) continue;
      // Past the search budget (only pathological policies get there) no further
      // cycles are reported: the policy is rejected by the ones found already.
      if (budget.steps <= 0 && state.errors.length > 0) break;
      const cycle = g.findCycle(group.id, cyclic, budget);
      if (!cycle) continue;
      cycle.forEach((id) => reported.add(id));
      const names = cycle.map((id) => dataRefText(ir.groups[id]!.path));
      const loc = ir.groups[group.id]!.defs[0]?.loc;
      state.errors.push(new RegoError('rego_recursion_error', `rule ${names[0]} is recursive: ${names.join(' -> ')}`, loc));
    }
  },
};

/** Edges the cycle searches may follow in total before giving up on further cycles. */
const SEARCH_BUDGET = 5_000_000;

/**
 * The dependency graph. Vertices `0 … G-1` are rule groups; vertex `G + n` stands
 * for rule-tree node `n` (a reference to a virtual document `data.a`), with edges to
 * the node's rule groups and child nodes. A group's edges are the groups and nodes it
 * refers to, in order of first reference. So a policy where every rule reads
 * `data.pkg` has as many edges as references, not rules × rules.
 */
class DepGraph {
  readonly G: number;
  readonly succ: number[][];

  constructor(ir: PolicyIR) {
    this.G = ir.groups.length;
    const G = this.G;
    this.succ = ir.groups.map((g) => {
      const out = new Set<number>();
      for (const d of g.defs) {
        visitDef(d, (e) => {
          if (e.k === 'rule' || e.k === 'callfn') out.add(e.group);
          else if (e.k === 'vdoc') out.add(G + e.node);
          // vdocdot: dynamic keys are checked at run time (a rule re-entering itself is an error).
        });
      }
      return [...out];
    });
    for (const n of ir.nodes) {
      const out = n.groups.filter((id) => ir.groups[id]!.kind !== 'function');
      for (const c of n.children.values()) out.push(G + c);
      this.succ.push(out);
    }
  }

  /**
    * Groups on a cycle: members of a strongly connected component with more than one
    * vertex, or with a self edge (Tarjan's algorithm, iterative: rule chains can be
   * thousands of groups deep).
   */
  cyclicGroups(): Set<number> {
      const deps = this.succ;
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
        work.push({ id, it: deps[id]![Symbol.iterator]() });
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
        if (scc.length > 1 || deps[top.id]!.includes(top.id)) for (const id of scc) if (id < this.G) out.add(id);
      }
    }
    return out;
  }

  /**
   * The first cycle through `start` in depth-first order, as groups: the search
   * walks each group's references in order and expands node vertices in place (a
   * node may be expanded again below itself, exactly as if its groups were listed
   * in the referring group), so the cycle is the one OPA's search over the flat
   * group graph reports. Past `budget`, node vertices are expanded only once per
   * search, which is linear but may report another (equally real) cycle.
   */
  findCycle(start: number, cyclic: Set<number>, budget: { steps: number }): number[] | undefined {
    const G = this.G;
    const exact = budget.steps > 0;
    const path: number[] = [start];
    const pos: number[] = [0];
    const seen = new Set<number>([start]);
    const seenNodes = new Set<number>();
    while (path.length > 0) {
      const top = path.length - 1;
      const v = path[top]!;
      const edges = this.succ[v]!;
      const i = pos[top]!;
      if (i >= edges.length) {
        path.pop();
        pos.pop();
        continue;
      }
      pos[top] = i + 1;
      if (exact && --budget.steps <= 0) return this.findCycle(start, cyclic, budget);
      const d = edges[i]!;
      if (d === start) return [...path.filter((x) => x < G), start];
      if (d >= G) {
        if (!exact) {
          if (seenNodes.has(d)) continue;
          seenNodes.add(d);
        }
      } else if (seen.has(d) || !cyclic.has(d)) continue;
      else seen.add(d);
      path.push(d);
      pos.push(0);
    }
    return undefined;
  }
}
