// The only public surface of the compiler: parse, compile, evaluate.
export * from './api.js';
export { RegoError, RegoErrors, hasDetailLines, type ErrorDetails } from './source/diagnostics.js';
export type { Location } from './source/location.js';
export { compile } from './policy.js';
export { compileWasm, WasmUnsupportedError, type WasmCompileOptions } from './codegen/wasm/lazy.js';
export { EvalError } from './eval/errors.js';
export { parseModule, parseQuery, parseTerm } from './parser/index.js';
export type { Module, Rule, RuleHead, Term, Expr, Body, With, Import, Package } from './ast/nodes.js';
export { moduleToJSON, bodyToJSON, termToJSON, termToValue, stringifyOpaJSON, type OpaJSONOptions } from './ast/opa-json.js';
export type { CompiledPolicy } from './policy.js';
export { formatModule } from './ast/print.js';
export { formatModuleSource } from './ast/fmt-module.js';
export { mapTerm, mapBody } from './ast/transform.js';
export { prepareInterpreted, traceQuery, explain, lineage, eventJSON, evalEventJSON, prettyTrace, EXPLAIN_MODES, type TraceEvent, type ExplainMode, type TracedResult, type InterpretedQuery } from './interp/index.js';
export { strictChecks } from './strict/index.js';
/** Data filters (SQL / UCAST) from partial-evaluation residuals: compiler/filters. */
export * as filters from './filters/index.js';
export { partialEval, preparePartial, cachedPartial, parseRootRef, PartialRefError, PartialUnsupported, type PartialEvalOptions, type PartialResult, type PreparedPartial, type PartialRunOptions } from './partial/index.js';
/** The neutral Backend interface: JS, closures, interpreter or Wasm, chosen in one place (compiler/backend.ts). */
export { createBackend, createJSBackend, loadWasmBackend, instantiateWasmBackend, compileSupportedWasm, wasmEntrypoints, pathQuery, WasmBackend, BACKEND_NAMES, type Backend, type BackendName, type BackendOptions, type BackendEvalOptions, type BackendQuery, type PreparedDecision, type DataWrite, type WasmStats, type WasmModuleSource, type WasmModuleStats } from './backend.js';
export { addWasmModule, annotatedEntrypoints } from './codegen/wasm/bundle.js';
export { annotationValue } from './passes/annotation-set.js';
export { pathConflictErrors, rulePathsOf, type RulePath } from './passes/path-conflicts.js';
/** Compiling in steps with a pause between them (a worker keeps answering decisions meanwhile). */
export { compileSteps, compileParsedSteps, compileYielding, runSteps, runStepsYielding, type CompileStep } from './compile-steps.js';
