// Pass `plan`: every rule group becomes IR (see ir/ir.ts). Safety ordering, local
// variable slots and builtin arity checks happen here, group by group; errors are
// collected so one bad rule does not hide the others.
import { RegoError, RegoErrors } from '../source/diagnostics.js';
import { PlanContext } from '../plan/context.js';
import { planGroup } from '../plan/rules.js';
import { headSafetyErrors } from '../plan/head-safety.js';
import { templateErrors } from '../plan/template-check.js';
import type { RuleGroup } from '../ir/ir.js';
import type { Pass } from './pass.js';
import { listIR } from '../ir/listing.js';

export const plan: Pass = {
  name: 'plan',
  run(state) {
    const tree = state.tree!;
    const ctx = new PlanContext(tree, { v0Compatible: state.opts.v0Compatible });
    // OPA's template-string and head safety stages run before the bodies' safety,
    // each stopping the compile when it fails.
    for (const stage of [() => templateErrors(state.modules, (n) => ctx.builtinDecl(n)?.relation === true), () => headSafetyErrors(state.modules)]) {
      const errors = stage();
      if (errors.length > 0) {
        state.errors.push(...errors);
        state.ir = { groups: [], nodes: tree.nodes };
        return;
      }
    }
    const groups: RuleGroup[] = [];
    for (const g of tree.groups) {
      try {
        groups.push(planGroup(ctx, g));
      } catch (e) {
        if (e instanceof RegoError) state.errors.push(e);
        else if (e instanceof RegoErrors) state.errors.push(...e.errors); // every unsafe var of a body
        else throw e;
        groups.push({ id: g.id, kind: g.kind, path: g.path, defs: [], node: g.node, arity: g.arity, leafSet: g.leafSet, default: undefined, defaultLoc: undefined, index: undefined });
      }
    }
    state.ir = { groups, nodes: tree.nodes };
  },
  dump: (state) => (state.ir ? listIR(state.ir) : ''),
};
