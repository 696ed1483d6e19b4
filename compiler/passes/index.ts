// THE compiler pipeline: one ordered list of small passes. Each pass can be
// dumped (`regent parse --dump-passes`) to see what it produced.
import type { CompileState, Pass } from './pass.js';
import { resolveRefs } from './resolve-refs.js';
import { ruleTree } from './rule-tree.js';
import { plan } from './plan.js';
import { checkRecursion } from './check-recursion.js';
import { checkTypes } from './check-types.js';
import { hoistInvariants } from './hoist-invariants.js';
import { ruleIndex } from './rule-index.js';
import { RegoErrors } from '../source/diagnostics.js';

export const PASSES: readonly Pass[] = [
  resolveRefs, // imports and rule names → absolute data refs
  ruleTree, // group rules by path; kind, arity and default conflicts
  plan, // locals, safety ordering, builtin arity, IR per group
  checkTypes, // constant builtin arguments match the declared types
  checkRecursion, // no rule may depend on itself
  hoistInvariants, // loop-invariant lookups move before the first iteration
  ruleIndex, // definitions indexed by their leading `ground ref == constant` test
];

/** Run every pass in order; stop with all errors found so far after a failing pass. */
export function runPasses(state: CompileState, onPass?: (pass: Pass, state: CompileState) => void): void {
  for (const pass of PASSES) {
    pass.run(state);
    onPass?.(pass, state);
    if (state.errors.length > 0) throw new RegoErrors(state.errors);
  }
}
