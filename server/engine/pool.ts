// The worker-thread evaluator: a fixed number of worker_threads, each with a
// replica of the engine state (compiled modules + base document). State changes are
// broadcast on a BroadcastChannel and acknowledged by every live worker before
// `publish` resolves; each task also names the generation it needs, and a worker
// that is behind waits for it, so no evaluation ever sees older state than the
// write that preceded it. Large documents are prepared first (every worker builds
// the value from shared bytes in slices, still serving) and committed by a write
// that names them, so they become visible everywhere at once.
//
// Evaluation runs on the threads of pool-threads.ts (piscina's threads, each
// serving batches on its own port, up to two batches in flight per worker, the watchdog,
// replacement of a worker that dies). Acknowledgements, prepares and compiles count
// the serving threads (a thread listens to broadcasts once it serves); each first
// waits, bounded, for the threads still starting to serve.
// A candidate policy is compiled by one worker at a time (compilePolicy) in steps,
// answering tasks in between; the pool sends no task to a compiling worker while
// another one can take it (with one worker, tasks reach it between the steps).
import { BroadcastChannel } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
import { currentRuntimeInfo, toJSONText } from '../../runtime/index.js';
import type { SourceFile } from '../../compiler/index.js';
import type { Evaluator } from './evaluator.js';
import { BadRequestError } from './errors.js';
import { WorkerThreads } from './pool-threads.js';
import type { CompileReport, DownMessage, EvalOutcome, EvalTask, SharedDocument, StateSnapshot, StateUpdate, UpMessage } from './protocol.js';

export interface PoolOptions {
  threads: number;
  v0Compatible: boolean;
  /** Per-task evaluation limit (ms); 0: none. */
  timeoutMs: number;
  /** Extra time after a task's deadline before its worker is considered stuck (ms). */
  graceMs?: number;
  /** Old-generation heap limit of each worker (MB). */
  heapMb: number;
  /** Evaluation collection cap (0: none). */
  maxCollectionSize: number;
  /** The current state, for workers that (re)start. */
  snapshot(): Omit<StateSnapshot, 'type' | 'target'>;
}

const ACK_TIMEOUT_MS = 30_000;
const PREPARE_TIMEOUT_MS = 120_000;
const COMPILE_TIMEOUT_MS = 120_000;
/** How long a write, prepare or compile waits for starting threads to serve before going ahead without them. */
const SERVING_TIMEOUT_MS = 30_000;

interface Preparing {
  pending: Set<number>;
  keys?: string[];
  resolve(keys: string[] | undefined): void;
  reject(e: unknown): void;
}

export class PoolEvaluator implements Evaluator {
  private readonly threads: WorkerThreads;
  private readonly down: BroadcastChannel;
  private readonly up: BroadcastChannel;
  private readonly acked = new Map<number, number>();
  private readonly waiters = new Set<() => void>();
  private readonly preparing = new Map<number, Preparing>();
  private closed = false;
  /** Workers compiling a candidate policy, by thread id: the id of the candidate and its callback. */
  private readonly compiling = new Map<number, { id: number; done(report: CompileReport | undefined): void }>();
  private nextPolicyId = 1;

  constructor(private readonly opts: PoolOptions) {
    const id = randomUUID();
    const config = {
      downChannel: `regent-down-${id}`,
      upChannel: `regent-up-${id}`,
      v0Compatible: opts.v0Compatible,
      maxCollectionSize: opts.maxCollectionSize,
      heapMb: opts.heapMb,
      runtimeText: toJSONText(currentRuntimeInfo()),
    };
    this.down = new BroadcastChannel(config.downChannel);
    this.up = new BroadcastChannel(config.upChannel);
    this.up.onmessage = (ev) => this.onUp((ev as { data: UpMessage }).data);
    this.down.unref();
    this.up.unref();
    this.threads = new WorkerThreads(
      {
        threads: opts.threads,
        timeoutMs: opts.timeoutMs,
        graceMs: opts.graceMs ?? 250,
        heapMb: opts.heapMb,
        isCompiling: (thread) => this.compiling.has(thread),
        onExit: () => this.wake(),
      },
      config,
    );
  }

  /** Thread ids of the live workers (serving or about to). */
  threadIds(): number[] {
    return this.threads.threadIds();
  }

  /** Thread ids of the workers that serve (listen to broadcasts). */
  private servingIds(): number[] {
    return this.threads.servingIds();
  }

  /**
   * Compile a candidate module set on every worker, one at a time (the others keep
   * answering), before the update that installs it names it by the returned id.
   * The first worker's report says whether it compiles; when it does not, the
   * others are not asked. Undefined when no worker could compile it (none alive).
   */
  async compilePolicy(modules: SourceFile[], parseFirst: string | undefined, instrument: boolean): Promise<{ id: number; report: CompileReport } | undefined> {
    const id = this.nextPolicyId++;
    let first: CompileReport | undefined;
    await this.threads.whenServing(SERVING_TIMEOUT_MS);
    // Only workers that have a state (acknowledged one) listen; the others compile from their snapshot.
    for (const thread of this.servingIds().filter((t) => this.acked.has(t))) {
      const report = await this.compileOn(thread, id, modules, first === undefined ? parseFirst : undefined, first === undefined && instrument);
      if (report === undefined || first !== undefined) continue; // a worker that stopped compiles from its snapshot
      first = report;
      if (report.failed || report.crash !== undefined) break;
    }
    return first && { id, report: first };
  }

  /** Drop a compiled candidate no update will name. */
  discardPolicy(id: number): void {
    this.down.postMessage({ type: 'discardPolicy', id } satisfies DownMessage);
  }

  private compileOn(thread: number, id: number, modules: SourceFile[], parseFirst: string | undefined, instrument: boolean): Promise<CompileReport | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), COMPILE_TIMEOUT_MS);
      const done = (report: CompileReport | undefined): void => {
        clearTimeout(timer);
        if (this.compiling.get(thread)?.id === id) this.compiling.delete(thread);
        resolve(report);
      };
      this.compiling.set(thread, { id, done });
      this.down.postMessage({ type: 'compile', id, target: thread, modules, instrument, ...(parseFirst === undefined ? {} : { parseFirst }) } satisfies DownMessage);
    });
  }

  evaluate(task: EvalTask): Promise<EvalOutcome> {
    return this.threads.evaluate(task);
  }

  /**
   * Have every worker build a shared document (in slices, still serving). Resolves
   * with the top-level keys of an object document (when few), once all have it;
   * rejects with BadRequestError when the document is not valid JSON.
   */
  async prepare(doc: SharedDocument, maxDepth: number): Promise<string[] | undefined> {
    // A thread still starting would miss the broadcast and build the document from its snapshot, in one go.
    await this.threads.whenServing(SERVING_TIMEOUT_MS);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(() => resolve(entry.keys)), PREPARE_TIMEOUT_MS);
      const finish = (fn: () => void): void => {
        clearTimeout(timer);
        this.preparing.delete(doc.id);
        fn();
      };
      const entry: Preparing = {
        pending: new Set(this.servingIds()),
        resolve: (keys) => finish(() => resolve(keys)),
        reject: (e) => finish(() => reject(e)),
      };
      this.preparing.set(doc.id, entry);
      this.down.postMessage({ type: 'prepare', doc, maxDepth } satisfies DownMessage);
      if (entry.pending.size === 0) entry.resolve(undefined); // no live worker: new ones build it when the write names it
    });
  }

  /** Drop a prepared document no write will name. */
  discard(id: number): void {
    this.down.postMessage({ type: 'discard', id } satisfies DownMessage);
  }

  private checkPrepared(): void {
    const alive = new Set(this.servingIds());
    for (const entry of [...this.preparing.values()]) {
      // A worker that dies while building (most likely out of heap) would die again
      // building it at the commit, and again from each snapshot: refuse the write.
      if ([...entry.pending].some((t) => !alive.has(t))) {
        entry.reject(new Error(`an evaluation worker stopped while building the document (worker heap limit ${this.opts.heapMb} MB, --worker-heap-mb)`));
      } else if (entry.pending.size === 0) entry.resolve(entry.keys);
    }
  }

  async publish(update: StateUpdate): Promise<void> {
    // As with a worker that is up, a write returns once a starting one has the state.
    await this.threads.whenServing(SERVING_TIMEOUT_MS);
    this.down.postMessage(update);
    await this.waitForAcks(update.generation);
  }

  private onUp(msg: UpMessage): void {
    if (msg.type === 'compiled') {
      const entry = this.compiling.get(msg.threadId);
      if (entry?.id === msg.id) entry.done(msg.report);
      return;
    }
    if (msg.type === 'prepared') {
      const entry = this.preparing.get(msg.id);
      if (!entry) return;
      if (msg.error) return entry.reject(msg.error.kind === 'memory' ? new Error(msg.error.message) : new BadRequestError(msg.error.message));
      entry.keys ??= msg.keys;
      entry.pending.delete(msg.threadId);
      this.checkPrepared();
      return;
    }
    if (msg.type === 'hello') {
      const snap: StateSnapshot = { type: 'snapshot', target: msg.threadId, ...this.opts.snapshot() };
      this.down.postMessage(snap satisfies DownMessage);
      return;
    }
    this.acked.set(msg.threadId, Math.max(msg.generation, this.acked.get(msg.threadId) ?? -1));
    this.wake();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
    const alive = new Set(this.servingIds());
    for (const [thread, entry] of [...this.compiling]) if (!alive.has(thread)) entry.done(undefined);
    this.checkPrepared();
  }

  private allAcked(generation: number): boolean {
    return this.servingIds().every((t) => (this.acked.get(t) ?? -1) >= generation);
  }

  private waitForAcks(generation: number): Promise<void> {
    if (this.closed || this.allAcked(generation)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const check = (): void => {
        if (this.closed || this.allAcked(generation)) done();
      };
      // A worker that dies mid-update is replaced and resyncs from a snapshot; tasks
      // carry their generation anyway, so the timeout only bounds the write latency.
      const timer = setTimeout(done, ACK_TIMEOUT_MS);
      this.waiters.add(check);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake();
    await this.threads.close();
    this.down.close();
    this.up.close();
  }
}
