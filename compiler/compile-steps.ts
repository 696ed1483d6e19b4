// Compiling in steps: the pipeline of compile() (compiler/policy.ts) — parse each
// module, run each pass of PASSES (compiler/passes/index.ts), then generate code —
// as a generator that stops after every step, so a thread compiling a large policy
// can do other work in between (an evaluation worker answers decisions on its
// current policy: server/engine/worker.ts). It calls the same functions in the same
// order as compile(), so the result and every error (including the stage named by a
// stack overflow) are the same. compileYielding() drives the steps with an awaited
// yieldNow() between them; runSteps() drives them without stopping.
import type { CompileOptions, SourceFile } from './api.js';
import { RegoErrors } from './source/diagnostics.js';
import { PASSES, runPass } from './passes/index.js';
import { deepestRuleLocation, stackOverflowError } from './parser/depth.js';
import type { CompileState } from './passes/pass.js';
import { CompiledPolicy, parseInto } from './policy.js';

/** The step that just finished: a module parsed, or a compiler pass run. */
export type CompileStep = { kind: 'parse'; file: string } | { kind: 'pass'; name: string };

/** compile(files, opts) in steps: yields after each module is parsed and after each pass. */
export function* compileSteps(files: SourceFile[], opts: CompileOptions = {}): Generator<CompileStep, CompiledPolicy, void> {
  const state: CompileState = { opts, modules: [], errors: [] };
  for (const f of files) {
    parseInto(state, f);
    yield { kind: 'parse', file: f.file };
  }
  if (state.errors.length > 0) throw new RegoErrors(state.errors);
  return yield* compileParsedSteps(state);
}

/**
 * compileModules(state) of compiler/policy.ts in steps: each pass, then code
 * generation. A stack overflow becomes the same located rego_compile_error naming
 * the stage that overflowed.
 */
export function* compileParsedSteps(state: CompileState): Generator<CompileStep, CompiledPolicy, void> {
  let stage = PASSES[0]!.name;
  try {
    for (const pass of PASSES) {
      stage = pass.name;
      runPass(pass, state);
      yield { kind: 'pass', name: pass.name };
    }
    stage = 'codegen';
    return new CompiledPolicy(state);
  } catch (e) {
    throw stackOverflowError(e, stage, () => deepestRuleLocation(state.modules));
  }
}

/** Run a step generator to its end without stopping. */
export function runSteps<T>(steps: Generator<unknown, T, void>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Run a step generator, awaiting `yieldNow()` after every step. `yieldNow` may
 * return false to abandon the work (the generator is closed and undefined returned).
 */
export async function runStepsYielding<T>(steps: Generator<unknown, T, void>, yieldNow: () => Promise<boolean | void>): Promise<T | undefined> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if ((await yieldNow()) === false) {
      steps.return(undefined as T);
      return undefined;
    }
  }
}

/** compile(files, opts) with `yieldNow()` awaited between steps (never abandoned). */
export async function compileYielding(files: SourceFile[], opts: CompileOptions, yieldNow: () => Promise<void>): Promise<CompiledPolicy> {
  return (await runStepsYielding(compileSteps(files, opts), yieldNow))!;
}
