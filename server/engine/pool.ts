// The worker-thread evaluator: a piscina pool of fixed size. Each worker keeps a
// replica of the engine state (compiled modules + base document). State changes are
// broadcast on a BroadcastChannel and acknowledged by every live worker before
// `publish` resolves; each task also names the generation it needs, and a worker
// that is behind waits for it, so no evaluation ever sees older state than the
// write that preceded it. Large documents are prepared first (every worker builds
// the value from shared bytes in slices, still serving) and committed by a write
// that names them, so they become visible everywhere at once.
//
// Tasks queued in one turn of the event loop travel as batches (one per worker at
// most). Limits: each worker has a heap limit (resourceLimits); a watchdog reads
// a shared board where workers note when each task of a batch started, and aborts
// (terminates) a worker whose task runs past its deadline plus a grace period.
// When a worker dies (abort, out of memory), the task it was running gets the
// error and the other tasks of its batch are queued again, once.
// A candidate policy is compiled by one worker at a time (compilePolicy), and the
// load balancer sends no task to a compiling worker while another one can take it.
import { BroadcastChannel } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
import { Piscina } from 'piscina';
import { currentRuntimeInfo, toJSONText } from '../../runtime/index.js';
import type { SourceFile } from '../../compiler/index.js';
import type { Evaluator } from './evaluator.js';
import { BadRequestError } from './errors.js';
import type { CompileReport, DownMessage, EvalBatch, EvalOutcome, EvalTask, SharedDocument, StateSnapshot, StateUpdate, UpMessage, WireError, WorkerConfig } from './protocol.js';

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
/** Watchdog board slots (batches in flight that can be watched). */
const SLOTS = 1024;

interface QueuedTask {
  task: EvalTask;
  resolve(outcome: EvalOutcome): void;
  reject(e: unknown): void;
  retried?: boolean;
}

interface LiveBatch {
  part: QueuedTask[];
  abort: AbortController;
  slot: number;
  /** Index of the task the watchdog stopped. */
  stopped?: number;
}

interface Preparing {
  pending: Set<number>;
  keys?: string[];
  resolve(keys: string[] | undefined): void;
  reject(e: unknown): void;
}

function workerFile(): string {
  const compiled = import.meta.url.endsWith('.js');
  return new URL(compiled ? './worker.js' : './worker-boot.mjs', import.meta.url).href;
}

const DEADLINE: WireError = { kind: 'eval', phase: 'eval', code: 'eval_cancel_error', message: 'caller cancelled query execution: evaluation deadline exceeded' };

export class PoolEvaluator implements Evaluator {
  private readonly pool: Piscina;
  private readonly down: BroadcastChannel;
  private readonly up: BroadcastChannel;
  private readonly acked = new Map<number, number>();
  private readonly waiters = new Set<() => void>();
  private readonly board = new Int32Array(new SharedArrayBuffer(SLOTS * 2 * 4));
  private readonly epoch = Date.now();
  private readonly freeSlots = Array.from({ length: SLOTS }, (_, i) => SLOTS - 1 - i);
  private readonly live = new Map<number, LiveBatch>();
  private readonly preparing = new Map<number, Preparing>();
  private readonly watchdog: NodeJS.Timeout | undefined;
  private queued: QueuedTask[] = [];
  private closed = false;
  /** Workers compiling a candidate policy, by thread id: the id of the candidate and its callback. */
  private readonly compiling = new Map<number, { id: number; done(report: CompileReport | undefined): void }>();
  private nextPolicyId = 1;

  constructor(private readonly opts: PoolOptions) {
    const id = randomUUID();
    const config: WorkerConfig = {
      downChannel: `regent-down-${id}`,
      upChannel: `regent-up-${id}`,
      v0Compatible: opts.v0Compatible,
      maxCollectionSize: opts.maxCollectionSize,
      heapMb: opts.heapMb,
      runtimeText: toJSONText(currentRuntimeInfo()),
      board: this.board.buffer as SharedArrayBuffer,
      epoch: this.epoch,
    };
    this.down = new BroadcastChannel(config.downChannel);
    this.up = new BroadcastChannel(config.upChannel);
    this.up.onmessage = (ev) => this.onUp((ev as { data: UpMessage }).data);
    this.down.unref();
    this.up.unref();
    this.pool = new Piscina({
      filename: workerFile(),
      minThreads: opts.threads,
      maxThreads: opts.threads,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      atomics: 'disabled',
      workerData: config,
      resourceLimits: { maxOldGenerationSizeMb: opts.heapMb },
      loadBalancer: (_task, workers) => this.pickWorker(workers),
    });
    this.pool.on('workerDestroy', () => this.wake());
    this.pool.on('error', () => this.wake());
    if (opts.timeoutMs > 0) {
      this.watchdog = setInterval(() => this.watch(), Math.max(10, Math.min(100, Math.floor(opts.timeoutMs / 4))));
      this.watchdog.unref();
    }
  }

  /** Thread ids of the live workers. */
  threadIds(): number[] {
    return this.pool.threads.map((t) => t.threadId);
  }

  /**
   * An idle worker that is not compiling; while only compiling workers are idle,
   * none (the task waits for a busy one) unless every worker is compiling.
   */
  private pickWorker<W extends { id: number; currentUsage: number }>(workers: W[]): W | null {
    let fallback: W | null = null;
    let other = false;
    for (const w of workers) {
      const compiling = this.compiling.has(w.id);
      if (!compiling) other = true;
      if (w.currentUsage !== 0) continue;
      if (!compiling) return w;
      fallback ??= w;
    }
    return other ? null : fallback;
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
    // Only workers that have a state (acknowledged one) listen; the others compile from their snapshot.
    for (const thread of this.threadIds().filter((t) => this.acked.has(t))) {
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
    return new Promise((resolve, reject) => this.enqueue({ task, resolve, reject }));
  }

  private enqueue(q: QueuedTask): void {
    this.queued.push(q);
    if (this.queued.length === 1) setImmediate(() => this.flush());
  }

  /**
   * Send the tasks queued during this turn of the event loop as batches, one per
   * worker at most: under load one message (and one thread wake-up) carries many
   * requests, which is where a pool spends most of its time.
   */
  private flush(): void {
    const queued = this.queued;
    this.queued = [];
    const size = Math.ceil(queued.length / Math.max(1, this.opts.threads));
    for (let i = 0; i < queued.length; i += size) this.dispatch(queued.slice(i, i + size));
  }

  private dispatch(part: QueuedTask[]): void {
    const slot = this.freeSlots.pop() ?? -1;
    const batch: LiveBatch = { part, abort: new AbortController(), slot };
    if (slot >= 0) {
      Atomics.store(this.board, slot * 2 + 1, 0);
      this.live.set(slot, batch);
    }
    const message: EvalBatch = { batch: part.map((q) => q.task), slot };
    this.pool.run(message, { signal: batch.abort.signal }).then(
      (outcomes: EvalOutcome[]) => {
        this.release(batch);
        part.forEach((q, j) => q.resolve(outcomes[j]!));
      },
      (e: unknown) => {
        const index = batch.stopped ?? (slot >= 0 ? Atomics.load(this.board, slot * 2 + 1) - 1 : -1);
        this.release(batch);
        this.failed(batch, index, e);
      },
    );
  }

  private release(batch: LiveBatch): void {
    if (batch.slot < 0) return;
    if (this.live.get(batch.slot) === batch) this.live.delete(batch.slot);
    this.freeSlots.push(batch.slot);
    batch.slot = -1;
  }

  /** A batch's worker died: the running task gets the error, the others run again (once). */
  private failed(batch: LiveBatch, index: number, e: unknown): void {
    const error = this.deathError(batch, e);
    batch.part.forEach((q, j) => {
      if (j === index || q.retried || this.closed) q.resolve({ timers: {}, cacheHit: false, error });
      else {
        q.retried = true;
        this.enqueue(q);
      }
    });
  }

  private deathError(batch: LiveBatch, e: unknown): WireError {
    if (batch.stopped !== undefined) return DEADLINE;
    const code = (e as { code?: string } | null)?.code;
    const message = e instanceof Error ? e.message : String(e);
    if (code === 'ERR_WORKER_OUT_OF_MEMORY' || /out of memory/i.test(message)) {
      return { kind: 'other', phase: 'eval', message: `evaluation exceeded the worker heap limit (${this.opts.heapMb} MB, --worker-heap-mb): the worker was replaced` };
    }
    return { kind: 'other', phase: 'eval', message: `evaluation worker failed: ${message}` };
  }

  /** Abort the batches whose running task is past its deadline and grace period. */
  private watch(): void {
    const now = Date.now() - this.epoch;
    const limit = this.opts.timeoutMs + (this.opts.graceMs ?? 250);
    for (const [slot, batch] of this.live) {
      const index = Atomics.load(this.board, slot * 2 + 1);
      if (index === 0) continue;
      if (now - Atomics.load(this.board, slot * 2) > limit) {
        batch.stopped = index - 1;
        this.live.delete(slot);
        batch.abort.abort();
      }
    }
  }

  /**
   * Have every worker build a shared document (in slices, still serving). Resolves
   * with the top-level keys of an object document (when few), once all have it;
   * rejects with BadRequestError when the document is not valid JSON.
   */
  prepare(doc: SharedDocument, maxDepth: number): Promise<string[] | undefined> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(() => resolve(entry.keys)), PREPARE_TIMEOUT_MS);
      const finish = (fn: () => void): void => {
        clearTimeout(timer);
        this.preparing.delete(doc.id);
        fn();
      };
      const entry: Preparing = {
        pending: new Set(this.threadIds()),
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
    const alive = new Set(this.threadIds());
    for (const entry of [...this.preparing.values()]) {
      // A worker that dies while building (most likely out of heap) would die again
      // building it at the commit, and again from each snapshot: refuse the write.
      if ([...entry.pending].some((t) => !alive.has(t))) {
        entry.reject(new Error(`an evaluation worker stopped while building the document (worker heap limit ${this.opts.heapMb} MB, --worker-heap-mb)`));
      } else if (entry.pending.size === 0) entry.resolve(entry.keys);
    }
  }

  async publish(update: StateUpdate): Promise<void> {
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
    const alive = new Set(this.threadIds());
    for (const [thread, entry] of [...this.compiling]) if (!alive.has(thread)) entry.done(undefined);
    this.checkPrepared();
  }

  private allAcked(generation: number): boolean {
    return this.pool.threads.every((t) => (this.acked.get(t.threadId) ?? -1) >= generation);
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
    if (this.watchdog) clearInterval(this.watchdog);
    this.wake();
    await this.pool.destroy();
    this.down.close();
    this.up.close();
  }
}
