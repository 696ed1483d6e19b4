// The engine: the store, the policy modules and their compiled form, and the
// evaluator (in-process or the worker pool). Every state change goes through here:
// it validates (parse, compile, path conflicts) before committing — a failure
// leaves the old state active — then publishes the change to every evaluator and
// returns only when all of them have it. Large documents are parsed off the request
// path first (prepareDocument, shareValues; see shared-docs.ts). The evaluation
// limits (deadline, collection cap, worker heap) are set here from EngineOptions.
import { RegoError, RegoErrors, parseModule, type CompiledPolicy, type ResultRow } from '../../compiler/index.js';
import { DEFAULT_MAX_COLLECTION_SIZE, MemoryStore, RObject, StorageError, pathsOverlap, setEvalLimits, toJSONText, writeDocument, type Transaction, type Value, type WriteOp } from '../../runtime/index.js';
import { BadRequestError, PolicyCompileError } from './errors.js';
import { EvalCore, compileModules } from './evaluate.js';
import { InProcessEvaluator, type Evaluator } from './evaluator.js';
import { PoolEvaluator } from './pool.js';
import { checkPathConflicts, hasRulesFor, isEmptyModule, lazyRecord, recordPackage, rulePaths, toSourceFiles, type PolicyRecord, type RulePath } from './policies.js';
import { candidateFromReport, compileHere, type PolicyCandidate } from './policy-compile.js';
import type { EvalOutcome, EvalTask, StateUpdate, WireWriteOp } from './protocol.js';
import type { EngineBackend, WasmBuildReport, WasmModuleSpec } from './wasm-modules.js';
import { WasmCompiler } from './wasm-compiler.js';
import { LARGE_DOCUMENT_BYTES, buildLocal, collectSoon, placeholder, registerDocument, registerPatchValues, shareBytes, sharedSource, snapshotData } from './shared-docs.js';

/** Default per-evaluation deadline (ms): `--eval-timeout`. */
export const DEFAULT_EVAL_TIMEOUT_MS = 10_000;
/** Default old-generation heap limit of each evaluation worker (MB): `--worker-heap-mb`. */
export const DEFAULT_WORKER_HEAP_MB = 2048;

/** A large document parsed ahead of its write (see Engine.prepareDocument). */
export interface PreparedDocument {
  /** The value to write (on the main thread, a placeholder when workers evaluate). */
  value: Value;
  /** Call when the write is done or abandoned. */
  release(): void;
}

export interface EngineOptions {
  /** Parse policies as Rego v0 (`--v0-compatible`). */
  v0Compatible?: boolean;
  /** Worker threads for evaluation; 0 evaluates in-process. */
  workers?: number;
  /** Per-request evaluation time limit in ms (0: none; default DEFAULT_EVAL_TIMEOUT_MS). */
  evalTimeoutMs?: number;
  /** Extra time past the limit before a worker is considered stuck and replaced (ms, default 250). */
  evalGraceMs?: number;
  /** Most members of one collection built during an evaluation (0: none; default 10,000,000). */
  maxCollectionSize?: number;
  /** Old-generation heap limit of each worker in MB (default DEFAULT_WORKER_HEAP_MB). */
  workerHeapMb?: number;
  /** `wasm`: Data API decisions on a Wasm module compiled from the policies (`--backend`; server/README.md). */
  backend?: EngineBackend;
}

/** timer_rego_module_parse_ns, timer_rego_module_compile_ns and, when instrumented, timer_compile_stage_*_ns. */
export type PolicyTimers = Record<string, number>;

function nowNs(): bigint {
  return process.hrtime.bigint();
}

type PoolOptionsSnapshot = ConstructorParameters<typeof PoolEvaluator>[0]['snapshot'];

/** A store write as sent to the workers: a large document by reference, other values as JSON text. */
function wireOp(o: WriteOp): WireWriteOp {
  if (o.value === undefined) return { op: o.op, path: o.path };
  const src = sharedSource(o.value);
  return src ? { op: o.op, path: o.path, ...src } : { op: o.op, path: o.path, valueText: toJSONText(o.value) };
}

export class Engine {
  readonly store = new MemoryStore();
  readonly v0Compatible: boolean;
  readonly evalTimeoutMs: number;
  private readonly records = new Map<string, PolicyRecord>();
  private readonly core: EvalCore;
  private readonly evaluator: Evaluator;
  private rules: RulePath[] = [];
  private generationValue = 0;
  private pendingOps: WriteOp[] = [];
  /** The workers' compiled copy of the policy being installed (see compileCandidate). */
  private pendingPolicyId: number | undefined;
  private policyWrites: Promise<unknown> = Promise.resolve();

  constructor(opts: EngineOptions = {}) {
    this.v0Compatible = opts.v0Compatible ?? false;
    this.evalTimeoutMs = opts.evalTimeoutMs ?? DEFAULT_EVAL_TIMEOUT_MS;
    const maxCollectionSize = opts.maxCollectionSize ?? DEFAULT_MAX_COLLECTION_SIZE;
    setEvalLimits({ maxCollectionSize });
    this.core = new EvalCore(this.v0Compatible);
    this.store.onCommit((event) => {
      this.core.committed(this.store.root, event.ops);
      this.pendingOps.push(...event.ops);
    });
    const workers = opts.workers ?? 0;
    this.evaluator =
      workers > 0
        ? new PoolEvaluator({
            threads: workers,
            v0Compatible: this.v0Compatible,
            timeoutMs: this.evalTimeoutMs,
            graceMs: opts.evalGraceMs ?? 250,
            heapMb: opts.workerHeapMb ?? DEFAULT_WORKER_HEAP_MB,
            maxCollectionSize,
            snapshot: () => this.snapshot(),
          })
        : new InProcessEvaluator(this.core);
    if (opts.backend === 'wasm') this.wasmCompiler = new WasmCompiler();
  }

  /** Number of committed state changes. */
  get generation(): number {
    return this.generationValue;
  }

  get policy(): CompiledPolicy {
    return this.core.policy;
  }

  policies(): PolicyRecord[] {
    return [...this.records.values()];
  }

  getPolicy(id: string): PolicyRecord | undefined {
    return this.records.get(id);
  }

  /** Parse one module (v1 syntax unless the server or the record says v0). */
  parse(id: string, text: string, v0Compatible = this.v0Compatible): PolicyRecord {
    if (isEmptyModule(text)) throw new BadRequestError('empty module');
    try {
      return { id, raw: text, module: parseModule(text, id, { v0Compatible }) };
    } catch (e) {
      if (e instanceof RegoErrors) throw new PolicyCompileError(e.errors);
      if (e instanceof RegoError) throw new PolicyCompileError([e]);
      throw e;
    }
  }

  /** Compile a candidate module set; throws PolicyCompileError. */
  compile(records: Iterable<PolicyRecord>, operation: 'put' | 'delete' = 'put', stageTimers?: Record<string, number>): CompiledPolicy {
    try {
      return compileModules(toSourceFiles(records), this.v0Compatible, stageTimers);
    } catch (e) {
      if (e instanceof RegoErrors) throw new PolicyCompileError(e.errors, operation);
      if (e instanceof RegoError) throw new PolicyCompileError([e], operation);
      throw e;
    }
  }

  /**
   * Compile a candidate module set without holding the main thread: with workers,
   * each compiles it in turn before the commit (policy-compile.ts) and the main
   * thread keeps it as a lazy policy; in-process, it is compiled here. `parseFirst`:
   * a new module whose syntax errors come first, then `afterParse` sees its package.
   * Throws PolicyCompileError as the main-thread compile did.
   */
  async compileCandidate(
    records: Iterable<PolicyRecord>,
    operation: 'put' | 'delete',
    opts: { parseFirst?: string; afterParse?: (pkg: string[]) => void; instrument?: boolean } = {},
  ): Promise<PolicyCandidate> {
    const files = toSourceFiles(records);
    const instrument = opts.instrument === true;
    if (this.evaluator instanceof PoolEvaluator) {
      const out = await this.evaluator.compilePolicy(files, opts.parseFirst, instrument);
      if (out) {
        try {
          return candidateFromReport(out.report, operation, opts.parseFirst, opts.afterParse, () => compileModules(files, this.v0Compatible), out.id);
        } catch (e) {
          this.evaluator.discardPolicy(out.id);
          throw e;
        }
      }
    }
    return compileHere(files, this.v0Compatible, operation, opts.parseFirst, opts.afterParse, instrument);
  }

  /**
   * Run policy changes (PUT/DELETE of a module, bundle activation) one at a time:
   * each compiles against the module set it read, off the main thread.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.policyWrites.then(fn);
    this.policyWrites = run.catch(() => undefined);
    return run;
  }

  /** Create or replace a module (PUT /v1/policies/<id>). */
  /** `instrument`: also time each module-compile stage (`timer_compile_stage_*_ns`). */
  putPolicy(id: string, text: string, instrument = false): Promise<PolicyTimers> {
    return this.exclusive(async () => {
      const existing = this.records.get(id);
      if (existing) this.store.checkPathScope(recordPackage(existing));
      if (existing && existing.raw === text) return {};
      if (isEmptyModule(text)) throw new BadRequestError('empty module');
      const next = new Map(this.records).set(id, { id, raw: text, module: undefined as never });
      const candidate = await this.compileCandidate(next.values(), 'put', {
        parseFirst: id,
        afterParse: (pkg) => this.store.checkPathScope(pkg),
        instrument,
      });
      checkPathConflicts(candidate.rules, this.store.root);
      const pkg = candidate.packages[id] ?? [];
      next.set(id, candidate.policy instanceof Function ? lazyRecord(id, text, pkg, this.v0Compatible) : { id, raw: text, pkg, module: candidate.policy.modules.find((m) => m.file === id)! });
      await this.installPolicies(next, candidate);
      return candidate.timers;
    });
  }

  /** Delete a module (DELETE /v1/policies/<id>). */
  deletePolicy(id: string, instrument = false): Promise<PolicyTimers> {
    return this.exclusive(async () => {
      const existing = this.records.get(id);
      if (!existing) throw new StorageError('storage_not_found_error', `policy id "${id}"`);
      this.store.checkPathScope(recordPackage(existing));
      const next = new Map(this.records);
      next.delete(id);
      const candidate = await this.compileCandidate(next.values(), 'delete', { instrument });
      await this.installPolicies(next, candidate);
      return candidate.timers;
    });
  }

  /** Replace the whole module set with an already-compiled policy (or a candidate), and publish. */
  async installPolicies(records: Map<string, PolicyRecord>, compiled: CompiledPolicy | PolicyCandidate, txn?: Transaction): Promise<void> {
    const candidate: PolicyCandidate = 'packages' in compiled ? compiled : { policy: compiled, rules: rulePaths(compiled), packages: {}, timers: {} };
    this.pendingOps = [];
    txn?.commit();
    this.records.clear();
    for (const [k, v] of records) this.records.set(k, v);
    this.core.setPolicy(candidate.policy);
    this.engineWasm = undefined; // the new policy's module comes later (rebuildWasm)
    this.wasmBuildId++; // a build still running is for the old policy: drop its module
    if (this.evaluator instanceof InProcessEvaluator) this.core.setWasmModules(this.wasmSpecs().wasm);
    this.rules = candidate.rules;
    this.pendingPolicyId = candidate.policyId;
    await this.publish(true);
    this.rebuildWasm();
  }

  /**
   * Write base data: `fn` runs the writes in a transaction, then the rules'
   * path-conflict check runs on the result, then it commits and publishes.
   */
  async writeData(touched: string[][], fn: (txn: Transaction) => void): Promise<void> {
    const txn = this.store.begin();
    fn(txn);
    const data = txn.read([]);
    checkPathConflicts(this.rules, data instanceof RObject ? data : this.store.root, touched);
    this.pendingOps = [];
    txn.commit();
    await this.publish(false);
  }

  /**
   * Parse a large JSON document for a write without blocking: with workers, each
   * builds it from shared bytes in slices and the main thread keeps a placeholder;
   * in-process, it is built here in slices. BadRequestError (Go's wording) when the
   * bytes are not a JSON document. Release the result once the write is done.
   */
  async prepareDocument(body: Uint8Array, maxDepth: number, kind: 'document' | 'patch' = 'document'): Promise<PreparedDocument> {
    if (!(this.evaluator instanceof PoolEvaluator)) return { value: await buildLocal(body, maxDepth), release: collectSoon };
    const pool = this.evaluator;
    const doc = await shareBytes(body);
    let keys: string[] | undefined;
    let value: Value | undefined;
    try {
      // A patch is also built here (its operations are checked and applied on this
      // thread); its values then travel to the workers as references to the document.
      [keys, value] = await Promise.all([pool.prepare(doc, maxDepth), kind === 'patch' ? buildLocal(body, maxDepth) : undefined]);
    } catch (e) {
      pool.discard(doc.id);
      collectSoon();
      throw e;
    }
    if (value !== undefined) registerPatchValues(doc, value);
    return {
      value: value ?? placeholder(doc, maxDepth, keys),
      release: () => {
        pool.discard(doc.id);
        collectSoon();
      },
    };
  }

  /**
   * Have the workers build copies of large values about to be written (bundle data)
   * from JSON bytes, written here in slices, so that the write sends references
   * instead of text to parse. Small values (and in-process evaluation) are left as
   * they are. Release the result once the write is done.
   */
  async shareValues(values: Value[]): Promise<{ release(): void }> {
    const pool = this.evaluator;
    if (!(pool instanceof PoolEvaluator)) return { release: () => undefined };
    const ids: number[] = [];
    const release = (): void => {
      for (const id of ids) pool.discard(id);
      if (ids.length > 0) collectSoon();
    };
    try {
      for (const value of values) {
        if (value === null || typeof value !== 'object') continue;
        const bytes = await writeDocument(value);
        if (bytes.length < LARGE_DOCUMENT_BYTES) continue;
        const doc = await shareBytes(bytes);
        ids.push(doc.id);
        await pool.prepare(doc, Infinity);
        registerDocument(value, doc);
      }
    } catch (e) {
      release();
      throw e;
    }
    return { release };
  }

  private async publish(policiesChanged: boolean): Promise<void> {
    const inProcess = !(this.evaluator instanceof PoolEvaluator);
    const ops: WireWriteOp[] = inProcess ? [] : this.pendingOps.map((o) => wireOp(o));
    const wasmChanged = this.wasmChanged;
    this.wasmChanged = false;
    const changed = policiesChanged || this.pendingOps.length > 0 || wasmChanged;
    this.pendingOps = [];
    if (!changed) return;
    this.generationValue++;
    if (inProcess) return; // the engine's own core already has the change
    const policyId = this.pendingPolicyId;
    this.pendingPolicyId = undefined;
    const modules = policiesChanged ? { modules: toSourceFiles(this.records.values()), ...(policyId !== undefined && policyId >= 0 ? { policyId } : {}), ...this.wasmSpecs() } : {};
    const update: StateUpdate = { type: 'update', generation: this.generationValue, ops, ...modules, ...(wasmChanged && !policiesChanged ? this.wasmSpecs() : {}) };
    await this.evaluator.publish(update);
  }

  private snapshot(): ReturnType<PoolOptionsSnapshot> {
    const { dataText, docs } = snapshotData(this.store.root);
    return { generation: this.generationValue, modules: toSourceFiles(this.records.values()), ...this.wasmSpecs(), dataText, ...(docs.length > 0 ? { docs } : {}) };
  }

  /** The bundles' Wasm modules (by bundle name) that come with the next policy install. */
  private readonly bundleWasm = new Map<string, WasmModuleSpec>();
  /** `--backend wasm`: the compile thread, the module it built for the current policies, the last build. */
  private wasmCompiler: WasmCompiler | undefined;
  private engineWasm: WasmModuleSpec | undefined;
  private wasmChanged = false;
  private wasmBuildId = 0;
  private wasmBuild: Promise<WasmBuildReport | undefined> = Promise.resolve(undefined);

  /** Record bundle `name`'s /policy.wasm (undefined: it ships none), before its policies are installed. */
  setBundleWasm(name: string, spec: WasmModuleSpec | undefined): void {
    if (spec) this.bundleWasm.set(name, spec);
    else this.bundleWasm.delete(name);
  }

  private wasmSpecs(): { wasm: WasmModuleSpec[] } {
    return { wasm: [...this.bundleWasm.values(), ...(this.engineWasm ? [this.engineWasm] : [])] };
  }

  /**
   * `--backend wasm`: build the current policies' module on the compile thread, then
   * publish it (a state change of its own: evaluators answer on JS until they have it).
   */
  private rebuildWasm(): void {
    const compiler = this.wasmCompiler;
    if (!compiler) return;
    const records = this.records;
    const taken = [...this.bundleWasm.values()].flatMap((s) => s.entrypoints);
    const id = ++this.wasmBuildId;
    this.wasmBuild = compiler.build(toSourceFiles(records.values()), this.v0Compatible, taken).then(async (out) => {
      if ('superseded' in out || id !== this.wasmBuildId) return undefined; // a newer policy is being built
      this.engineWasm = out.specs[0];
      if (this.engineWasm === undefined) return out;
      if (this.evaluator instanceof InProcessEvaluator) this.core.setWasmModules(this.wasmSpecs().wasm);
      else {
        this.wasmChanged = true;
        await this.publish(false);
      }
      return out;
    });
  }

  /**
   * The last Wasm module build (`--backend wasm`), once it is in place in every
   * evaluator: refused entrypoints and errors; undefined when superseded or disabled.
   */
  wasmReady(): Promise<WasmBuildReport | undefined> {
    return this.wasmBuild;
  }

  /** Per Wasm module of the in-process evaluator: decisions served and fallbacks (tests). */
  wasmStats(): ReturnType<EvalCore['wasm']['stats']> {
    return this.core.wasm.stats();
  }

  /** Evaluate a task on the evaluator (worker pool or in-process). */
  evaluate(task: Omit<EvalTask, 'generation' | 'timeoutMs' | 'taskId'>, input?: Value): Promise<EvalOutcome> {
    return Promise.resolve(this.evaluateNow(task, input));
  }

  /**
   * Like evaluate, but in-process evaluation answers synchronously (no promise),
   * so a request handler can reply in the same tick.
   */
  evaluateNow(task: Omit<EvalTask, 'generation' | 'timeoutMs' | 'taskId'>, input?: Value): EvalOutcome | Promise<EvalOutcome> {
    // The caller's task object is completed in place: no copy on the hot path.
    const full = task as EvalTask;
    full.generation = this.generationValue;
    if (this.evalTimeoutMs > 0) full.timeoutMs = this.evalTimeoutMs;
    if (this.evaluator instanceof InProcessEvaluator) return this.core.run(full, input);
    if (input !== undefined) full.input = { kind: 'text', text: toJSONText(input) };
    return this.evaluator.evaluate(full, input);
  }

  /** Evaluate on the main thread and return rows (authz, health checks, system queries). */
  evalLocal(query: string, input?: Value): ResultRow[] {
    const deadline = this.evalTimeoutMs > 0 ? Date.now() + this.evalTimeoutMs : undefined;
    return this.core.evalRows(query, input, false, deadline);
  }

  /** True when rules define the path or one of its prefixes ("document undefined"). */
  hasRulesFor(path: string[]): boolean {
    return hasRulesFor(this.rules, path);
  }

  /** True when a rule is defined at, above or below the path (it may contribute to the document). */
  hasRulesOverlapping(path: string[]): boolean {
    return this.rules.some((r) => pathsOverlap(r.path, path));
  }

  /** Thread ids of the evaluation workers (empty when evaluating in-process). */
  workerThreadIds(): number[] {
    return this.evaluator instanceof PoolEvaluator ? this.evaluator.threadIds() : [];
  }

  close(): Promise<void> {
    void this.wasmCompiler?.close();
    return this.evaluator.close();
  }
}
