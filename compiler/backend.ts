// The neutral Backend interface: one place that chooses how a compiled policy runs —
// generated JavaScript (`js`, the default), closures (`closures`), the reference
// interpreter (`interp`) or WebAssembly (`wasm`, through Regent's host in
// runtime/wasm/host.ts; backend-wasm.ts). Every back end answers the same questions
// (the document at a data path, every row of a query) over a base document the back
// end is told about (`setData`, then `write` per store write), either at once
// (`decide`, `query`) or prepared once and run many times (`prepareDecision`,
// `prepare`: the server's hot path). No back end here re-implements rule semantics:
// they all run the same IR. Partial evaluation, explanations and data filters stay on
// the JS policy, which every back end exposes as `policy`.
import type { CompileOptions, EvalOptions, PrepareOptions, ResultRow, SourceFile } from './api.js';
import { CompiledPolicy, compile } from './policy.js';
import { prepareInterpreted } from './interp/index.js';
import { compileWasm, WasmUnsupportedError } from './codegen/wasm/lazy.js';
import { RObject } from '../runtime/value/collections.js';
import { parseJSON } from '../runtime/value/index.js';
import type { Value } from '../runtime/value/value.js';
import { instantiateWasmBackend, type WasmBackend, type WasmModuleSource } from './backend-wasm.js';

export { WasmBackend, instantiateWasmBackend, type WasmModuleSource, type WasmModuleStats, type WasmStats } from './backend-wasm.js';

export type BackendName = 'js' | 'closures' | 'interp' | 'wasm';
export const BACKEND_NAMES: readonly BackendName[] = ['js', 'closures', 'interp', 'wasm'];

/** One store write, already applied to the document the back end is then given. */
export interface DataWrite {
  op: 'add' | 'replace' | 'remove';
  path: string[];
  value?: Value;
}

/** Evaluation options; `data` is the back end's own (setData/write). */
export type BackendEvalOptions = Omit<EvalOptions, 'data'> & {
  /** The input as JSON text, instead of `input` (the Wasm back end reads it as it is). */
  inputText?: string;
};

/**
 * A decision prepared once for one data path (callers cache it per path). Its
 * arguments are positional so that a call allocates nothing beyond what the
 * evaluation itself does.
 */
export interface PreparedDecision {
  /** Where it runs: `wasm` when a module answers (then give the input as text if you have it). */
  readonly runsOn: BackendName;
  /**
   * The document at the path over the back end's data, or undefined. `input` wins over
   * `inputText`. `timers`, when given, learns where a Wasm decision ran:
   * `timer_regent_wasm_eval_ns` (in the module) or `counter_regent_wasm_fallback` (the
   * module aborted and the JS back end answered).
   */
  eval(input: Value | undefined, inputText: string | undefined, strictBuiltinErrors: boolean | undefined, deadline: number | undefined, timers?: Record<string, number>): Value | undefined;
}

/** A query prepared once over the back end's data. */
export interface BackendQuery {
  /** The query's user-written variables, in order of first appearance. */
  readonly vars: string[];
  eval(opts?: BackendEvalOptions): ResultRow[];
}

export interface Backend {
  readonly name: BackendName;
  /** The compiled policy (partial evaluation, explanations and filters run on it). */
  readonly policy: CompiledPolicy;
  /** The base document evaluations see. */
  readonly data: Value;
  /** Whether `decide(path)` runs on this back end itself (Wasm: an entrypoint of a module). */
  serves(path: string[]): boolean;
  /** The document at `path` under `data` (a Data API decision), or undefined. */
  decide(path: string[], opts?: BackendEvalOptions): Value | undefined;
  /** The decision at `path`, prepared for many calls. Throws RegoErrors the path cannot compile with. */
  prepareDecision(path: string[]): PreparedDecision;
  /** Every solution of a Rego query. */
  query(query: string, opts?: BackendEvalOptions): ResultRow[];
  /** A query prepared for many calls (stage timers as CompiledPolicy.prepare). Throws RegoErrors. */
  prepare(query: string, opts?: PrepareOptions): BackendQuery;
  /** Replace the base document. */
  setData(data: Value): void;
  /** One write to the base document; `data` is the document after it. */
  write(op: DataWrite, data: Value): void;
}

export interface BackendOptions {
  /** Used when `policy` is a list of source files (and for the closures back end's options). */
  compile?: CompileOptions;
  /** Wasm: the entrypoints to compile (default: every rule and package path, see wasmEntrypoints). */
  entrypoints?: (string | string[])[];
  /** Wasm: an already-built module (e.g. a bundle's /policy.wasm) instead of compiling one. */
  wasm?: Uint8Array;
  /** Wasm: binaryen optimization level (default 1). */
  optimize?: number;
}

const CACHE_LIMIT = 1000;

function decodeInput(input: Value | undefined, inputText: string | undefined): Value | undefined {
  return input ?? (inputText !== undefined ? parseJSON(inputText) : undefined);
}

/** EvalOptions over `data` (a literal of one shape, not a spread: this runs per query). */
function evalOpts(opts: BackendEvalOptions, data: Value): EvalOptions {
  return { input: decodeInput(opts.input, opts.inputText), data, strictBuiltinErrors: opts.strictBuiltinErrors, print: opts.print, deadline: opts.deadline };
}

function remember<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let v = cache.get(key);
  if (v === undefined) {
    v = make();
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(key, v);
  }
  return v;
}

/** The query that names the document at `path`: `data["a"]["b"]`. */
export function pathQuery(path: string[]): string {
  return 'data' + path.map((s) => `[${JSON.stringify(s)}]`).join('');
}

/** Generated JS or closures: the compiled Program, with prepared decisions and queries cached. */
class ProgramBackend implements Backend {
  data: Value = new RObject();
  private readonly decisions = new Map<string, ReturnType<CompiledPolicy['prepareDecision']>>();
  private readonly queries = new Map<string, BackendQuery>();

  constructor(
    readonly name: BackendName,
    readonly policy: CompiledPolicy,
  ) {}

  serves(): boolean {
    return true;
  }

  decide(path: string[], opts: BackendEvalOptions = {}): Value | undefined {
    return remember(this.decisions, path.join('\u0000'), () => this.policy.prepareDecision(path))(evalOpts(opts, this.data));
  }

  prepareDecision(path: string[]): PreparedDecision {
    const decide = this.policy.prepareDecision(path);
    const self = this;
    return {
      runsOn: this.name,
      eval(input, inputText, strictBuiltinErrors, deadline): Value | undefined {
        return decide({ input: decodeInput(input, inputText), data: self.data, strictBuiltinErrors, deadline });
      },
    };
  }

  query(query: string, opts: BackendEvalOptions = {}): ResultRow[] {
    return remember(this.queries, query, () => this.prepare(query)).eval(opts);
  }

  prepare(query: string, opts?: PrepareOptions): BackendQuery {
    const prepared = this.policy.prepare(query, opts);
    return { vars: prepared.vars, eval: (o = {}) => prepared.eval(evalOpts(o, this.data)) };
  }

  setData(data: Value): void {
    this.data = data;
  }

  write(_op: DataWrite, data: Value): void {
    this.data = data;
  }
}

/** The reference interpreter (walks the IR; the differential oracle). */
class InterpBackend extends ProgramBackend {
  override decide(path: string[], opts: BackendEvalOptions = {}): Value | undefined {
    return this.query(pathQuery(path), opts)[0]?.expressions[0]?.value;
  }

  override prepareDecision(path: string[]): PreparedDecision {
    const q = this.prepare(pathQuery(path));
    return {
      runsOn: 'interp',
      eval: (input, inputText, strictBuiltinErrors, deadline) => q.eval({ input: decodeInput(input, inputText), strictBuiltinErrors, deadline })[0]?.expressions[0]?.value,
    };
  }

  override prepare(query: string): BackendQuery {
    const prepared = prepareInterpreted(this.policy, query);
    return { vars: prepared.vars, eval: (o = {}) => prepared.eval(evalOpts(o, this.data)) };
  }
}

/** A JS, closures or interpreter back end (synchronous: no module to build). */
export function createJSBackend(name: Exclude<BackendName, 'wasm'>, policy: CompiledPolicy | SourceFile[], opts: BackendOptions = {}): Backend {
  const compiled = Array.isArray(policy) ? compile(policy, { ...opts.compile, backend: name === 'closures' ? 'closures' : 'js' }) : policy;
  if (name === 'interp') return new InterpBackend('interp', compiled);
  if (name === 'closures' && (compiled.state.opts.backend ?? 'js') !== 'closures') {
    // the same IR, a closure Program
    return new ProgramBackend('closures', new CompiledPolicy({ ...compiled.state, opts: { ...compiled.state.opts, backend: 'closures' } }));
  }
  return new ProgramBackend(name === 'closures' ? 'closures' : 'js', compiled);
}

/**
 * A Wasm back end over already-built modules (instantiated synchronously): one
 * module (every entrypoint served), or several with the paths each may serve (earlier
 * ones win shared paths; one that does not instantiate is listed in `errors`).
 */
export function loadWasmBackend(policy: CompiledPolicy, wasm: Uint8Array | WasmModuleSource[]): WasmBackend {
  const js = createJSBackend('js', policy);
  return Array.isArray(wasm) ? instantiateWasmBackend(wasm, js) : instantiateWasmBackend([{ bytes: wasm, source: 'module' }], js, true);
}

/** Every path a Data API decision can name that the Wasm back end may compile: rule groups (not functions) and packages. */
export function wasmEntrypoints(policy: CompiledPolicy): string[][] {
  const out = new Map<string, string[]>();
  for (const g of policy.ir.groups) if (g.kind !== 'function') out.set(g.path.join('/'), g.path);
  for (const m of policy.modules) {
    const pkg = m.package.path.map((t) => (t as { value?: unknown }).value).filter((v): v is string => typeof v === 'string');
    if (pkg.length > 0) out.set(pkg.join('/'), pkg);
  }
  return [...out.values()];
}

/** A module for as many of `entrypoints` as the Wasm back end compiles; the refused ones with their reasons. */
export async function compileSupportedWasm(policy: CompiledPolicy, entrypoints: string[][], optimize = 1): Promise<{ wasm?: Uint8Array; entrypoints: string[][]; refused: { path: string[]; reason: string }[] }> {
  if (entrypoints.length === 0) return { entrypoints: [], refused: [] };
  try {
    return { wasm: await compileWasm(policy, entrypoints, { optimize }), entrypoints, refused: [] };
  } catch (e) {
    if (!(e instanceof WasmUnsupportedError)) throw e;
  }
  // some entrypoint reaches a refused construct: find which, without optimizing
  const ok: string[][] = [];
  const refused: { path: string[]; reason: string }[] = [];
  for (const ep of entrypoints) {
    try {
      await compileWasm(policy, [ep], { optimize: 0 });
      ok.push(ep);
    } catch (e) {
      if (!(e instanceof WasmUnsupportedError)) throw e;
      refused.push({ path: ep, reason: e.message });
    }
  }
  if (ok.length === 0) return { entrypoints: [], refused };
  return { wasm: await compileWasm(policy, ok, { optimize }), entrypoints: ok, refused };
}

/**
 * The back end `name` for `policy`. Wasm compiles a module (binaryen loads on first
 * use, about 5 s) for `opts.entrypoints` (default: every rule and package path the
 * module can compile), or instantiates `opts.wasm`.
 */
export async function createBackend(name: BackendName, policy: CompiledPolicy | SourceFile[], opts: BackendOptions = {}): Promise<Backend> {
  if (name !== 'wasm') return createJSBackend(name, policy, opts);
  const compiled = Array.isArray(policy) ? compile(policy, opts.compile) : policy;
  let wasm = opts.wasm;
  if (wasm === undefined) {
    const eps = (opts.entrypoints ?? wasmEntrypoints(compiled)).map((e) => (typeof e === 'string' ? e.replace(/^data[./]/, '').split(/[./]/).filter((s) => s !== '') : e));
    wasm = (await compileSupportedWasm(compiled, eps, opts.optimize ?? 1)).wasm;
  }
  if (wasm === undefined) return createJSBackend('js', compiled); // nothing compiles to Wasm
  return loadWasmBackend(compiled, wasm);
}
