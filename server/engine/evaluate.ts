// The evaluation core shared by the in-process evaluator and the worker threads:
// a compiled policy, a base document, a cache of prepared queries (per query, for
// the current policy generation), and `run`, which evaluates one task and renders
// its result as JSON text with OPA's timers. The main thread's core may hold a
// policy the workers compiled (policy-compile.ts) as a lazy one: it is compiled here
// on first use, and queries that cannot reach a rule (no `data` in their text, such as
// /health's `x = 1`) run against the empty policy meanwhile.
import { compile, parseQuery, EvalError, RegoError, RegoErrors, type CompiledPolicy, type PreparedQuery, type ResultRow, type SourceFile } from '../../compiler/index.js';
import { bodyToJSON, cachedPartial, moduleToJSON, PartialRefError, PartialUnsupported, stringifyOpaJSON } from '../../compiler/index.js';
import { RObject, applyWrite, fromJS, parseJSON, rangeErrorKind, toJSONText, type Value, type WriteOp } from '../../runtime/index.js';
import { explainEvaluation, renderExplanation } from './explain.js';
import { FilterCache, filterWireError, runFilterTask } from './filter-task.js';
import { WasmDecisions } from './wasm-decisions.js';
import type { WasmModuleSpec } from './wasm-modules.js';
import type { EvalOutcome, EvalTask, InputPayload, WireError } from './protocol.js';

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

/** Empty policies by Rego version, for queries that reach no rule while a lazy policy is not compiled. */
const emptyCores = new Map<boolean, EvalCore>();

export class EvalCore {
  private policyValue: CompiledPolicy | undefined;
  private lazyPolicy: (() => CompiledPolicy) | undefined;
  private cache = new Map<string, PreparedQuery>();
  /** Direct document reads by path (see EvalTask.path), for the current policy. */
  private decisions = new Map<string, ReturnType<CompiledPolicy['prepareDecision']>>();
  private dataValue: RObject = new RObject();
  /** Data API decisions on Wasm modules (bundle /policy.wasm, `--backend wasm`); see wasm-decisions.ts. */
  readonly wasm = new WasmDecisions();
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

  /** Swap the compiled policy (or how to compile it on first use); prepared queries of the old one are dropped. */
  setPolicy(policy: CompiledPolicy | (() => CompiledPolicy)): void {
    this.policyValue = typeof policy === 'function' ? undefined : policy;
    this.lazyPolicy = typeof policy === 'function' ? policy : undefined;
    this.cache = new Map();
    this.decisions = new Map();
    this.filters.clear();
    this.wasm.clear();
  }

  /** The base document. Replacing it reloads the Wasm modules' copies (lazily). */
  get data(): RObject {
    return this.dataValue;
  }

  set data(data: RObject) {
    this.dataValue = data;
    this.filters.clear();
    if (this.wasm.active) this.wasm.setData(data);
  }

  /** One store write; the Wasm modules patch their copies in place (opa_value_add_path/remove_path). */
  applyWrite(op: WriteOp): void {
    this.dataValue = applyWrite(this.dataValue, op);
    this.filters.clear();
    if (this.wasm.active) this.wasm.write(op, this.dataValue);
  }

  /** The store committed `ops`, giving `root` (in-process: the engine's store is the core's document). */
  committed(root: RObject, ops: WriteOp[]): void {
    const incremental = this.wasm.active && ops.length > 0 && ops.every((o) => o.path.length > 0);
    this.dataValue = root;
    this.filters.clear();
    if (!this.wasm.active) return;
    if (incremental) for (const op of ops) this.wasm.write(op, root);
    else this.wasm.setData(root);
  }

  /** The Wasm modules of the current policy (bundles' /policy.wasm, the engine's own with `--backend wasm`). */
  setWasmModules(specs: WasmModuleSpec[]): void {
    if (specs.length === 0 && !this.wasm.active) return;
    this.wasm.configure(this.policy, specs, this.dataValue);
  }

  /** A prepared query, from the cache when possible. Throws RegoErrors tagged with the failing phase. */
  prepare(query: string, timers?: Record<string, number>, instrument = false): { prepared: PreparedQuery; hit: boolean } {
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
    let prepared: PreparedQuery;
    try {
      prepared = this.policy.prepare(query, instrument && timers ? { stageTimers: timers } : {});
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
    return prepared.eval({ input, data: this.data, strictBuiltinErrors, deadline });
  }

  /** The document at a data path, read directly (the Data API's common case). */
  private readDocument(task: EvalTask, path: string[], input: Value | undefined, timers: Record<string, number>): EvalOutcome {
    const key = task.pathKey ?? path.join('\u0000');
    let decide = this.decisions.get(key);
    const cacheHit = decide !== undefined;
    if (!decide) {
      const t = nowNs();
      decide = this.policy.prepareDecision(path);
      timers.timer_rego_query_compile_ns = since(t);
      if (this.decisions.size >= CACHE_LIMIT) this.decisions.delete(this.decisions.keys().next().value!);
      this.decisions.set(key, decide);
    }
    const t = nowNs();
    let value: Value | undefined;
    try {
      const deadline = task.timeoutMs ? Date.now() + task.timeoutMs : undefined;
      value = decide({ input, data: this.data, strictBuiltinErrors: task.strictBuiltinErrors, deadline });
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
      if (task.path && task.mode === 'value' && !task.explain && !task.instrument && this.wasm.active) {
        const served = this.wasm.decide(task, input, timers);
        if (served) return served;
      }
      let t: bigint;
      let inputValue = input;
      if (task.input !== undefined && inputValue === undefined) {
        t = nowNs();
        inputValue = decodeInput(task.input);
        timers.timer_rego_input_parse_ns = since(t);
      }
      if (task.mode === 'partial') return this.partial(task, inputValue, timers);
      if (task.mode === 'filter') return this.filter(task, inputValue, timers);
      // Instrumented requests compile the query form, so its stages can be timed.
      if (task.path && !task.explain && !task.instrument && task.mode === 'value') return this.readDocument(task, task.path, inputValue, timers);
      const { prepared, hit } = this.prepare(task.query, timers, task.instrument === true);
      cacheHit = hit;
      t = nowNs();
      let rows: ResultRow[];
      try {
        const deadline = task.timeoutMs ? Date.now() + task.timeoutMs : undefined;
        rows = prepared.eval({ input: inputValue, data: this.data, strictBuiltinErrors: task.strictBuiltinErrors, deadline });
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
  if (err instanceof RegoErrors) return { kind: 'rego', phase, message: err.message, errors: err.errors.map((x) => x.toJSON()) };
  if (err instanceof RegoError) return { kind: 'rego', phase, message: err.message, errors: [err.toJSON()] };
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
    const errs = (w.errors ?? []).map((x) => new RegoError(x.code as RegoError['code'], x.message, x.location ? { ...x.location, offset: 0 } : undefined));
    return new PhaseError(w.phase, new RegoErrors(errs));
  }
  if (w.kind === 'eval') return new PhaseError(w.phase, new EvalError(w.code as EvalError['code'], w.message, w.location));
  return new PhaseError(w.phase, new Error(w.message));
}
