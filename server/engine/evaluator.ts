// Where evaluations run. The engine talks to an Evaluator: either in-process (the
// engine's own EvalCore, `workers: 0`) or a pool of worker threads (pool.ts). Both
// receive every state change through `publish`, which resolves only once every
// evaluator has applied it, so a write is visible to all later requests.
import type { Value } from '../../runtime/index.js';
import type { EvalCore } from './evaluate.js';
import type { EvalOutcome, EvalTask, StateUpdate } from './protocol.js';

export interface Evaluator {
  /** Evaluate one task. `input` is the already-decoded input (in-process only). */
  evaluate(task: EvalTask, input?: Value): Promise<EvalOutcome>;
  /** Apply a state change everywhere; resolves when every evaluator has it. */
  publish(update: StateUpdate): Promise<void>;
  close(): Promise<void>;
}

/** Evaluates on the calling thread, against the engine's own core. */
export class InProcessEvaluator implements Evaluator {
  constructor(private readonly core: EvalCore) {}

  evaluate(task: EvalTask, input?: Value): Promise<EvalOutcome> {
    return Promise.resolve(this.core.run(task, input));
  }

  publish(update: StateUpdate): Promise<void> {
    void update; // the engine updates its core directly
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
