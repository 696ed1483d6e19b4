// The Wasm back end of the Backend interface (backend.ts): one or more policy.wasm
// modules in Regent's host (runtime/wasm/host.ts) over a JS back end with the same
// data. Each module serves the decision paths it has entrypoints for (an earlier module
// wins a path two modules share: the server lists bundle modules before its own);
// every other path, every query, and any evaluation a module aborts (a conflict, a
// number it refuses, a host builtin that throws) runs on the JS back end, so answers
// and errors read as the JS back end's. Each module keeps its own copy of the data:
// path writes go through opa_value_add_path/remove_path when the parent is an object,
// anything else reloads the copy whole before the module's next decision. The
// evaluation deadline goes to the host with each call; a module stopped by it raises
// eval_cancel_error at once (no second evaluation on JS).
import type { PrepareOptions, ResultRow } from './api.js';
import type { CompiledPolicy } from './policy.js';
import { RUNTIME } from '../runtime/scope.js';
import { RObject } from '../runtime/value/collections.js';
import { parseJSON, toJSONText } from '../runtime/value/index.js';
import type { Value } from '../runtime/value/value.js';
import { EvalError } from '../runtime/eval/errors.js';
import { WasmPolicy, type WasmEvalOptions } from '../runtime/wasm/host.js';
import type { Backend, BackendEvalOptions, BackendQuery, DataWrite, PreparedDecision } from './backend.js';

/** Decisions a Wasm back end (or one of its modules) answered, and handed to JS. */
export interface WasmStats {
  wasm: number;
  fallback: number;
  /** Why the last decision went to the JS back end. */
  lastFallback?: string;
}

/** A module to load: its bytes, and optionally the paths it may serve and a name. */
export interface WasmModuleSource {
  bytes: Uint8Array;
  /** Decision paths (`['rbac', 'allow']`) it serves; default: every entrypoint of the module. */
  entrypoints?: string[][];
  /** A name for stats and errors (`engine`, `bundle:<name>`). */
  source?: string;
}

/** Per module: its name, decisions served and handed over, the paths it serves (`rbac/allow`). */
export interface WasmModuleStats extends WasmStats {
  source: string;
  entrypoints: string[];
}

function entrypointKey(name: string): string {
  return name.replace(/^data[./]/, '').split(/[./]/).filter((s) => s !== '').join('/');
}

function nowNs(): bigint {
  return process.hrtime.bigint();
}

/** One instantiated module and its copy of the data. */
class LoadedModule {
  readonly stats: WasmStats = { wasm: 0, fallback: 0 };
  private stale = true;
  /** Why the module refused the current document (its decisions go to JS until the next write). */
  private loadError: string | undefined;
  private fullBytes = 0;

  constructor(
    readonly source: string,
    readonly instance: WasmPolicy,
    /** Served path (`rbac/allow`) → entrypoint id. */
    readonly paths: Map<string, number>,
  ) {}

  /** The module's result for entrypoint `ep`; throws what the module or its host raised. */
  evaluate(ep: number, data: Value, input: Value | undefined, inputText: string | undefined, opts: WasmEvalOptions): Value | undefined {
    if (this.loadError !== undefined) throw new Error(`the module did not load the data: ${this.loadError}`);
    if (this.stale) {
      this.stale = false;
      try {
        this.instance.setDataText(toJSONText(data));
      } catch (e) {
        this.loadError = e instanceof Error ? e.message : String(e);
        throw e;
      }
      this.fullBytes = this.instance.dataBytes;
    }
    const text = input !== undefined ? toJSONText(input) : inputText;
    const rs = parseJSON(this.instance.evaluateText(text, ep, opts));
    const row = Array.isArray(rs) ? rs[0] : undefined;
    return row instanceof RObject ? row.get('result') : undefined;
  }

  setData(): void {
    this.stale = true;
    this.loadError = undefined;
  }

  write(op: DataWrite, data: Value): void {
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

/** The deadline passed inside the module: final, not worth a second evaluation on JS. */
function cancelled(e: unknown): boolean {
  return e instanceof EvalError && e.code === 'eval_cancel_error';
}

function fallbackReason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * policy.wasm modules in Regent's host over a JS back end (`fallback`) with the same data.
 * Build it with loadWasmBackend or createBackend('wasm', …).
 */
export class WasmBackend implements Backend {
  readonly name = 'wasm';
  private readonly byPath = new Map<string, LoadedModule>();
  private lastFallback: string | undefined;

  constructor(
    readonly modules: readonly LoadedModule[],
    readonly fallback: Backend,
    /** Modules that did not instantiate (`source: message`); they serve nothing. */
    readonly errors: readonly string[] = [],
  ) {
    for (const m of modules) for (const key of m.paths.keys()) if (!this.byPath.has(key)) this.byPath.set(key, m);
  }

  get policy(): CompiledPolicy {
    return this.fallback.policy;
  }

  get data(): Value {
    return this.fallback.data;
  }

  /** The first module's instance (the common case of one module). */
  get instance(): WasmPolicy {
    return this.modules[0]!.instance;
  }

  /** Decisions answered by the modules and handed to JS, over all modules. */
  get stats(): WasmStats {
    let wasm = 0;
    let fallback = 0;
    for (const m of this.modules) {
      wasm += m.stats.wasm;
      fallback += m.stats.fallback;
    }
    return { wasm, fallback, ...(this.lastFallback !== undefined ? { lastFallback: this.lastFallback } : {}) };
  }

  /** Per module: decisions served, fallbacks and the paths it serves. */
  moduleStats(): WasmModuleStats[] {
    return this.modules.map((m) => ({ source: m.source, ...m.stats, entrypoints: [...m.paths.keys()].filter((k) => this.byPath.get(k) === m) }));
  }

  /** The paths the modules serve (`rbac/allow`). */
  get entrypointPaths(): string[] {
    return [...this.byPath.keys()];
  }

  serves(path: string[]): boolean {
    return this.byPath.has(path.join('/'));
  }

  private wasmOpts(opts: BackendEvalOptions): WasmEvalOptions {
    const o: WasmEvalOptions = {};
    if (opts.strictBuiltinErrors) o.strictBuiltinErrors = true;
    if (opts.print) o.print = opts.print;
    if (opts.deadline !== undefined) o.deadline = opts.deadline;
    return o;
  }

  /** The decision from the module that serves `path`; throws what the module or its host raised. */
  decideInWasm(path: string[], opts: BackendEvalOptions = {}): Value | undefined {
    const key = path.join('/');
    const m = this.byPath.get(key);
    if (m === undefined) throw new Error(`no wasm entrypoint for ${key}`);
    return m.evaluate(m.paths.get(key)!, this.fallback.data, opts.input, opts.inputText, this.wasmOpts(opts));
  }

  /** Like the prepared decision: strict builtin errors and module aborts are answered by the JS back end. */
  decide(path: string[], opts: BackendEvalOptions = {}): Value | undefined {
    const m = this.byPath.get(path.join('/'));
    if (opts.strictBuiltinErrors) this.lastFallback = 'strict builtin errors';
    else if (m !== undefined) {
      try {
        const v = this.decideInWasm(path, opts);
        m.stats.wasm++;
        return v;
      } catch (e) {
        if (cancelled(e)) throw e;
        m.stats.fallback++;
        this.lastFallback = fallbackReason(e);
      }
    } else this.lastFallback = `no entrypoint ${path.join('/')}`;
    return this.fallback.decide(path, opts);
  }

  /**
   * A path a module serves runs there, unless strict builtin errors are asked for (the
   * module's native builtins answer undefined where the JS back end raises, as OPA's
   * Wasm does) or the module aborts: then the JS back end's prepared decision answers.
   */
  prepareDecision(path: string[]): PreparedDecision {
    const js = this.fallback.prepareDecision(path);
    const key = path.join('/');
    const m = this.byPath.get(key);
    if (m === undefined) return js;
    const ep = m.paths.get(key)!;
    const data = (): Value => this.fallback.data;
    const noteFallback = (e: unknown): void => {
      this.lastFallback = fallbackReason(e);
    };
    return {
      runsOn: 'wasm',
      eval(input, inputText, strict, deadline, timers): Value | undefined {
        if (strict) return js.eval(input, inputText, strict, deadline);
        const t = nowNs();
        let v: Value | undefined;
        try {
          v = m.evaluate(ep, data(), input, inputText, deadline !== undefined ? { deadline } : {});
        } catch (e) {
          if (cancelled(e)) throw e;
          m.stats.fallback++;
          noteFallback(e);
          if (timers) timers.counter_regent_wasm_fallback = 1;
          return js.eval(input, inputText, strict, deadline);
        }
        m.stats.wasm++;
        if (timers) timers.timer_regent_wasm_eval_ns = Number(nowNs() - t);
        return v;
      },
    };
  }

  prepare(query: string, opts?: PrepareOptions): BackendQuery {
    return this.fallback.prepare(query, opts);
  }

  query(query: string, opts: BackendEvalOptions = {}): ResultRow[] {
    return this.fallback.query(query, opts);
  }

  setData(data: Value): void {
    this.fallback.setData(data);
    for (const m of this.modules) m.setData();
  }

  write(op: DataWrite, data: Value): void {
    this.fallback.write(op, data);
    for (const m of this.modules) m.write(op, data);
  }
}

/**
 * Instantiate `sources` (synchronously) over `fallback`. A module that does not
 * instantiate is skipped and listed in `errors` (or its error thrown, `throwOnError`); with no module left, the back end
 * serves nothing itself. Earlier modules win paths two modules share.
 */
export function instantiateWasmBackend(sources: WasmModuleSource[], fallback: Backend, throwOnError = false): WasmBackend {
  const modules: LoadedModule[] = [];
  const errors: string[] = [];
  for (const [i, s] of sources.entries()) {
    const source = s.source ?? `module ${i}`;
    try {
      const instance = WasmPolicy.loadSync(s.bytes);
      const wanted = s.entrypoints ? new Set(s.entrypoints.map((p) => p.join('/'))) : undefined;
      const paths = new Map<string, number>();
      for (const [name, id] of Object.entries(instance.entrypoints)) {
        const key = entrypointKey(name);
        if (wanted === undefined || wanted.has(key)) paths.set(key, id);
      }
      modules.push(new LoadedModule(source, instance, paths));
    } catch (e) {
      if (throwOnError) throw e;
      errors.push(`${source}: ${fallbackReason(e)}`);
    }
  }
  return new WasmBackend(modules, fallback, errors);
}
