// Messages between the engine (main thread) and evaluation workers. Everything here
// is structured-clone safe: Rego values cross threads as JSON text, errors as plain
// objects that the receiving side turns back into typed errors.
import type { SourceFile } from '../../compiler/index.js';

export type ExplainMode = 'notes' | 'fails' | 'full' | 'debug';

/** The input document of an evaluation: absent means undefined. */
export type InputPayload =
  | { kind: 'js'; js: unknown } // parsed JSON without big numbers
  | { kind: 'text'; text: string }; // exact JSON text (big numbers, YAML-converted bodies)

export interface EvalTask {
  /** The engine state generation the evaluation must see (or a later one). */
  generation: number;
  /** A Rego query, e.g. `data.rbac.allow` or `x := input.a`. */
  query: string;
  /** 'value': the first expression's value; 'bindings': every row's bindings. */
  mode: 'value' | 'bindings';
  /**
   * For Data API reads: the document path the query names (`['rbac', 'allow']`).
   * The evaluator then reads the document directly instead of running the query.
   */
  path?: string[] | undefined;
  /** `path` joined by NUL, when the caller has it at hand (a cache key). */
  pathKey?: string | undefined;
  input?: InputPayload | undefined;
  strictBuiltinErrors: boolean;
  /** Evaluation time limit in ms, counted from when the evaluation starts. */
  timeoutMs?: number;
  /** Pool bookkeeping: identifies the task in 'started' messages. */
  taskId?: number;
  /** Render the result with a 2-space indent. */
  pretty: boolean;
  /** Add query-compile stage timers (`timer_query_compile_stage_*_ns`) when the query is compiled. */
  instrument?: boolean | undefined;
  explain?: ExplainMode | undefined;
}

/** Several tasks sent to one worker in one message; answered by an array of outcomes in the same order. */
export interface EvalBatch {
  batch: EvalTask[];
}

/** A typed error flattened for transfer. */
export interface WireError {
  kind: 'rego' | 'eval' | 'other';
  /** Which step failed, for the API message (parsing / compiling / evaluating query). */
  phase: 'parse' | 'compile' | 'eval';
  message: string;
  code?: string;
  errors?: { code: string; message: string; location?: { file: string; row: number; col: number } }[];
  location?: { file: string; row: number; col: number };
}

export interface EvalOutcome {
  /** JSON text of the result; absent when undefined (or no rows for 'bindings'). */
  resultText?: string;
  /** Nanosecond timers named as OPA names them (timer_rego_query_eval_ns, …). */
  timers: Record<string, number>;
  cacheHit: boolean;
  explanation?: unknown[];
  error?: WireError;
}

/** One primitive store write, value as JSON text. */
export interface WireWriteOp {
  op: 'add' | 'replace' | 'remove';
  path: string[];
  valueText?: string;
}

/** An engine state change, broadcast to every worker. */
export interface StateUpdate {
  type: 'update';
  generation: number;
  /** The whole module set, when policies changed. */
  modules?: SourceFile[];
  ops?: WireWriteOp[];
}

/** The whole state, sent to a worker that just started. */
export interface StateSnapshot {
  type: 'snapshot';
  generation: number;
  target: number;
  modules: SourceFile[];
  dataText: string;
}

export type DownMessage = StateUpdate | StateSnapshot;

export type UpMessage =
  | { type: 'hello'; threadId: number }
  | { type: 'ack'; threadId: number; generation: number }
  /** A worker began evaluating a task (its time limit runs from here). */
  | { type: 'started'; taskId: number };

export interface WorkerConfig {
  downChannel: string;
  upChannel: string;
  v0Compatible: boolean;
}
