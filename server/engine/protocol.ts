// Messages between the engine (main thread) and evaluation workers. Everything here
// is structured-clone safe: Rego values cross threads as JSON text (large documents
// as shared JSON bytes, see SharedDocument), errors as plain objects that the
// receiving side turns back into typed errors.
import type { SourceFile, filters } from '../../compiler/index.js';
import type { WasmModuleSpec } from './wasm-modules.js';

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
  /**
   * 'value': the first expression's value; 'bindings': every row's bindings; 'partial':
   * partial evaluation (POST /v1/compile); 'filter': a data filter (/v1/compile/{path}, filter-task.ts).
   */
  mode: 'value' | 'bindings' | 'partial' | 'filter';
  /** Mode 'partial': the options of compiler/partial's partialEval (input and data come from the task and the store). */
  partial?: { unknowns: string[]; disableInlining?: string[]; nondeterministicBuiltins?: boolean } | undefined;
  /** Mode 'filter': what to prepare (path, targets, unknowns, mask rule, mappings) and whether the reply is multitarget. */
  filter?: { spec: filters.FilterSpec; multi: boolean } | undefined;
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
  /** Render the result with a 2-space indent. */
  pretty: boolean;
  /** Add query-compile stage timers (`timer_query_compile_stage_*_ns`) when the query is compiled. */
  instrument?: boolean | undefined;
  explain?: ExplainMode | undefined;
}

// Several tasks travel to one worker in one message, and their outcomes back in one
// message, in the same order: as flat arrays (wire-batch.ts), not as these objects.

/** A typed error flattened for transfer. */
export interface WireError {
  kind: 'rego' | 'eval' | 'other';
  /** Which step failed, for the API message (parsing / compiling / evaluating query). */
  phase: 'parse' | 'compile' | 'eval';
  message: string;
  code?: string;
  /** kind 'rego': the Rego errors. */
  errors?: WireRegoError[];
  /** code 'filter_ast': the data-filter errors, already in their JSON form. */
  filterErrors?: unknown[];
  location?: { file: string; row: number; col: number };
}

export interface EvalOutcome {
  /** JSON text of the result; absent when undefined (or no rows for 'bindings'). */
  resultText?: string;
  /** Nanosecond timers named as OPA names them (timer_rego_query_eval_ns, …). */
  timers: Record<string, number>;
  cacheHit: boolean;
  explanation?: unknown[];
  /** Mode 'filter' with `pretty`: the result with a 2-space indent (resultText stays compact). */
  resultPretty?: string;
  /** Mode 'filter': the typo hints of the reply (`{location?, message}`). */
  hints?: unknown[];
  error?: WireError;
}

/**
 * A large JSON document (a PUT /v1/data body) as UTF-8 bytes in shared memory:
 * every worker builds its own value from the same bytes, in slices, before the
 * write commits (see 'prepare'), and the main thread keeps only the bytes.
 */
export interface SharedDocument {
  id: number;
  bytes: SharedArrayBuffer;
  length: number;
}

/** One primitive store write, value as JSON text or as a shared document. */
export interface WireWriteOp {
  op: 'add' | 'replace' | 'remove';
  path: string[];
  valueText?: string;
  /** The value is this document (already prepared by the workers under its id). */
  doc?: SharedDocument;
  /** With `doc`: the value is the `value` member of this element of the document (a JSON Patch op). */
  member?: number;
}

/** An engine state change, broadcast to every worker. */
export interface StateUpdate {
  type: 'update';
  generation: number;
  /** The whole module set, when policies changed. */
  modules?: SourceFile[];
  /** The Wasm modules of the current policy (with `modules`, or alone once the engine's is built; wasm-modules.ts). */
  wasm?: WasmModuleSpec[];
  /** With `modules`: the id of the policy the workers compiled ahead ('compile'); a worker without it compiles `modules`. */
  policyId?: number;
  ops?: WireWriteOp[];
}

/** The whole state, sent to a worker that just started. */
export interface StateSnapshot {
  type: 'snapshot';
  generation: number;
  target: number;
  modules: SourceFile[];
  /** The bundles' Wasm modules for the policy. */
  wasm?: WasmModuleSpec[];
  dataText: string;
  /** Large documents left out of dataText (null there), to build and put at their paths. */
  docs?: { path: string[]; doc: SharedDocument }[];
}

/** Build a shared document now, in slices, and keep it until a write names it (or 'discard'). */
export interface PrepareDocument {
  type: 'prepare';
  doc: SharedDocument;
  maxDepth: number;
}

/**
 * Compile a candidate module set now, off the main thread and before the write that
 * installs it (one worker at a time, see PoolEvaluator.compilePolicy), and keep it
 * under `id` until an update names it. `parseFirst`: the module to parse on its own
 * first, so that its syntax errors are told apart from compile errors.
 */
export interface CompilePolicy {
  type: 'compile';
  id: number;
  target: number;
  modules: SourceFile[];
  parseFirst?: string;
  instrument: boolean;
}

/** A located compile error as it crosses threads. */
export interface WireRegoError {
  code: string;
  message: string;
  location?: { file: string; row: number; col: number; offset: number };
  /** The error's details in their JSON form (OPA's ErrorDetails) and their printed lines. */
  details?: { json: object; lines: string[] };
}

/** What a worker's 'compile' found: errors, or what the main thread needs to commit. */
export interface CompileReport {
  /** 'parse': `parseFirst` does not parse; 'compile': the module set does not compile. */
  failed?: { phase: 'parse' | 'compile'; errors: WireRegoError[] };
  /** The package path of every module (by file), once parsed. */
  packages?: Record<string, string[]>;
  /** Every rule's data path (server/engine/policies.ts rulePaths), when it compiled. */
  rules?: { path: string[]; location: { file: string; row: number; col: number; offset: number } }[];
  /** timer_rego_module_parse_ns, timer_rego_module_compile_ns and stage timers. */
  timers: Record<string, number>;
  /** Not a Rego error (the worker ran out of heap, a bug): the message. */
  crash?: string;
}

export type DownMessage = StateUpdate | StateSnapshot | PrepareDocument | CompilePolicy | { type: 'discard'; id: number } | { type: 'discardPolicy'; id: number };

export type UpMessage =
  | { type: 'hello'; threadId: number }
  | { type: 'ack'; threadId: number; generation: number }
  /** A worker compiled a candidate module set ('compile'). */
  | { type: 'compiled'; threadId: number; id: number; report: CompileReport }
  /** A worker built a prepared document, or found it invalid (`error`). */
  | { type: 'prepared'; threadId: number; id: number; keys?: string[]; error?: { kind: 'syntax' | 'depth' | 'memory'; message: string } };

export interface WorkerConfig {
  downChannel: string;
  upChannel: string;
  v0Compatible: boolean;
  /** Evaluation collection cap (runtime/eval/limits.ts); 0: none. */
  maxCollectionSize: number;
  /** The worker's old-generation heap limit (MB), for the heap ceiling. */
  heapMb: number;
  /** The `opa.runtime()` document as JSON text (runtime/eval/runtime-info.ts). */
  runtimeText: string;
  /**
   * The watchdog board: for each batch slot, [start of the running task (ms since
   * `epoch`), 1 + its index in the batch (0: not started)], written by the worker.
   */
  board: SharedArrayBuffer;
  epoch: number;
}
