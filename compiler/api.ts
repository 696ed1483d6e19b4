// The public contract of the compiler, as the CLI, the conformance runner and the
// server use it. `index.ts` re-exports this with the implementation.
import type { Value } from '../runtime/value/value.js';
import type { Location } from './source/location.js';

export interface SourceFile {
  /** File name used in locations and error messages (e.g. `test-0.rego`). */
  file: string;
  text: string;
  /** Per-file override of CompileOptions.v0Compatible (e.g. a bundle's rego_version). */
  v0Compatible?: boolean;
}

export interface CompileOptions {
  /** Accept Rego v0 syntax (as `opa --v0-compatible`). */
  v0Compatible?: boolean;
  /**
   * Which JS back end runs the IR: generated JavaScript source (`js`, the
   * default) or a tree of closures (`closures`). Both must agree on every case.
   */
  backend?: 'js' | 'closures';
  /**
   * Receives the time of each module-compile stage in ns, as
   * `timer_compile_stage_<pass>_ns` (OPA's `instrument` metrics).
   */
  stageTimers?: Record<string, number>;
  /**
   * OPA's strict mode (`opa check --strict`): also report unused imports, unused
   * local variables and function arguments, duplicate imports, shadowing of
   * `input`/`data`, and calls of deprecated builtins (`compiler/strict/`).
   */
  strict?: boolean;
  /**
   * Print statements on (the default, as opa eval/test/check/run): print() arguments
   * are checked (`var x is undeclared`) and evaluated. `false` erases print calls
   * first, as OPA's compiler without WithEnablePrintStatements (`opa test --bench`).
   */
  printStatements?: boolean;
}

export interface EvalOptions {
  input?: Value;
  /** The base document (`data`). Rules and data merge. */
  data?: Value;
  strictBuiltinErrors?: boolean;
  /** Receives `print()` output. Default: discard. */
  print?: (message: string) => void;
  /** Wall-clock deadline in ms since the epoch; evaluation stops with an error after it. */
  deadline?: number;
  /**
   * Collects, as located errors, the builtin errors that non-strict evaluation treats
   * as undefined (`opa eval --show-builtin-errors`). Queries only (Policy.prepare, the
   * interpreter), not prepared decisions.
   */
  builtinErrors?: Error[];
  /**
   * Receives each `internal.test_case` argument (the test cases `opa test` injects,
   * cli/test-cases.ts) with the number of trace events recorded before it (0 when the
   * evaluation is not traced). Queries only, as builtinErrors.
   */
  testCases?: { path: Value; at: number }[];
}

/** One expression of a query result row, as `opa eval --format json` prints it. */
export interface ResultExpression {
  value: Value;
  text: string;
  location: { row: number; col: number };
}

export interface ResultRow {
  expressions: ResultExpression[];
  /** The user-written variables of the query (no wildcards, no generated vars). */
  bindings: Record<string, Value>;
}

export interface PreparedQuery {
  /** Names of the query's user-written variables, in order of first appearance. */
  readonly vars: string[];
  /** Evaluate; returns every solution. Throws EvalError for evaluation errors. */
  eval(opts?: EvalOptions): ResultRow[];
}

export interface Policy {
  /** Compile a query against the policy. Throws RegoErrors on parse/compile errors. */
  prepare(query: string, opts?: PrepareOptions): PreparedQuery;
}

export interface PrepareOptions {
  /**
   * Receives the time of each query-compile stage in ns, as
   * `timer_query_compile_stage_<stage>_ns` (OPA's `instrument` metrics).
   */
  stageTimers?: Record<string, number>;
}

/** An evaluation error with OPA's code, message and location. */
export interface EvalErrorShape {
  code: 'eval_conflict_error' | 'eval_type_error' | 'eval_builtin_error' | 'eval_with_error' | 'eval_cancel_error' | 'eval_recursion_error';
  message: string;
  location?: Location;
}
