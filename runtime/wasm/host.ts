// Regent's own host for policy.wasm modules (OPA Wasm ABI 1.x): instantiates a module,
// loads data, evaluates entrypoints through the ABI 1.2 `opa_eval` fast path, and
// serves every builtin the module calls through `opa_builtinN` from Regent's JS
// builtin registry (arguments and results cross as JSON, as in OPA's SDKs). Errors
// raised inside the module (opa_abort) surface as WasmAbortError; the instance stays
// usable because every evaluation resets the heap to just after the data.
import { getBuiltin, callBuiltin, type BuiltinContext } from '../builtins/index.js';
import { currentRuntimeInfo } from '../eval/runtime-info.js';
import { formatTerm } from '../value/format.js';
import { parseValueText } from './value-text.js';
import type { Value } from '../value/value.js';
import { EvalError } from '../eval/errors.js';

/**
 * The builtin id a module calls through `opa_builtin0` when its loop step count runs out
 * with a deadline on (runtime/wasm/assembly/limits.ts); never listed in `builtins()`.
 */
const DEADLINE_BUILTIN = -1;

export class WasmAbortError extends Error {
  readonly code = 'eval_wasm_abort';
}

/** Per-evaluation options of Regent's host (what host-served builtins see). */
export interface WasmEvalOptions {
  /** Builtin errors raise instead of making the call undefined (strict-builtin-errors). */
  strictBuiltinErrors?: boolean;
  /** Receives print() output of host-served builtins. */
  print?: (message: string) => void;
  /**
   * Wall-clock deadline in ms since the epoch (as EvalOptions.deadline): loops in the
   * module stop with eval_cancel_error once it has passed; the instance stays usable.
   */
  deadline?: number;
}

export interface WasmHostOptions {
  /** Initial memory in 64 KiB pages (default 5, as the SDK). */
  initialPages?: number;
  /** Extra builtins by name, taking and returning JSON values (as the SDK's customBuiltins). */
  customBuiltins?: Record<string, (...args: unknown[]) => unknown>;
}

// The WebAssembly global, typed locally (the project's lib settings have no DOM types).
interface WAMemory { buffer: ArrayBuffer; grow(pages: number): number }
interface WAModule { readonly __module?: true }
const WA = (globalThis as unknown as {
  WebAssembly: {
    Memory: new (d: { initial: number }) => WAMemory;
    Module: new (bytes: Uint8Array) => WAModule;
    Instance: new (m: WAModule, imports: object) => { exports: Record<string, unknown> };
  };
}).WebAssembly;

type Exports = Record<string, (...a: number[]) => number>;

const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();
/** For string values read in place: a leading U+FEFF is part of the string. */
const STRING_DECODER = new TextDecoder('utf-8', { ignoreBOM: true });

export class WasmPolicy {
  private data = 0;
  private dataHeap = 0;
  private baseHeap = 0;
  /** Entrypoint names → numbers, from the module's `entrypoints()`. */
  readonly entrypoints: Record<string, number>;
  /** Names of the builtins the module calls through opa_builtinN (host-served). */
  builtinNames: string[] = [];
  /** The highest heap pointer seen after an evaluation (bytes), for memory reports. */
  heapHighWater = 0;
  /** Options of the evaluation in progress (host-served builtins read them). */
  private evalOpts: WasmEvalOptions = {};
  /** The builtin context of the evaluation in progress (one per evaluation: its cache and clock). */
  private ctx: BuiltinContext | undefined;

  private constructor(
    readonly x: Exports,
    private readonly mem: WAMemory,
  ) {
    this.data = this.loadJSON({});
    this.baseHeap = this.x.opa_heap_ptr_get!();
    this.dataHeap = this.baseHeap;
    this.entrypoints = this.dumpJSON(this.x.entrypoints!()) as Record<string, number>;
  }

  static load(wasm: Uint8Array | WAModule, opts: WasmHostOptions = {}): Promise<WasmPolicy> {
    try {
      return Promise.resolve(WasmPolicy.loadSync(wasm, opts));
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }

  /** Instantiate synchronously (Node compiles modules of any size on any thread). */
  static loadSync(wasm: Uint8Array | WAModule, opts: WasmHostOptions = {}): WasmPolicy {
    const mem = new WA.Memory({ initial: opts.initialPages ?? 5 });
    let self: WasmPolicy | undefined;
    let ids: Record<number, string> = {};
    const text = (addr: number): string => {
      const b = new Uint8Array(mem.buffer);
      let end = addr;
      while (b[end] !== 0) end++;
      return new TextDecoder().decode(b.subarray(addr, end));
    };
    const builtin = (id: number, ...args: number[]): number => {
      const p = self!;
      if (id === DEADLINE_BUILTIN) return p.checkDeadline();
      const name = ids[id]!;
      const custom = opts.customBuiltins?.[name];
      if (custom) {
        const out = custom(...args.map((a) => p.dumpJSON(a)));
        return out === undefined ? 0 : p.loadJSON(out);
      }
      // Regent's registry: exact values both ways (Rego value text, sets kept)
      const def = getBuiltin(name);
      if (!def) throw new WasmAbortError(`not implemented: built-in function ${name}`);
      const v = callBuiltin(def, args.map((a) => p.argValue(a)), p.builtinContext());
      return v === undefined ? 0 : p.resultValue(v);
    };
    const env = {
      memory: mem,
      opa_abort: (addr: number) => { throw new WasmAbortError(text(addr)); },
      opa_println: (addr: number) => console.log(text(addr)),
      opa_builtin0: (id: number) => builtin(id),
      opa_builtin1: (id: number, _c: number, a: number) => builtin(id, a),
      opa_builtin2: (id: number, _c: number, a: number, b: number) => builtin(id, a, b),
      opa_builtin3: (id: number, _c: number, a: number, b: number, c: number) => builtin(id, a, b, c),
      opa_builtin4: (id: number, _c: number, a: number, b: number, c: number, d: number) => builtin(id, a, b, c, d),
    };
    const module = wasm instanceof Uint8Array ? new WA.Module(wasm) : wasm;
    const instance = new WA.Instance(module, { env });
    const x = instance.exports as unknown as Exports;
    const version = (instance.exports.opa_wasm_abi_version as { value: number } | undefined)?.value;
    if (version !== 1) throw new Error(`unsupported ABI version ${String(version)}`);
    self = new WasmPolicy(x, mem);
    const byName = self.dumpJSON(x.builtins!()) as Record<string, number>;
    ids = Object.fromEntries(Object.entries(byName).map(([k, v]) => [v, k]));
    self.builtinNames = Object.keys(byName);
    return self;
  }

  private loadJSON(value: unknown): number {
    return this.loadText(JSON.stringify(value));
  }

  private loadText(text: string): number {
    const bytes = new TextEncoder().encode(text);
    const addr = this.x.opa_malloc!(bytes.length);
    new Uint8Array(this.mem.buffer).set(bytes, addr);
    const v = this.x.opa_value_parse!(addr, bytes.length);
    if (v === 0) throw new WasmAbortError('failed to parse json value');
    return v;
  }

  private dumpJSON(addr: number): unknown {
    return JSON.parse(this.rawText(this.x.opa_json_dump!(addr)));
  }

  private view: Uint8Array | undefined;

  /** A byte view of memory, renewed when memory grows. */
  private bytes(): Uint8Array {
    if (this.view === undefined || this.view.buffer !== this.mem.buffer) this.view = new Uint8Array(this.mem.buffer);
    return this.view;
  }

  private words: Int32Array | undefined;

  /**
   * A module value as a Regent value for a host-served builtin: strings, booleans and
   * null are read in place (the value layout of runtime/wasm/assembly/values.ts:
   * `STR [tag 4, len, utf8 ptr]`, `BOOL [tag 2, b]`, `NULL [tag 1]`), everything else
   * through `opa_value_dump` text (numbers keep their exact text, sets stay sets).
   */
  argValue(addr: number): Value {
    const w = this.wordView();
    const i = addr >> 2;
    if ((addr & 3) === 0) {
      const tag = w[i];
      if (tag === 4) {
        const p = w[i + 2]!;
        return STRING_DECODER.decode(this.bytes().subarray(p, p + w[i + 1]!));
      }
      if (tag === 2) return w[i + 1] !== 0;
      if (tag === 1) return null;
    }
    return parseValueText(this.rawText(this.x.opa_value_dump!(addr)));
  }

  /**
   * A host-served builtin's result as a module value: booleans, null and strings are
   * written in place in the value layout (`opa_malloc`, as argValue reads them), the
   * rest parsed from Rego value text (`opa_value_parse`).
   */
  resultValue(v: Value): number {
    if (typeof v === 'boolean' || v === null) {
      const a = this.x.opa_malloc!(8);
      const w = this.wordView();
      w[a >> 2] = v === null ? 1 : 2;
      w[(a >> 2) + 1] = v === true ? 1 : 0;
      return a;
    }
    if (typeof v === 'string') {
      const bytes = ENCODER.encode(v);
      const p = this.x.opa_malloc!(bytes.length);
      this.bytes().set(bytes, p);
      const a = this.x.opa_malloc!(12);
      const w = this.wordView();
      w[a >> 2] = 4;
      w[(a >> 2) + 1] = bytes.length;
      w[(a >> 2) + 2] = p;
      return a;
    }
    return this.loadText(formatTerm(v));
  }

  /** An i32 view of memory, renewed when memory grows. */
  private wordView(): Int32Array {
    if (this.words === undefined || this.words.buffer !== this.mem.buffer) this.words = new Int32Array(this.mem.buffer);
    return this.words;
  }

  rawText(addr: number): string {
    const b = this.bytes();
    return DECODER.decode(b.subarray(addr, b.indexOf(0, addr)));
  }

  /** Replace the data document (JSON). A bad document leaves the previous one in place. */
  setData(data: unknown): void {
    this.setDataText(JSON.stringify(data));
  }

  /** The builtin context of the current evaluation, made on the first host-served call. */
  builtinContext(): BuiltinContext {
    this.ctx ??= {
      strict: this.evalOpts.strictBuiltinErrors === true, cache: new Map(), nowNs: BigInt(Date.now()) * 1_000_000n,
      print: this.evalOpts.print ?? (() => {}), runtime: currentRuntimeInfo(), extras: {},
    };
    return this.ctx;
  }

  /** The module's deadline check (every 1,024 loop steps): throws once the deadline has passed. */
  private checkDeadline(): number {
    const d = this.evalOpts.deadline;
    if (d !== undefined && Date.now() > d) {
      throw new EvalError('eval_cancel_error', 'caller cancelled query execution: evaluation deadline exceeded');
    }
    return 0;
  }

  /** Replace the data document from JSON (or Rego value) text; a bad document leaves the previous one. */
  setDataText(text: string): void {
    // Parsed once above the current data (so a failure leaves it intact), then again
    // from the base, which cannot fail now, so the old document's memory is reused.
    this.x.opa_heap_ptr_set!(this.dataHeap);
    try {
      this.loadText(text);
    } finally {
      this.x.opa_heap_ptr_set!(this.dataHeap);
    }
    this.x.opa_heap_ptr_set!(this.baseHeap);
    this.data = this.loadText(text);
    this.dataHeap = this.x.opa_heap_ptr_get!();
  }

  /**
   * Put `valueText` at `path` in the data (`opa_value_add_path`: missing objects on the
   * way are made). False when the module refuses (a non-object on the way, an empty path).
   * The old value stays in memory until the next setData (the heap is a bump allocator).
   */
  addPath(path: string[], valueText: string): boolean {
    this.x.opa_heap_ptr_set!(this.dataHeap);
    try {
      const v = this.loadText(valueText);
      const p = this.loadJSON(path);
      if (this.x.opa_value_add_path!(this.data, p, v) !== 0) return false;
    } finally {
      this.dataHeap = this.x.opa_heap_ptr_get!();
    }
    return true;
  }

  /** Remove the value at `path` from the data (`opa_value_remove_path`); false when refused. */
  removePath(path: string[]): boolean {
    this.x.opa_heap_ptr_set!(this.dataHeap);
    try {
      return this.x.opa_value_remove_path!(this.data, this.loadJSON(path)) === 0;
    } finally {
      this.dataHeap = this.x.opa_heap_ptr_get!();
    }
  }

  /** Bytes the data document (and the garbage of path writes since the last setData) occupies. */
  get dataBytes(): number {
    return this.dataHeap - this.baseHeap;
  }

  /** The result set `[{"result": …}]` (or `[]`) of one entrypoint, by name or number. */
  evaluate(input: unknown, entrypoint: string | number = 0): { result: unknown }[] {
    return JSON.parse(this.evaluateText(input === undefined ? undefined : JSON.stringify(input), entrypoint)) as { result: unknown }[];
  }

  /**
   * One entrypoint on input given as JSON text (undefined: no input); returns the
   * result set as the module's JSON text, `[{"result": …}]` or `[]`.
   */
  evaluateText(inputText: string | undefined, entrypoint: string | number = 0, opts: WasmEvalOptions = {}): string {
    const ep = typeof entrypoint === 'number' ? entrypoint : this.entrypoints[entrypoint];
    if (ep === undefined) throw new Error(`entrypoint ${String(entrypoint)} is not valid in this instance`);
    let inputAddr = 0;
    let inputLen = 0;
    if (inputText !== undefined) {
      // encode straight into linear memory just after the data (grown when needed)
      inputAddr = this.dataHeap;
      const need = inputAddr + inputText.length * 3 - this.mem.buffer.byteLength;
      if (need > 0) this.mem.grow(Math.ceil(need / 65536));
      inputLen = ENCODER.encodeInto(inputText, this.bytes().subarray(inputAddr)).written;
    }
    this.evalOpts = opts;
    this.ctx = undefined;
    try {
      // opa_eval's reserved first argument: 1 turns the module's deadline checks on
      const ret = this.x.opa_eval!(opts.deadline !== undefined ? 1 : 0, ep, this.data, inputAddr, inputLen, this.dataHeap + inputLen, 0);
      this.heapHighWater = Math.max(this.heapHighWater, this.x.opa_heap_ptr_get!());
      return this.rawText(ret);
    } finally {
      this.ctx = undefined;
    }
  }
}
