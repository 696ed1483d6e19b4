// The evaluation threads of the worker pool (pool.ts): plain worker_threads, each
// answering batches of tasks on its own port (worker.postMessage with the task
// objects as they are; the answer is the array of outcomes). Nothing is kept per
// task but the caller's promise: no task ids, no abort signals.
//
// A worker holds at most one batch. Tasks queued in one turn of the event loop are
// split over the free workers; tasks that arrive while every worker is busy wait
// here and leave together when a worker is free (at most 1/N of them for N
// workers), so under load one message and one thread wake-up carry many requests. Limits: each worker has a heap limit
// (resourceLimits); a watchdog reads a shared board where workers note when each
// task of a batch started, and terminates a worker whose task runs past its
// deadline plus a grace period. A worker that exits (terminated, out of memory) is
// replaced at once (after a pause when it lived less than a second); the task it
// was running gets the error and the other tasks of its batch are queued again, once.
import { Worker } from 'node:worker_threads';
import type { EvalBatch, EvalOutcome, EvalTask, WireError, WorkerConfig } from './protocol.js';

export interface ThreadsOptions {
  threads: number;
  /** Per-task evaluation limit (ms); 0: none. */
  timeoutMs: number;
  /** Extra time after a task's deadline before its worker is considered stuck (ms). */
  graceMs: number;
  /** Old-generation heap limit of each worker (MB). */
  heapMb: number;
  /** True while the worker with this thread id compiles a candidate policy (pool.ts). */
  isCompiling(threadId: number): boolean;
  /** A worker exited (and was replaced or will be). */
  onExit(): void;
}

/** Watchdog board slots (batches in flight that can be watched; one per worker is in use). */
const SLOTS = 1024;
/** A worker that exits sooner than this after starting is replaced only after this long (no restart loop). */
const RESPAWN_DELAY_MS = 1000;

interface QueuedTask {
  task: EvalTask;
  resolve(outcome: EvalOutcome): void;
  retried?: boolean;
}

/** One worker thread. */
interface Member {
  worker: Worker;
  threadId: number;
  /** The batch it is running (at most one). */
  batch?: LiveBatch;
  /** The error it reported before exiting (e.g. ERR_WORKER_OUT_OF_MEMORY). */
  error?: unknown;
  /** When it started (ms since the epoch). */
  started: number;
}

interface LiveBatch {
  part: QueuedTask[];
  slot: number;
  /** Index of the task the watchdog stopped. */
  stopped?: number;
}

function workerFile(): URL {
  const compiled = import.meta.url.endsWith('.js');
  return new URL(compiled ? './worker.js' : './worker-boot.mjs', import.meta.url);
}

const DEADLINE: WireError = { kind: 'eval', phase: 'eval', code: 'eval_cancel_error', message: 'caller cancelled query execution: evaluation deadline exceeded' };
const CLOSED: WireError = { kind: 'other', phase: 'eval', message: 'evaluation worker failed: the server is closing' };

export class WorkerThreads {
  private readonly members: Member[] = [];
  private readonly board = new Int32Array(new SharedArrayBuffer(SLOTS * 2 * 4));
  private readonly epoch = Date.now();
  private readonly freeSlots = Array.from({ length: SLOTS }, (_, i) => SLOTS - 1 - i);
  private readonly watchdog: NodeJS.Timeout | undefined;
  private readonly config: WorkerConfig;
  private queued: QueuedTask[] = [];
  private flushScheduled = false;
  private closed = false;

  /** `config`: the workers' configuration without the watchdog board, which this adds. */
  constructor(
    private readonly opts: ThreadsOptions,
    config: Omit<WorkerConfig, 'board' | 'epoch'>,
  ) {
    this.config = { ...config, board: this.board.buffer as SharedArrayBuffer, epoch: this.epoch };
    for (let i = 0; i < Math.max(1, opts.threads); i++) this.spawn();
    if (opts.timeoutMs > 0) {
      this.watchdog = setInterval(() => this.watch(), Math.max(10, Math.min(100, Math.floor(opts.timeoutMs / 4))));
      this.watchdog.unref();
    }
  }

  /** Thread ids of the live workers. */
  threadIds(): number[] {
    return this.members.map((m) => m.threadId);
  }

  /** Start a worker (at construction, or to replace one that exited). */
  private spawn(): void {
    const worker = new Worker(workerFile(), { workerData: this.config, resourceLimits: { maxOldGenerationSizeMb: this.opts.heapMb } });
    const member: Member = { worker, threadId: worker.threadId, started: Date.now() };
    worker.on('message', (outcomes: EvalOutcome[]) => this.onReply(member, outcomes));
    worker.on('error', (e) => {
      member.error ??= e;
    });
    worker.on('exit', (code) => this.onExit(member, code));
    worker.unref();
    this.members.push(member);
  }

  private respawn(): void {
    if (this.closed) return;
    this.spawn();
    this.flush();
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
      const compiling = this.opts.isCompiling(m.threadId);
      if (!compiling) other = true;
      if (m.batch !== undefined) continue;
      if (!compiling) free.push(m);
      else (fallback ??= []).push(m);
    }
    return other ? free : (fallback ?? []);
  }

  /**
   * Send the waiting tasks to the free workers, one batch each, a share of at most
   * 1/N of the queue for N workers: a worker that frees up first does not take the
   * whole backlog while the others are about to (with one worker, it takes it all).
   */
  private flush(): void {
    const waiting = this.queued.length;
    if (waiting === 0) return;
    const free = this.freeMembers();
    if (free.length === 0) return;
    const size = Math.ceil(waiting / this.members.length);
    if (size >= waiting) {
      const all = this.queued;
      this.queued = [];
      return this.dispatch(free[0]!, all);
    }
    for (let w = 0; w < free.length && this.queued.length > 0; w++) this.dispatch(free[w]!, this.queued.splice(0, size));
  }

  private dispatch(member: Member, part: QueuedTask[]): void {
    const slot = this.freeSlots.pop() ?? -1;
    if (slot >= 0) Atomics.store(this.board, slot * 2 + 1, 0);
    member.batch = { part, slot };
    member.worker.ref(); // a pending evaluation keeps the process alive; an idle pool does not
    const tasks = new Array<EvalTask>(part.length);
    for (let i = 0; i < part.length; i++) tasks[i] = part[i]!.task;
    member.worker.postMessage({ batch: tasks, slot } satisfies EvalBatch);
  }

  private onReply(member: Member, outcomes: EvalOutcome[]): void {
    const batch = member.batch;
    if (batch === undefined) return;
    member.batch = undefined;
    member.worker.unref();
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
    if (Date.now() - member.started >= RESPAWN_DELAY_MS) this.respawn();
    else setTimeout(() => this.respawn(), RESPAWN_DELAY_MS).unref();
    const batch = member.batch;
    if (batch !== undefined) {
      member.batch = undefined;
      const index = batch.stopped ?? (batch.slot >= 0 ? Atomics.load(this.board, batch.slot * 2 + 1) - 1 : -1);
      this.release(batch);
      this.failed(batch, index, member.error ?? new Error(`the worker thread exited (code ${code})`));
    }
    this.opts.onExit();
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
    const limit = this.opts.timeoutMs + this.opts.graceMs;
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

  /** Stop every worker; waiting and running tasks get an error outcome. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.watchdog) clearInterval(this.watchdog);
    const members = this.members.splice(0);
    for (const q of this.queued.splice(0)) q.resolve({ timers: {}, cacheHit: false, error: CLOSED });
    await Promise.all(
      members.map((m) => {
        for (const q of m.batch?.part ?? []) q.resolve({ timers: {}, cacheHit: false, error: CLOSED });
        m.batch = undefined;
        return m.worker.terminate();
      }),
    );
  }
}
