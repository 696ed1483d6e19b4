// The neutral Backend interface: one place that chooses how a compiled policy runs —
// generated JavaScript (`js`, the default), closures (`closures`), the reference
// interpreter (`interp`) or WebAssembly (`wasm`, through Regent's host in
// runtime/wasm/host.ts). Every back end answers the same two questions (the document
// at a data path, every row of a query) over a base document the back end is told
// about (`setData`, then `write` per store write). No back end here re-implements rule
// semantics: they all run the same IR. The Wasm back end serves the paths its module
// has entrypoints for and hands everything else (other queries, refused entrypoints,
// evaluations the module aborts) to a JS back end over the same data.
import type { CompileOptions, EvalOptions, ResultRow, SourceFile } from './api.js';
import { CompiledPolicy, compile } from './policy.js';
import { prepareInterpreted } from './interp/index.js';
import { compileWasm, WasmUnsupportedError } from './codegen/wasm/lazy.js';
import { RUNTIME } from '../runtime/scope.js';
import { RObject } from '../runtime/value/collections.js';
import { parseJSON, toJSONText } from '../runtime/value/index.js';
import type { Value } from '../runtime/value/value.js';
import { WasmPolicy } from '../runtime/wasm/host.js';

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

export interface Backend {
  readonly name: BackendName;
  readonly policy: CompiledPolicy;
  /** The base document evaluations see. */
  readonly data: Value;
  /** Whether `decide(path)` runs on this back end itself (Wasm: an entrypoint of its module). */
  serves(path: string[]): boolean;
  /** The document at `path` under `data` (a Data API decision), or undefined. */
  decide(path: string[], opts?: BackendEvalOptions): Value | undefined;
  /** Every solution of a Rego query. */
  query(query: string, opts?: BackendEvalOptions): ResultRow[];
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

function evalOpts(opts: BackendEvalOptions, data: Value): EvalOptions {
  const input = opts.input ?? (opts.inputText !== undefined ? parseJSON(opts.inputText) : undefined);
  return { ...opts, data, ...(input !== undefined ? { input } : {}) };
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
  private readonly queries = new Map<string, ReturnType<CompiledPolicy['prepare']>>();

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

  query(query: string, opts: BackendEvalOptions = {}): ResultRow[] {
    return remember(this.queries, query, () => this.policy.prepare(query)).eval(evalOpts(opts, this.data));
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
  private readonly plans = new Map<string, ReturnType<typeof prepareInterpreted>>();

  override decide(path: string[], opts: BackendEvalOptions = {}): Value | undefined {
    return this.query(pathQuery(path), opts)[0]?.expressions[0]?.value;
  }

  override query(query: string, opts: BackendEvalOptions = {}): ResultRow[] {
    return remember(this.plans, query, () => prepareInterpreted(this.policy, query)).eval(evalOpts(opts, this.data));
  }
}

/** Why the last Wasm decision went to the JS back end (for tests and metrics). */
export interface WasmStats {
  wasm: number;
  fallback: number;
  lastFallback?: string;
}

/**
 * A policy.wasm in Regent's host. Its copy of the data follows setData/write (path
 * writes through opa_value_add_path/remove_path, a full reload when those cannot
 * apply or after a setData); decisions at its entrypoints run in the module, the
 * rest — and any evaluation the module aborts (conflicts, numbers it refuses, a
 * host builtin that throws) — on the JS back end, so errors read as the JS back
 * end's do.
 */
export class WasmBackend implements Backend {
  readonly name = 'wasm';
  readonly stats: WasmStats = { wasm: 0, fallback: 0 };
  private stale = true;
  /** Why the module refused the current document (then every decision goes to JS until the next write). */
  private loadError: string | undefined;
  private fullBytes = 0;
  private readonly paths: Map<string, number>;

  constructor(
    readonly instance: WasmPolicy,
    readonly fallback: Backend,
  ) {
    this.paths = new Map(Object.entries(instance.entrypoints).map(([name, id]) => [name.replace(/^data[./]/, '').split(/[./]/).filter((s) => s !== '').join('/'), id]));
  }

  get policy(): CompiledPolicy {
    return this.fallback.policy;
  }

  get data(): Value {
    return this.fallback.data;
  }

  /** The entrypoint paths of the module (`rbac/allow`). */
  get entrypointPaths(): string[] {
    return [...this.paths.keys()];
  }

  serves(path: string[]): boolean {
    return this.paths.has(path.join('/'));
  }

  /** The decision from the module; throws what the module or its host raised. */
  decideInWasm(path: string[], opts: BackendEvalOptions = {}): Value | undefined {
    const ep = this.paths.get(path.join('/'));
    if (ep === undefined) throw new Error(`no wasm entrypoint for ${path.join('/')}`);
    if (this.loadError !== undefined) throw new Error(`the module did not load the data: ${this.loadError}`);
    if (this.stale) {
      this.stale = false;
      try {
        this.instance.setDataText(toJSONText(this.fallback.data));
      } catch (e) {
        this.loadError = e instanceof Error ? e.message : String(e);
        throw e;
      }
      this.fullBytes = this.instance.dataBytes;
    }
    const inputText = opts.inputText ?? (opts.input !== undefined ? toJSONText(opts.input) : undefined);
    const rs = parseJSON(this.instance.evaluateText(inputText, ep, opts));
    const row = Array.isArray(rs) ? rs[0] : undefined;
    return row instanceof RObject ? row.get('result') : undefined;
  }

  decide(path: string[], opts: BackendEvalOptions = {}): Value | undefined {
    if (this.serves(path)) {
      try {
        const v = this.decideInWasm(path, opts);
        this.stats.wasm++;
        return v;
      } catch (e) {
        this.stats.lastFallback = e instanceof Error ? e.message : String(e);
      }
    } else this.stats.lastFallback = `no entrypoint ${path.join('/')}`;
    this.stats.fallback++;
    return this.fallback.decide(path, opts);
  }

  query(query: string, opts: BackendEvalOptions = {}): ResultRow[] {
    return this.fallback.query(query, opts);
  }

  setData(data: Value): void {
    this.fallback.setData(data);
    this.stale = true;
    this.loadError = undefined;
  }

  write(op: DataWrite, data: Value): void {
    this.fallback.write(op, data);
    if (this.loadError !== undefined) {
      // retry a whole load with the next decision: the write may have fixed the document
      this.loadError = undefined;
      this.stale = true;
    }
    if (this.stale) return;
    const parent = op.path.length === 0 ? undefined : RUNTIME.dig(data, op.path.slice(0, -1));
    let ok = parent instanceof RObject;
    if (ok && op.op === 'remove') ok = this.instance.removePath(op.path);
    else if (ok) ok = op.value !== undefined && this.instance.addPath(op.path, toJSONText(op.value));
    // path writes leave the old values in the bump heap: reload once they double it
    if (!ok || this.instance.dataBytes > 2 * this.fullBytes + (1 << 20)) this.stale = true;
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

/** A Wasm back end over an already-built module (instantiated synchronously). */
export function loadWasmBackend(policy: CompiledPolicy, wasm: Uint8Array): WasmBackend {
  return new WasmBackend(WasmPolicy.loadSync(wasm), createJSBackend('js', policy));
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
