// The Wasm back end's linker: reads the prebuilt AssemblyScript runtime
// (runtime/wasm/build/runtime.wasm) into binaryen, adds the policy's functions
// (rule groups and document nodes, emitted lazily: only what the entrypoints reach),
// its constants (built once by the start function, below the heap the host resets),
// and the `regent.*` functions the runtime imports (init, eval_entry, builtins,
// entrypoints), then hides the runtime's internal `rt_*` exports. The result exports
// OPA's Wasm ABI 1.3.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import binaryen from 'binaryen';
import type { PolicyIR, WithMod } from '../../ir/ir.js';
import type { Value } from '../../../runtime/value/value.js';
import { RObject, RSet, keyOf } from '../../../runtime/value/collections.js';
import { BigNum, formatNumber } from '../../../runtime/value/number.js';
import { FnGen } from './exprs.js';
import { WasmUnsupportedError } from './errors.js';
import { emitGroup, emitNode, emitNodeKey } from './rules.js';

const I32 = binaryen.i32;
type X = binaryen.ExpressionRef;

let runtimeBytes: Uint8Array | undefined;

/** A function a `with` can put in place of another: a builtin, or a user function (group). */
export interface MockTarget {
  name: string;
  group?: number;
}

/** Every `with f as …` function replacement in the IR (statements nest in blocks and comprehensions). */
function collectMocks(ir: PolicyIR, add: (name: string, target?: MockTarget) => void): void {
  const seen = new Set<object>();
  const walk = (x: unknown): void => {
    if (x === null || typeof x !== 'object' || seen.has(x)) return;
    seen.add(x);
    if (Array.isArray(x)) {
      for (const y of x) walk(y);
      return;
    }
    const o = x as Record<string, unknown>;
    if (o.k === 'with') {
      for (const mod of o.mods as WithMod[]) {
        if (mod.k !== 'function') continue;
        const v = mod.value as { k: string; name?: string; group?: number };
        add(mod.name, v.k === 'fnref' ? { name: v.name!, ...(v.group !== undefined ? { group: v.group } : {}) } : undefined);
      }
    }
    for (const [k, y] of Object.entries(o)) if (k !== 'src' && k !== 'loc' && k !== 'value') walk(y);
    if (o.k !== 'const' && o.value !== undefined) walk(o.value);
  };
  for (const g of ir.groups) walk(g.defs);
}

/** The runtime export of a native builtin: `object.get` → `rtb_object_get`. */
export function nativeName(builtin: string): string {
  return 'rtb_' + builtin.replace(/\./g, '_');
}

/** The runtime binary, built by `npm run build:wasm` (part of `prepare`). */
export function runtimeWasm(): Uint8Array {
  if (runtimeBytes) return runtimeBytes;
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ['../../..', '../../../..']) {
    const p = join(here, up, 'runtime/wasm/build/runtime.wasm');
    if (existsSync(p)) return (runtimeBytes = readFileSync(p));
  }
  throw new Error('regent: runtime/wasm/build/runtime.wasm is missing: run `npm run build:wasm`');
}

export interface WasmCompileOptions {
  /** binaryen optimization level (0 = none; -O1..-O3 as `opa build -O`). */
  optimize?: number;
}

export class Linker {
  readonly m: binaryen.Module;
  private readonly rtNames = new Map<string, string>();
  private readonly consts: Value[] = [];
  private readonly constIndex = new Map<string, number>();
  private readonly builtins = new Map<string, number>();
  private readonly pending: (() => void)[] = [];
  private readonly fns = new Map<string, string>();

  /** Functions replaced by `with f as …` somewhere in the policy: globals and possible replacements. */
  readonly mocks = new Map<string, { kind: string; val: string; targets: MockTarget[] }>();

  constructor(readonly ir: PolicyIR) {
    collectMocks(ir, (name, target) => {
      let e = this.mocks.get(name);
      if (!e) {
        const i = this.mocks.size;
        e = { kind: `mock_kind${i}`, val: `mock_val${i}`, targets: [] };
        this.mocks.set(name, e);
      }
      if (target && !e.targets.some((t) => t.name === target.name)) e.targets.push(target);
    });
    this.m = binaryen.readBinary(runtimeWasm());
    for (const e of this.mocks.values()) {
      this.m.addGlobal(e.kind, I32, true, this.m.i32.const(0));
      this.m.addGlobal(e.val, I32, true, this.m.i32.const(0));
    }
    this.m.setFeatures(binaryen.Features.MVP | binaryen.Features.BulkMemory | binaryen.Features.BulkMemoryOpt | binaryen.Features.SignExt | binaryen.Features.MutableGlobals | binaryen.Features.NontrappingFPToInt);
    for (let i = 0; i < this.m.getNumExports(); i++) {
      const info = binaryen.getExportInfo(this.m.getExportByIndex(i));
      if (info.kind === binaryen.ExternalFunction) this.rtNames.set(info.name, info.value);
      if (info.kind === binaryen.ExternalGlobal && info.name === 'rt_steps') this.steps = info.value;
    }
    if (this.steps === '') throw new Error('wasm runtime: no export rt_steps');
  }

  /** The runtime's global counting loop steps down to the next deadline check (assembly/limits.ts). */
  readonly steps: string = '';

  /** Whether the runtime implements builtin `name` natively (export `rtb_<name>`). */
  hasNative(name: string): boolean {
    return this.rtNames.has(nativeName(name));
  }

  rt(name: string): string {
    const n = this.rtNames.get(name);
    if (n === undefined) throw new Error(`wasm runtime: no export ${name}`);
    return n;
  }

  /** The global holding constant `v` (built once at start). */
  constant(v: Value): string {
    const key = keyOf(v);
    let i = this.constIndex.get(key);
    if (i === undefined) {
      i = this.consts.length;
      this.consts.push(v);
      this.constIndex.set(key, i);
      this.m.addGlobal(`const${i}`, I32, true, this.m.i32.const(0));
    }
    return `const${i}`;
  }

  /**
   * The global holding a rule index table (index-dispatch.ts): an object mapping each
   * key to its position, built at start after the constants from the keys' own
   * constant globals (no second copy of their text in the start function).
   */
  indexTable(keys: Value[]): string {
    const name = `ixtable${this.tables.length}`;
    this.tables.push({ name, keys: keys.map((k) => this.constant(k)) });
    this.m.addGlobal(name, I32, true, this.m.i32.const(0));
    return name;
  }

  private readonly tables: { name: string; keys: string[] }[] = [];

  builtinId(name: string, _arity: number): number {
    let id = this.builtins.get(name);
    if (id === undefined) this.builtins.set(name, (id = this.builtins.size));
    return id;
  }

  private lazy(name: string, emit: () => void): string {
    if (!this.fns.has(name)) {
      this.fns.set(name, name);
      this.pending.push(emit);
    }
    return name;
  }

  groupFn(id: number): string {
    const name = `rule${id}`;
    return this.lazy(name, () => emitGroup(this, this.ir.groups[id]!, name));
  }

  nodeFn(id: number): string {
    const name = `doc${id}`;
    return this.lazy(name, () => emitNode(this, id, name));
  }

  /** `with data.<path> as …` is compiled only where no rule lives at, above or below the path. */
  checkDataOverride(path: string[]): void {
    let node = this.ir.nodes[0]!;
    for (const seg of path) {
      if (node.groups.length > 0) break;
      const child = node.children.get(seg);
      if (child === undefined) return;
      node = this.ir.nodes[child]!;
    }
    throw new WasmUnsupportedError(`with data.${path.join('.')} over rules`);
  }

  nodeKeyFn(id: number): string {
    const name = `dockey${id}`;
    return this.lazy(name, () => emitNodeKey(this, id, name));
  }

  copyFn(): string {
    return this.rt('rt_obj_merge');
  }

  /** The function evaluating entrypoint `path` (['rbac', 'allow']) like a Data API decision. */
  private entryFn(index: number, path: string[]): string {
    const m = this.m;
    const f = new FnGen(this, 0, 0);
    let node = this.ir.nodes[0]!;
    let used = 0;
    while (used < path.length && node.children.has(path[used]!)) node = this.ir.nodes[node.children.get(path[used++]!)!]!;
    const groups = node.groups.filter((g) => this.ir.groups[g]!.kind !== 'function');
    let rest = path.slice(used);
    let top: X;
    if (rest.length > 0 && groups.length === 0) {
      top = f.rt('rt_data', []);
      rest = path;
    } else if (node.children.size === 0 && groups.length === 1 && this.ir.groups[groups[0]!]!.kind !== 'object') {
      top = m.call(this.groupFn(groups[0]!), [], I32);
    } else top = m.call(this.nodeFn(node.id), [], I32);
    for (const key of rest) top = f.rt('rt_dot', [top, m.global.get(this.constant(key), I32)]);
    const name = `entry${index}`;
    m.addFunction(name, binaryen.none, I32, f.varTypes(), top);
    return name;
  }

  /** Per function building constants: the local its strings are written through. */
  private readonly stringTemps = new WeakMap<FnGen, number>();

  /** A constant's value built at start. */
  private build(f: FnGen, v: Value): X {
    const m = this.m;
    if (v === null) return f.rt('rt_null', []);
    if (typeof v === 'boolean') return f.rt('rt_bool', [m.i32.const(v ? 1 : 0)]);
    if (typeof v === 'number' && Number.isSafeInteger(v)) return f.rt('rt_num', [m.f64.const(v)]);
    if (typeof v === 'string' || typeof v === 'number' || v instanceof BigNum) {
      // strings, and numbers with their exact text (decimals, big numbers)
      const text = typeof v === 'string' ? v : formatNumber(v);
      const bytes = new TextEncoder().encode(text);
      // one local for every string a function builds (each is used only inside its own
      // block): a local per string made binaryen's local passes quadratic in big tables
      let p = this.stringTemps.get(f);
      if (p === undefined) this.stringTemps.set(f, (p = f.temp()));
      const out: X[] = [m.local.set(p, f.rt('opa_malloc', [m.i32.const(bytes.length)]))];
      for (let i = 0; i < bytes.length; i++) out.push(m.i32.store8(i, 1, m.local.get(p, I32), m.i32.const(bytes[i]!)));
      const ptr = m.local.get(p, I32);
      const len = m.i32.const(bytes.length);
      out.push(typeof v === 'string' ? f.rt('rt_str', [ptr, len]) : f.rt('rt_num_raw', [ptr, len]));
      return m.block(null, out, I32);
    }
    const t = f.temp();
    const out: X[] = [];
    if (Array.isArray(v)) {
      out.push(m.local.set(t, f.rt('rt_arr', [])));
      for (const x of v) out.push(m.drop(f.rt('rt_arr_push', [m.local.get(t, I32), this.build(f, x)])));
    } else if (v instanceof RObject) {
      out.push(m.local.set(t, f.rt('rt_obj', [])));
      for (const [k, x] of v.entries()) out.push(m.drop(f.rt('rt_obj_put', [m.local.get(t, I32), this.build(f, k), this.build(f, x)])));
    } else if (v instanceof RSet) {
      out.push(m.local.set(t, f.rt('rt_set', [])));
      for (const x of v.values()) out.push(m.drop(f.rt('rt_set_add', [m.local.get(t, I32), this.build(f, x)])));
    } else throw new WasmUnsupportedError(`constant ${String(v)}`);
    out.push(m.local.get(t, I32));
    return m.block(null, out, I32);
  }

  /** Replace the runtime's import `regent.<base>` by a function with `body`. */
  private provide(base: string, params: binaryen.Type, result: binaryen.Type, vars: number[], body: X): void {
    for (let i = 0; i < this.m.getNumFunctions(); i++) {
      const info = binaryen.getFunctionInfo(this.m.getFunctionByIndex(i));
      if (info.module === 'regent' && info.base === base) {
        this.m.removeFunction(info.name);
        this.m.addFunction(info.name, params, result, vars, body);
        return;
      }
    }
    throw new Error(`wasm runtime: no import regent.${base}`);
  }

  link(entrypoints: string[][], opts: WasmCompileOptions = {}): Uint8Array {
    const m = this.m;
    const entries = entrypoints.map((p, i) => this.entryFn(i, p));
    while (this.pending.length > 0) this.pending.shift()!();
    const epObj = new RObject();
    entrypoints.forEach((p, i) => epObj.set(p.join('/'), i));
    const biObj = new RObject();
    for (const [name, id] of this.builtins) biObj.set(name, id);
    const epConst = this.constant(epObj);
    const biConst = this.constant(biObj);
    // eval_entry(ep): dispatch on the entrypoint number
    const dispatch: X[] = entries.map((name, i) => m.if(m.i32.eq(m.local.get(0, I32), m.i32.const(i)), m.return(m.call(name, [], I32))));
    // an evaluation starts with no function replaced (an aborted one may have left one in force)
    const resetMocks = [...this.mocks.values()].map((e) => m.global.set(e.kind, m.i32.const(0)));
    this.provide('eval_entry', binaryen.createType([I32]), I32, [], m.block(null, [...resetMocks, ...dispatch, m.i32.const(0)], I32));
    this.provide('builtins', binaryen.none, I32, [], m.global.get(biConst, I32));
    this.provide('entrypoints', binaryen.none, I32, [], m.global.get(epConst, I32));
    const init = new FnGen(this, 0, 0);
    const sets = this.consts.map((v, i) => m.global.set(`const${i}`, this.build(init, v)));
    for (const t of this.tables) {
      sets.push(m.global.set(t.name, init.rt('rt_obj', [])));
      t.keys.forEach((k, j) => sets.push(m.drop(init.rt('rt_obj_put', [m.global.get(t.name, I32), m.global.get(k, I32), init.rt('rt_num', [m.f64.const(j)])]))));
    }
    this.provide('init', binaryen.none, binaryen.none, init.varTypes(), m.block(null, sets));
    for (const name of [...this.rtNames.keys()]) if (name.startsWith('rt_') || name.startsWith('rtb_')) m.removeExport(name);
    m.removeExport('rt_steps');
    if (!m.validate()) throw new Error('wasm: generated module does not validate');
    const level = opts.optimize ?? 1;
    if (level > 0) {
      binaryen.setOptimizeLevel(Math.min(level, 3));
      binaryen.setShrinkLevel(0);
      m.optimize();
    }
    const bytes = m.emitBinary();
    m.dispose();
    return bytes;
  }
}

/** Compile a planned policy to a Wasm module following OPA's ABI; entrypoints as `pkg/rule` or path arrays. */
export function linkPolicy(ir: PolicyIR, entrypoints: (string | string[])[], opts: WasmCompileOptions = {}): Uint8Array {
  if (entrypoints.length === 0) throw new WasmUnsupportedError('a module without entrypoints');
  const paths = entrypoints.map((e) => (typeof e === 'string' ? e.replace(/^data[./]/, '').split(/[./]/).filter((s) => s !== '') : e));
  const L = new Linker(ir);
  try {
    return L.link(paths, opts);
  } catch (e) {
    try { L.m.dispose(); } catch { /* already disposed */ }
    throw e;
  }
}
