// The evaluation core shared by the in-process evaluator and the worker threads: a
// compiled policy, the Backend that runs it (compiler/backend.ts: the JS back end, or
// the Wasm back end over the modules of the current policy — bundles' /policy.wasm and
// the engine's own with `--backend wasm` — with the JS back end for everything the
// modules do not serve), a base document the back end follows, caches of prepared
// decisions (per data path) and queries (per query text) for the current policy
// generation, and `run`, which evaluates one task and renders its result as JSON text
// with OPA's timers. Partial evaluation, data filters and explanations run on the JS
// policy (`backend.policy`). The main thread's core may hold a policy the workers
// compiled (policy-compile.ts) as a lazy one: it is compiled here on first use, and
// queries that cannot reach a rule (no `data` in their text, such as /health's
// `x = 1`) run against the empty policy meanwhile.
import { compile, createJSBackend, loadWasmBackend, parseQuery, EvalError, RegoError, RegoErrors, WasmBackend, type Backend, type BackendQuery, type CompiledPolicy, type PreparedDecision, type ResultRow, type SourceFile } from '../../compiler/index.js';
import { bodyToJSON, cachedPartial, moduleToJSON, PartialRefError, PartialUnsupported, stringifyOpaJSON } from '../../compiler/index.js';
import { RObject, applyWrite, fromJS, parseJSON, rangeErrorKind, toJSONText, type Value, type WriteOp } from '../../runtime/index.js';
import { explainEvaluation, renderExplanation } from './explain.js';
import { FilterCache, filterWireError, runFilterTask } from './filter-task.js';
import { WasmDecisions, wasmSources } from './wasm-decisions.js';
import type { WasmModuleSpec } from './wasm-modules.js';
import type { EvalOutcome, EvalTask, InputPayload, WireError } from './protocol.js';
import { regoErrorFromWire, regoErrorToWire } from './wire-errors.js';

const CACHE_LIMIT = 1000;

function nowNs(): bigint {
  return process.hrtime.bigint();
}

function since(start: bigint): number {
  return Number(nowNs() - start);
}

export function compileModules(modules: SourceFile[], v0Compatible: boolean, stageTimers?: Record<string, number>): CompiledPolicy {
  return compile(modules, stageTimers ? { v0Compatible, stageTimers } : { v0Compatible });
}

export function decodeInput(input: InputPayload | undefined): Value | undefined {
  if (input === undefined) return undefined;
  return input.kind === 'js' ? fromJS(input.js) : parseJSON(input.text);
}

/** The input as JSON text, for a Wasm module (which parses it itself). */
function inputText(input: InputPayload): string {
  return input.kind === 'text' ? input.text : JSON.stringify(input.js);
}

/** Empty policies by Rego version, for queries that reach no rule while a lazy policy is not compiled. */
const emptyCores = new Map<boolean, EvalCore>();

export class EvalCore {
  private policyValue: CompiledPolicy | undefined;
  private lazyPolicy: (() => CompiledPolicy) | undefined;
  /** The back end of the current policy (made on first use, and again when the Wasm modules change). */
  private backendValue: Backend | undefined;
  /** The Wasm modules of the current policy, in the order they win shared paths. */
  private wasmModules: WasmModuleSpec[] = [];
  private cache = new Map<string, BackendQuery>();
  /** Prepared decisions by data path (see EvalTask.path), for the current back end. */
  private decisions = new Map<string, PreparedDecision>();
  private dataValue: RObject = new RObject();
  /** The Wasm side of the back end: load errors and per-module stats (wasm-decisions.ts). */
  readonly wasm = new WasmDecisions(() => (this.backendValue instanceof WasmBackend ? this.backendValue : undefined));
  /** Prepared data filters (mode 'filter'), for the current policy and data: cleared on every change. */
  readonly filters = new FilterCache();

  constructor(
    readonly v0Compatible: boolean,
    policy?: CompiledPolicy,
  ) {
    this.policyValue = policy ?? compileModules([], v0Compatible);
  }

  get policy(): CompiledPolicy {
    if (this.policyValue === undefined) {
      this.policyValue = this.lazyPolicy!();
      this.lazyPolicy = undefined;
    }
    return this.policyValue;
  }

  /** The Backend evaluations run on: JS, or Wasm modules over JS (setWasmModules). */
  get backend(): Backend {
    return this.backendValue ?? this.makeBackend();
  }

  private makeBackend(): Backend {
    const b = this.wasmModules.length > 0 ? loadWasmBackend(this.policy, wasmSources(this.wasmModules)) : createJSBackend('js', this.policy);
    b.setData(this.dataValue);
    this.backendValue = b;
    return b;
  }

  /** Forget the back end and everything prepared on it. */
  private dropBackend(): void {
    this.backendValue = undefined;
    this.cache = new Map();
    this.decisions = new Map();
  }

  /** Swap the compiled policy (or how to compile it on first use); prepared queries and Wasm modules of the old one are dropped. */
  setPolicy(policy: CompiledPolicy | (() => CompiledPolicy)): void {
    this.policyValue = typeof policy === 'function' ? undefined : policy;
    this.lazyPolicy = typeof policy === 'function' ? policy : undefined;
    this.wasmModules = [];
    this.dropBackend();
    this.filters.clear();
  }

  /** The base document. Replacing it reloads the Wasm modules' copies (lazily). */
  get data(): RObject {
    return this.dataValue;
  }

  set data(data: RObject) {
    this.dataValue = data;
    this.filters.clear();
    this.backendValue?.setData(data);
  }

  /** One store write; Wasm modules patch their copies in place (opa_value_add_path/remove_path). */
  applyWrite(op: WriteOp): void {
    this.dataValue = applyWrite(this.dataValue, op);
    this.filters.clear();
    this.backendValue?.write(op, this.dataValue);
  }

  /** The store committed `ops`, giving `root` (in-process: the engine's store is the core's document). */
  committed(root: RObject, ops: WriteOp[]): void {
    this.dataValue = root;
    this.filters.clear();
    const b = this.backendValue;
    if (b === undefined) return;
    if (b instanceof WasmBackend && ops.length > 0 && ops.every((o) => o.path.length > 0)) for (const op of ops) b.write(op, root);
    else b.setData(root);
  }

  /** The Wasm modules of the current policy (bundles' /policy.wasm, the engine's own with `--backend wasm`). */
  setWasmModules(specs: WasmModuleSpec[]): void {
    if (specs.length === 0 && this.wasmModules.length === 0) return;
    this.wasmModules = specs;
    this.dropBackend();
    this.makeBackend();
  }

  /** A prepared query, from the cache when possible. Throws RegoErrors tagged with the failing phase. */
  prepare(query: string, timers?: Record<string, number>, instrument = false): { prepared: BackendQuery; hit: boolean } {
    const cached = this.cache.get(query);
    if (cached) return { prepared: cached, hit: true };
    let t = nowNs();
    try {
      parseQuery(query, '', { v0Compatible: this.v0Compatible });
    } catch (e) {
      throw new PhaseError('parse', e);
    }
    if (timers) timers.timer_rego_query_parse_ns = since(t);
    t = nowNs();
    let prepared: BackendQuery;
    try {
      prepared = this.backend.prepare(query, instrument && timers ? { stageTimers: timers } : {});
    } catch (e) {
      throw new PhaseError('compile', e);
    }
    if (timers) timers.timer_rego_query_compile_ns = since(t);
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(query, prepared);
    return { prepared, hit: false };
  }

  /** Evaluate a query and return the raw rows (main-thread helpers: authz, health). */
  evalRows(query: string, input: Value | undefined, strictBuiltinErrors = false, deadline?: number): ResultRow[] {
    if (this.policyValue === undefined && !/\bdata\b/.test(query)) {
      let empty = emptyCores.get(this.v0Compatible);
      if (!empty) emptyCores.set(this.v0Compatible, (empty = new EvalCore(this.v0Compatible)));
      return empty.evalRows(query, input, strictBuiltinErrors, deadline);
    }
    const { prepared } = this.prepare(query);
    return prepared.eval({ input, strictBuiltinErrors, deadline });
  }

  /**
   * The document at a data path (the Data API's common case), through the back end's
   * prepared decision for the path. A decision a Wasm module answers gets the input as
   * the request's JSON text, undecoded.
   */
  private readDocument(task: EvalTask, path: string[], input: Value | undefined, timers: Record<string, number>): EvalOutcome {
    const key = task.pathKey ?? path.join('\u0000');
    let decision = this.decisions.get(key);
    const cacheHit = decision !== undefined;
    if (!decision) {
      const t = nowNs();
      decision = this.backend.prepareDecision(path);
      timers.timer_rego_query_compile_ns = since(t);
      if (this.decisions.size >= CACHE_LIMIT) this.decisions.delete(this.decisions.keys().next().value!);
      this.decisions.set(key, decision);
    }
    let text: string | undefined;
    if (input === undefined && task.input !== undefined) {
      if (decision.runsOn === 'wasm' && !task.strictBuiltinErrors) text = inputText(task.input);
      else {
        const t = nowNs();
        input = decodeInput(task.input);
        timers.timer_rego_input_parse_ns = since(t);
      }
    }
    const t = nowNs();
    let value: Value | undefined;
    try {
      const deadline = task.timeoutMs ? Date.now() + task.timeoutMs : undefined;
      value = decision.eval(input, text, task.strictBuiltinErrors, deadline, timers);
    } catch (e) {
      return { timers, cacheHit, error: toWireError(new PhaseError('eval', e)) };
    }
    timers.timer_rego_query_eval_ns = since(t);
    return { timers, cacheHit, resultText: value === undefined ? undefined : toJSONText(value, task.pretty ? '  ' : '') };
  }

  /**
   * Mode 'partial' (POST /v1/compile): partial evaluation; the result is OPA's AST JSON
   * `{"queries"?, "support"?}`. Bad unknown/disableInlining refs and unsupported
   * constructs come back as 'other' errors with codes `partial_unknowns`,
   * `partial_disableInlining`, `partial_unsupported` (api/compile.ts maps them).
   */
  private partial(task: EvalTask, input: Value | undefined, timers: Record<string, number>): EvalOutcome {
    const t = nowNs();
    let r;
    let cacheHit = false;
    try {
      const deadline = task.timeoutMs ? Date.now() + task.timeoutMs : undefined;
      // The planned query is cached per policy/query/unknowns/options (compiler/partial);
      // `instrument` times its compile stages when it is planned.
      const found = cachedPartial(this.policy, task.query, { unknowns: ['input'], ...task.partial, ...(task.instrument ? { stageTimers: timers } : {}) });
      cacheHit = found.hit;
      r = found.prepared.eval({ ...(input !== undefined ? { input } : {}), data: this.data, ...(deadline ? { deadline } : {}), ...(task.explain ? { trace: true } : {}) });
    } catch (e) {
      if (e instanceof PartialRefError) return { timers, cacheHit: false, error: { kind: 'other', phase: 'parse', code: `partial_${e.field}`, message: e.message } };
      if (e instanceof PartialUnsupported) return { timers, cacheHit: false, error: { kind: 'other', phase: 'eval', code: 'partial_unsupported', message: e.message } };
      return { timers, cacheHit: false, error: toWireError(new PhaseError(e instanceof RegoErrors || e instanceof RegoError ? 'compile' : 'eval', e)) };
    }
    timers.timer_rego_partial_eval_ns = since(t);
    const out: Record<string, unknown> = {};
    if (r.queries.length > 0) out.queries = r.queries.map((q) => bodyToJSON(q));
    if (r.support.length > 0) out.support = r.support.map((m) => moduleToJSON(m, { comments: false }));
    const outcome: EvalOutcome = { timers, cacheHit, resultText: stringifyOpaJSON(out, '') };
    if (task.explain) outcome.explanation = renderExplanation(r.events ?? [], task.explain, task.pretty);
    return outcome;
  }

  /** Mode 'filter' (/v1/compile/{path}): a data filter, see filter-task.ts. */
  private filter(task: EvalTask, input: Value | undefined, timers: Record<string, number>): EvalOutcome {
    try {
      return runFilterTask(this.policy, this.data, this.filters, task, input, timers);
    } catch (e) {
      return { timers, cacheHit: false, error: filterWireError(e) ?? toWireError(e) };
    }
  }

  /** Evaluate one task; never throws (errors come back in the outcome). */
  run(task: EvalTask, input?: Value): EvalOutcome {
    const timers: Record<string, number> = {};
    let cacheHit = false;
    try {
      // Instrumented and explained requests compile the query form, so its stages can be timed.
      if (task.path && task.mode === 'value' && !task.explain && !task.instrument) return this.readDocument(task, task.path, input, timers);
      let t: bigint;
      let inputValue = input;
      if (task.input !== undefined && inputValue === undefined) {
        t = nowNs();
        inputValue = decodeInput(task.input);
        timers.timer_rego_input_parse_ns = since(t);
      }
      if (task.mode === 'partial') return this.partial(task, inputValue, timers);
      if (task.mode === 'filter') return this.filter(task, inputValue, timers);
      const { prepared, hit } = this.prepare(task.query, timers, task.instrument === true);
      cacheHit = hit;
      t = nowNs();
      let rows: ResultRow[];
      try {
        const deadline = task.timeoutMs ? Date.now() + task.timeoutMs : undefined;
        rows = prepared.eval({ input: inputValue, strictBuiltinErrors: task.strictBuiltinErrors, deadline });
      } catch (e) {
        throw new PhaseError('eval', e);
      }
      timers.timer_rego_query_eval_ns = since(t);
      const outcome: EvalOutcome = { timers, cacheHit, resultText: renderRows(rows, task) };
      if (task.explain) {
        outcome.explanation = explainEvaluation({
          policy: this.policy,
          query: task.query,
          input: inputValue,
          data: this.data,
          mode: task.explain,
          pretty: task.pretty,
          strictBuiltinErrors: task.strictBuiltinErrors,
        });
      }
      return outcome;
    } catch (e) {
      return { timers, cacheHit, error: toWireError(e) };
    }
  }
}


function renderRows(rows: ResultRow[], task: EvalTask): string | undefined {
  if (rows.length === 0) return undefined;
  const indent = task.pretty ? '  ' : '';
  if (task.mode === 'value') {
    const first = rows[0]!.expressions[0];
    return first === undefined ? undefined : toJSONText(first.value, indent);
  }
  return toJSONText(
    rows.map((r) => RObject.fromEntries(Object.entries(r.bindings))),
    indent,
  );
}

/** An error with the step that raised it (parse, compile or eval of a query). */
export class PhaseError extends Error {
  constructor(
    readonly phase: WireError['phase'],
    readonly inner: unknown,
  ) {
    super(inner instanceof Error ? inner.message : String(inner));
    this.name = 'PhaseError';
  }
}

export function toWireError(e: unknown): WireError {
  const phase = e instanceof PhaseError ? e.phase : 'eval';
  const err = e instanceof PhaseError ? e.inner : e;
  if (err instanceof RegoErrors) return { kind: 'rego', phase, message: err.message, errors: err.errors.map(regoErrorToWire) };
  if (err instanceof RegoError) return { kind: 'rego', phase, message: err.message, errors: [regoErrorToWire(err)] };
  if (err instanceof EvalError) {
    const l = err.location;
    return { kind: 'eval', phase, code: err.code, message: err.message, ...(l ? { location: { file: l.file, row: l.row, col: l.col } } : {}) };
  }
  if (err instanceof RangeError) {
    // A size limit of V8 itself (string length, Map size) is a resource limit, not recursion.
    if (rangeErrorKind(err) === 'size') return { kind: 'eval', phase, code: 'eval_cancel_error', message: `caller cancelled query execution: ${err.message}` };
    return { kind: 'eval', phase, code: 'eval_recursion_error', message: 'evaluation exceeded the maximum stack depth' };
  }
  return { kind: 'other', phase, message: err instanceof Error ? err.message : String(err) };
}

/** Turn a transferred error back into the typed error the API maps to HTTP. */
export function fromWireError(w: WireError): Error {
  if (w.kind === 'rego') {
    return new PhaseError(w.phase, new RegoErrors((w.errors ?? []).map(regoErrorFromWire)));
  }
  if (w.kind === 'eval') return new PhaseError(w.phase, new EvalError(w.code as EvalError['code'], w.message, w.location));
  return new PhaseError(w.phase, new Error(w.message));
}
