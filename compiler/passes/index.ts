// THE compiler pipeline: one ordered list of small passes. Each pass can be
// dumped (`regent parse --dump-passes`) to see what it produced.
import type { CompileState, Pass } from './pass.js';
import { resolveRefs } from './resolve-refs.js';
import { rewriteRegoMetadataCalls } from './rego-metadata.js';
import { ruleTree } from './rule-tree.js';
import { erasePrint } from './erase-print.js';
import { plan } from './plan.js';
import { checkRecursion } from './check-recursion.js';
import { checkTypes } from './check-types.js';
import { hoistInvariants } from './hoist-invariants.js';
import { ruleIndex } from './rule-index.js';
import { comprehensionIndex } from './comprehension-index.js';
import { RegoErrors } from '../source/diagnostics.js';
import { runStrictStage } from '../strict/index.js';

export const PASSES: readonly Pass[] = [
  erasePrint, // print statements off: print calls erased (OPA's erasePrintCalls)
  resolveRefs, // imports and rule names → absolute data refs
  rewriteRegoMetadataCalls, // annotation set; rego.metadata.chain()/rule() in rules → constants
  ruleTree, // group rules by path; kind, arity and default conflicts
  plan, // locals, safety ordering, builtin arity, IR per group
  checkTypes, // constant builtin arguments match the declared types
  checkRecursion, // no rule may depend on itself
  hoistInvariants, // loop-invariant lookups move before the first iteration
  comprehensionIndex, // group-by comprehensions keyed on outer variables (OPA's comprehension indexing)
  ruleIndex, // definitions indexed by a `ground ref == constant` test of their body
];

/** Run every pass in order; stop with all errors found so far after a failing pass. */
export function runPasses(state: CompileState, onPass?: (pass: Pass, state: CompileState) => void): void {
  for (const pass of PASSES) runPass(pass, state, onPass);
}

/** One step of runPasses (compiler/compile-steps.ts runs them one at a time). */
export function runPass(pass: Pass, state: CompileState, onPass?: (pass: Pass, state: CompileState) => void): void {
  const timers = state.opts.stageTimers;
  runStrictStage(pass.name, state); // OPA's declaration and strict-mode checks, each before the pass its OPA stage precedes
  if (state.errors.length > 0) throw new RegoErrors(state.errors);
  if (timers) {
    const t = process.hrtime.bigint();
    pass.run(state);
    timers[compileStageMetric(pass.name)] = Number(process.hrtime.bigint() - t);
  } else {
    pass.run(state);
  }
  onPass?.(pass, state);
  if (state.errors.length > 0) throw new RegoErrors(state.errors);
}

/** The metric a module-compile stage is timed under: `timer_compile_stage_<name>_ns`. */
export function compileStageMetric(name: string): string {
  return `timer_compile_stage_${name.replace(/-/g, '_')}_ns`;
}
