// Data API decisions on the Wasm back end, inside an EvalCore (the in-process
// evaluator or one pool worker). The core holds one Wasm instance per module: the
// /policy.wasm of each active bundle that ships one (its manifest `wasm` entrypoints,
// as OPA evaluates wasm bundles), and with `--backend wasm` the module the engine's
// compile thread built from the policies (wasm-compiler.ts), which arrives in a
// later update than the policy itself (until then those paths are evaluated on JS). Each instance keeps its own copy of the base document,
// updated by path writes (opa_value_add_path/remove_path) or reloaded whole. A task
// whose path is an entrypoint runs in the module; any other task, and one the module
// aborts (a conflict, a number it refuses, a host builtin that throws), is left to
// the JS back end with the same data, so answers and errors are the JS back end's.
import { loadWasmBackend, type CompiledPolicy, type DataWrite, type WasmBackend } from '../../compiler/index.js';
import { toJSONText, type Value } from '../../runtime/index.js';
import type { EvalOutcome, EvalTask, InputPayload } from './protocol.js';
import type { WasmModuleSpec } from './wasm-modules.js';

interface Loaded {
  source: string;
  backend: WasmBackend;
  paths: Set<string>;
}

function nowNs(): bigint {
  return process.hrtime.bigint();
}

function inputText(input: Value | undefined, payload: InputPayload | undefined): string | undefined {
  if (input !== undefined) return toJSONText(input);
  if (payload === undefined) return undefined;
  return payload.kind === 'text' ? payload.text : JSON.stringify(payload.js);
}

export class WasmDecisions {
  private loaded: Loaded[] = [];
  /** Load errors (a module that does not instantiate is skipped). */
  errors: string[] = [];

  /** True when some module serves decisions. */
  get active(): boolean {
    return this.loaded.length > 0;
  }

  /** Drop every module (the policy changed; configure() brings the new ones). */
  clear(): void {
    this.loaded = [];
  }

  /** Instantiate the modules of `policy` (bundle modules first: they win on shared paths). */
  configure(policy: CompiledPolicy, specs: WasmModuleSpec[], data: Value): void {
    this.loaded = [];
    this.errors = [];
    const ordered = [...specs].sort((a, b) => Number(a.source === 'engine') - Number(b.source === 'engine'));
    for (const spec of ordered) this.load(policy, spec, data);
  }

  private load(policy: CompiledPolicy, spec: WasmModuleSpec, data: Value): void {
    try {
      const backend = loadWasmBackend(policy, spec.bytes);
      backend.setData(data);
      const taken = new Set(this.loaded.flatMap((l) => [...l.paths]));
      const paths = new Set(spec.entrypoints.map((p) => p.join('/')).filter((p) => !taken.has(p) && backend.serves(p.split('/'))));
      this.loaded.push({ source: spec.source, backend, paths });
    } catch (e) {
      this.errors.push(`${spec.source}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** The base document was replaced (snapshot, bundle activation in-process): reload lazily. */
  setData(data: Value): void {
    for (const l of this.loaded) l.backend.setData(data);
  }

  /** One store write, `data` being the document after it. */
  write(op: DataWrite, data: Value): void {
    for (const l of this.loaded) l.backend.write(op, data);
  }

  /**
   * A Data API read (`task.path`) on the module that has it as an entrypoint; undefined
   * when no module serves the path or the module aborted (the caller evaluates on JS).
   */
  decide(task: EvalTask, input: Value | undefined, timers: Record<string, number>): EvalOutcome | undefined {
    const path = task.path;
    // strict builtin errors: the module's native builtins answer undefined where the JS
    // back end raises, so those decisions stay on JS
    if (path === undefined || this.loaded.length === 0 || task.strictBuiltinErrors) return undefined;
    const key = path.join('/');
    const hit = this.loaded.find((l) => l.paths.has(key));
    if (hit === undefined) return undefined;
    const t = nowNs();
    let value: Value | undefined;
    try {
      const text = inputText(input, task.input);
      value = hit.backend.decideInWasm(path, text !== undefined ? { inputText: text } : {});
    } catch {
      hit.backend.stats.fallback++;
      timers.counter_regent_wasm_fallback = 1;
      return undefined;
    }
    hit.backend.stats.wasm++;
    timers.timer_regent_wasm_eval_ns = Number(nowNs() - t);
    timers.timer_rego_query_eval_ns = timers.timer_regent_wasm_eval_ns;
    return { timers, cacheHit: true, resultText: value === undefined ? undefined : toJSONText(value, task.pretty ? '  ' : '') };
  }

  /** Per module: decisions served and fallbacks (tests, debugging). */
  stats(): { source: string; wasm: number; fallback: number; entrypoints: string[] }[] {
    return this.loaded.map((l) => ({ source: l.source, wasm: l.backend.stats.wasm, fallback: l.backend.stats.fallback, entrypoints: [...l.paths] }));
  }
}
