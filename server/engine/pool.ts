// The worker-thread evaluator: a fixed number of worker_threads, each with a
// replica of the engine state (compiled modules + base document). State changes are
// broadcast on a BroadcastChannel and acknowledged by every live worker before
// `publish` resolves; each task also names the generation it needs, and a worker
// that is behind waits for it, so no evaluation ever sees older state than the
// write that preceded it. Large documents are prepared first (every worker builds
// the value from shared bytes in slices, still serving) and committed by a write
// that names them, so they become visible everywhere at once.
//
// Tasks travel on each worker's own port (worker.postMessage): no per-task
// bookkeeping beyond one small record per batch. A worker holds at most one batch;
// tasks that arrive meanwhile wait here and leave as one batch when a worker is
// free (tasks queued in one turn of the event loop are split over the free
// workers), so under load one message and one thread wake-up carry many requests.
// Limits: each worker has a heap limit (resourceLimits); a watchdog reads a shared
// board where workers note when each task of a batch started, and terminates a
// worker whose task runs past its deadline plus a grace period. A worker that
// exits (terminated, out of memory) is replaced at once; the task it was running
// gets the error and the other tasks of its batch are queued again, once.
// A candidate policy is compiled by one worker at a time (compilePolicy) in steps,
// answering tasks in between; the pool sends no task to a compiling worker while
// another one can take it (with one worker, tasks reach it between the steps).
import { BroadcastChannel, Worker } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
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
/** Watchdog board slots (batches in flight that can be watched): one per worker is enough. */
const SLOTS = 1024;

interface QueuedTask {
  task: EvalTask;
  resolve(outcome: EvalOutcome): void;
  retried?: boolean;
}

/** One worker thread of the pool. */
interface Member {
  worker: Worker;
  threadId: number;
  /** The batch it is running (at most one). */
  batch?: LiveBatch;
  /** The error it reported before exiting (e.g. ERR_WORKER_OUT_OF_MEMORY). */
  error?: unknown;
}

interface LiveBatch {
  part: QueuedTask[];
  member: Member;
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

function workerFile(): URL {
  const compiled = import.meta.url.endsWith('.js');
  return new URL(compiled ? './worker.js' : './worker-boot.mjs', import.meta.url);
}

const DEADLINE: WireError = { kind: 'eval', phase: 'eval', code: 'eval_cancel_error', message: 'caller cancelled query execution: evaluation deadline exceeded' };
const CLOSED: WireError = { kind: 'other', phase: 'eval', message: 'evaluation worker failed: the server is closing' };

export class PoolEvaluator implements Evaluator {
  private readonly config: WorkerConfig;
  private readonly members: Member[] = [];
  private readonly down: BroadcastChannel;
  private readonly up: BroadcastChannel;
  private readonly acked = new Map<number, number>();
  private readonly waiters = new Set<() => void>();
  private readonly board = new Int32Array(new SharedArrayBuffer(SLOTS * 2 * 4));
  private readonly epoch = Date.now();
  private readonly freeSlots = Array.from({ length: SLOTS }, (_, i) => SLOTS - 1 - i);
  private readonly preparing = new Map<number, Preparing>();
  private readonly watchdog: NodeJS.Timeout | undefined;
  private queued: QueuedTask[] = [];
  private flushScheduled = false;
  private closed = false;
  /** Workers compiling a candidate policy, by thread id: the id of the candidate and its callback. */
  private readonly compiling = new Map<number, { id: number; done(report: CompileReport | undefined): void }>();
  private nextPolicyId = 1;

  constructor(private readonly opts: PoolOptions) {
    const id = randomUUID();
    this.config = {
      downChannel: `regent-down-${id}`,
      upChannel: `regent-up-${id}`,
      v0Compatible: opts.v0Compatible,
      maxCollectionSize: opts.maxCollectionSize,
      heapMb: opts.heapMb,
      runtimeText: toJSONText(currentRuntimeInfo()),
      board: this.board.buffer as SharedArrayBuffer,
      epoch: this.epoch,
    };
    this.down = new BroadcastChannel(this.config.downChannel);
    this.up = new BroadcastChannel(this.config.upChannel);
    this.up.onmessage = (ev) => this.onUp((ev as { data: UpMessage }).data);
    this.down.unref();
    this.up.unref();
    for (let i = 0; i < Math.max(1, opts.threads); i++) this.spawn();
    if (opts.timeoutMs > 0) {
      this.watchdog = setInterval(() => this.watch(), Math.max(10, Math.min(100, Math.floor(opts.timeoutMs / 4))));
      this.watchdog.unref();
    }
  }

  /** Start a worker (at construction, or to replace one that exited). */
  private spawn(): void {
    const worker = new Worker(workerFile(), { workerData: this.config, resourceLimits: { maxOldGenerationSizeMb: this.opts.heapMb } });
    const member: Member = { worker, threadId: worker.threadId };
    worker.on('message', (outcomes: EvalOutcome[]) => this.onReply(member, outcomes));
    worker.on('error', (e) => {
      member.error ??= e;
    });
    worker.on('exit', (code) => this.onExit(member, code));
    worker.unref();
    this.members.push(member);
  }

  /** Thread ids of the live workers. */
  threadIds(): number[] {
    return this.members.map((m) => m.threadId);
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
    return new Promise((resolve) => this.enqueue({ task, resolve }));
  }

  private enqueue(q: QueuedTask): void {
    if (this.closed) return q.resolve({ timers: {}, cacheHit: false, error: CLOSED });
    this.queued.push(q);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        this.flush();
      });
    }
  }

  /**
   * The free workers that may take tasks now: the idle ones not compiling; while
   * only compiling workers are idle, none (the tasks wait for a busy one) unless
   * every worker is compiling (then it answers them between its compile steps).
   */
  private freeMembers(): Member[] {
    const free: Member[] = [];
    let fallback: Member[] | undefined;
    let other = false;
    for (const m of this.members) {
      const compiling = this.compiling.has(m.threadId);
      if (!compiling) other = true;
      if (m.batch !== undefined) continue;
      if (!compiling) free.push(m);
      else (fallback ??= []).push(m);
    }
    return other ? free : (fallback ?? []);
  }

  /**
   * Send the waiting tasks to the free workers, split evenly, one batch each: the
   * tasks of one turn of the event loop, or everything that arrived while every
   * worker was busy, travel in one message per worker.
   */
  private flush(): void {
    if (this.queued.length === 0) return;
    const free = this.freeMembers();
    if (free.length === 0) return;
    const queued = this.queued;
    this.queued = [];
    const size = Math.ceil(queued.length / free.length);
    for (let i = 0, w = 0; i < queued.length; i += size, w++) this.dispatch(free[w]!, size === queued.length ? queued : queued.slice(i, i + size));
  }

  private dispatch(member: Member, part: QueuedTask[]): void {
    const slot = this.freeSlots.pop() ?? -1;
    const batch: LiveBatch = { part, member, slot };
    if (slot >= 0) Atomics.store(this.board, slot * 2 + 1, 0);
    member.batch = batch;
    const tasks = new Array<EvalTask>(part.length);
    for (let i = 0; i < part.length; i++) tasks[i] = part[i]!.task;
    member.worker.postMessage({ batch: tasks, slot } satisfies EvalBatch);
  }

  private onReply(member: Member, outcomes: EvalOutcome[]): void {
    const batch = member.batch;
    if (batch === undefined) return;
    member.batch = undefined;
    this.release(batch);
    for (let j = 0; j < batch.part.length; j++) batch.part[j]!.resolve(outcomes[j]!);
    this.flush();
  }

  private release(batch: LiveBatch): void {
    if (batch.slot < 0) return;
    this.freeSlots.push(batch.slot);
    batch.slot = -1;
  }

  /** A worker exited: replace it; its batch's running task gets the error, the others run again (once). */
  private onExit(member: Member, code: number): void {
    const at = this.members.indexOf(member);
    if (at < 0) return;
    this.members.splice(at, 1);
    if (!this.closed) this.spawn();
    const batch = member.batch;
    if (batch !== undefined) {
      member.batch = undefined;
      const index = batch.stopped ?? (batch.slot >= 0 ? Atomics.load(this.board, batch.slot * 2 + 1) - 1 : -1);
      this.release(batch);
      this.failed(batch, index, member.error ?? new Error(`the worker thread exited (code ${code})`));
    }
    this.wake();
    this.flush();
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

  /** Terminate the workers whose running task is past its deadline and grace period. */
  private watch(): void {
    const now = Date.now() - this.epoch;
    const limit = this.opts.timeoutMs + (this.opts.graceMs ?? 250);
    for (const m of this.members) {
      const batch = m.batch;
      if (batch === undefined || batch.slot < 0 || batch.stopped !== undefined) continue;
      const index = Atomics.load(this.board, batch.slot * 2 + 1);
      if (index === 0) continue;
      if (now - Atomics.load(this.board, batch.slot * 2) > limit) {
        batch.stopped = index - 1;
        void m.worker.terminate();
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
    return this.members.every((m) => (this.acked.get(m.threadId) ?? -1) >= generation);
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
    const members = this.members.splice(0);
    const queued = this.queued.splice(0);
    for (const q of queued) q.resolve({ timers: {}, cacheHit: false, error: CLOSED });
    await Promise.all(
      members.map((m) => {
        const batch = m.batch;
        m.batch = undefined;
        for (const q of batch?.part ?? []) q.resolve({ timers: {}, cacheHit: false, error: CLOSED });
        return m.worker.terminate();
      }),
    );
    this.down.close();
    this.up.close();
  }
}
