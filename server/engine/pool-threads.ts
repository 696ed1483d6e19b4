// The evaluation threads of the worker pool (pool.ts). piscina owns the threads: it
// starts N of them (heap limit, workerData) and replaces one that dies. Each thread
// runs ONE long-lived piscina task, `serve` (worker.ts), given the far end of a
// MessageChannel: batches of tasks travel on that port as one flat array each
// (wire-batch.ts), answered by one flat array of outcomes, so no piscina machinery
// runs per request. Nothing is kept per task but the caller's promise: no task ids, no abort
// signals. The serve task stays pending while its thread serves; it rejects when the
// thread dies, and a new serve task (new port) is started at once, or after a pause
// when the last one served for less than a second (no restart loop).
//
// A worker holds at most two batches: the one it runs, and one waiting in its port's
// queue. Tasks queued in one turn of the event loop are split over the idle workers
// (at most 1/N of them each for N workers); when no worker is idle they go, as one
// batch, to a busy worker that has none waiting, so the worker starts on them as soon
// as it answers the batch before, without a round trip through this thread (one
// worker: 10–12% more requests per second than with one batch at a time). Tasks
// that arrive while every worker has a batch waiting wait here and leave together,
// so under load one message and one thread wake-up carry many requests.
// Limits: each thread has a heap limit (resourceLimits); a watchdog reads a shared
// board where workers note when each task of a batch started, and terminates the
// thread whose task runs past its deadline plus a grace period. When a thread dies
// (terminated, out of memory), the task it was running gets the error and the
// other tasks of its batch are queued again, once.
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { EvalOutcome, EvalTask, WireError, WorkerConfig } from './protocol.js';
import { encodeBatch, outcomeAt, outcomesLength, type WireOutcomes } from './wire-batch.js';

/** The one task each thread runs (worker.ts `serve`): batches arrive on `port`. */
export interface ServeTask {
  port: MessagePort;
}

/** The first message of a serve task on its port: the thread's id. */
export interface ServeStarted {
  started: number;
}

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
  /** A worker died (and was replaced or will be). */
  onExit(): void;
}

/** Watchdog board slots (batches in flight that can be watched; one per worker is in use). */
const SLOTS = 1024;
/** A serve task that ends sooner than this after starting is replaced only after this long (no restart loop). */
const RESPAWN_DELAY_MS = 1000;

interface QueuedTask {
  task: EvalTask;
  resolve(outcome: EvalOutcome): void;
  retried?: boolean;
}

/** One serve task: a thread serving batches on a port. */
interface Member {
  port: MessagePort;
  /** The serving thread's id (-1 until it reports it). */
  threadId: number;
  worker?: Worker;
  /** The batch it is running (or has answered, the answer not yet read). */
  batch?: LiveBatch;
  /** The batch posted behind it, waiting in the worker's port queue. */
  next?: LiveBatch;
  /** When the task was posted, then when it started serving (ms since the epoch). */
  started: number;
}

interface LiveBatch {
  part: QueuedTask[];
  slot: number;
  /** Index of the task the watchdog stopped. */
  stopped?: number;
}

/** piscina's run options (its transferList type is inferred from an overload of postMessage that is not the list form). */
type RunOptions = Parameters<Piscina['run']>[1];

function workerFile(): string {
  const compiled = import.meta.url.endsWith('.js');
  return fileURLToPath(new URL(compiled ? './worker.js' : './worker-boot.mjs', import.meta.url));
}

/**
 * piscina keeps the port it posts a task on referenced while the task runs, so a
 * serve task would keep the process alive; its worker interface holds that port's
 * owner under a private symbol. Unreferenced once the thread serves (our own port
 * is referenced while a batch is pending); without the symbol, the pool keeps the
 * process alive until it is closed.
 */
function unrefTaskPort(iface: object | undefined): void {
  if (iface === undefined) return;
  const key = Object.getOwnPropertySymbols(iface).find((s) => s.description === 'Piscina.kWorkerData');
  const info = key === undefined ? undefined : (iface as Record<symbol, { unref?(): unknown } | undefined>)[key];
  if (typeof info?.unref === 'function') info.unref();
}

const DEADLINE: WireError = { kind: 'eval', phase: 'eval', code: 'eval_cancel_error', message: 'caller cancelled query execution: evaluation deadline exceeded' };
const CLOSED: WireError = { kind: 'other', phase: 'eval', message: 'evaluation worker failed: the server is closing' };

export class WorkerThreads {
  /** Serve tasks whose thread reported its id (they take batches). */
  private readonly members: Member[] = [];
  private readonly board = new Int32Array(new SharedArrayBuffer(SLOTS * 2 * 4));
  private readonly epoch = Date.now();
  private readonly freeSlots = Array.from({ length: SLOTS }, (_, i) => SLOTS - 1 - i);
  private readonly watchdog: NodeJS.Timeout | undefined;
  private readonly piscina: Piscina<ServeTask, void>;
  /** piscina's interface of each live thread, by thread id (see unrefTaskPort). */
  private readonly interfaces = new Map<number, object>();
  /** Callers of whenServing() waiting for every live thread to serve. */
  private servingWaiters: (() => void)[] = [];
  private queued: QueuedTask[] = [];
  private flushScheduled = false;
  private closed = false;

  /** `config`: the workers' configuration without the watchdog board, which this adds. */
  constructor(
    private readonly opts: ThreadsOptions,
    config: Omit<WorkerConfig, 'board' | 'epoch'>,
  ) {
    const threads = Math.max(1, opts.threads);
    const workerData: WorkerConfig = { ...config, board: this.board.buffer as SharedArrayBuffer, epoch: this.epoch };
    this.piscina = new Piscina<ServeTask, void>({
      filename: workerFile(),
      name: 'serve',
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: 1,
      // Serve tasks never end: the threads must not block in Atomics.wait between tasks.
      atomics: 'disabled',
      resourceLimits: { maxOldGenerationSizeMb: opts.heapMb },
      workerData,
    });
    // A thread that dies with no task (before its serve task reached it) is replaced by piscina.
    this.piscina.on('error', () => undefined);
    this.piscina.on('workerCreate', (iface: { id: number }) => this.interfaces.set(iface.id, iface));
    this.piscina.on('workerDestroy', (iface: { id: number }) => this.interfaces.delete(iface.id));
    for (let i = 0; i < threads; i++) this.serve();
    if (opts.timeoutMs > 0) {
      this.watchdog = setInterval(() => this.watch(), Math.max(10, Math.min(100, Math.floor(opts.timeoutMs / 4))));
      this.watchdog.unref();
    }
  }

  /** Thread ids of the live threads (serving or about to). */
  threadIds(): number[] {
    return this.piscina.threads.map((w) => w.threadId);
  }

  /** Thread ids of the threads serving (they listen to state broadcasts and acknowledge them). */
  servingIds(): number[] {
    return this.members.map((m) => m.threadId);
  }

  /**
   * Resolves once every live thread serves (listens to broadcasts), or after
   * `timeoutMs`: a thread that is still loading, or waiting for its serve task,
   * would miss a broadcast that only serving threads answer (pool.ts prepare).
   */
  whenServing(timeoutMs: number): Promise<void> {
    if (this.allServing()) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.servingWaiters.push(done);
    });
  }

  private allServing(): boolean {
    if (this.closed) return true;
    const serving = new Set(this.servingIds());
    return this.piscina.threads.every((w) => serving.has(w.threadId));
  }

  private checkServing(): void {
    if (this.servingWaiters.length > 0 && this.allServing()) for (const done of this.servingWaiters.splice(0)) done();
  }

  /** Start a serve task on a new port (at construction, or to replace one that ended). */
  private serve(): void {
    if (this.closed) return;
    const { port1, port2 } = new MessageChannel();
    const member: Member = { port: port1, threadId: -1, started: Date.now() };
    port1.on('message', (msg: WireOutcomes | ServeStarted) => {
      if (Array.isArray(msg)) this.onReply(member, msg);
      else this.onStart(member, msg.started);
    });
    port1.unref();
    this.piscina.run({ port: port2 }, { transferList: [port2] } as unknown as RunOptions).then(
      () => this.onEnd(member, new Error('the worker stopped serving')),
      (e: unknown) => this.onEnd(member, e),
    );
  }

  private onStart(member: Member, threadId: number): void {
    if (this.closed) return;
    member.threadId = threadId;
    member.worker = this.piscina.threads.find((w) => w.threadId === threadId);
    member.started = Date.now();
    unrefTaskPort(this.interfaces.get(threadId));
    this.members.push(member);
    this.checkServing();
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
   * The free workers that may take tasks now: the idle ones not compiling; when none
   * is idle, the busy ones not compiling with no batch waiting (one of them takes the
   * tasks as its next batch); while only compiling workers are idle, none (the tasks
   * wait for a busy one) unless every worker is compiling (then it answers them
   * between its compile steps).
   */
  private freeMembers(): Member[] {
    const free: Member[] = [];
    let busy: Member | undefined;
    let fallback: Member[] | undefined;
    let other = false;
    for (const m of this.members) {
      const compiling = this.opts.isCompiling(m.threadId);
      if (!compiling) other = true;
      if (m.batch !== undefined) {
        if (!compiling && m.next === undefined && m.batch.stopped === undefined) busy ??= m;
        continue;
      }
      if (!compiling) free.push(m);
      else (fallback ??= []).push(m);
    }
    if (!other) return fallback ?? [];
    return free.length > 0 || busy === undefined ? free : [busy];
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
    if (member.batch === undefined) member.batch = { part, slot };
    else member.next = { part, slot };
    member.port.ref(); // a pending evaluation keeps the process alive; an idle pool does not
    const tasks = new Array<EvalTask>(part.length);
    for (let i = 0; i < part.length; i++) tasks[i] = part[i]!.task;
    member.port.postMessage(encodeBatch(tasks, slot));
  }

  /** The answer to the member's first batch (a worker answers its batches in order). */
  private onReply(member: Member, outcomes: WireOutcomes): void {
    const batch = member.batch;
    if (batch === undefined) return;
    member.batch = member.next;
    member.next = undefined;
    if (member.batch === undefined) member.port.unref();
    this.release(batch);
    const n = Math.min(batch.part.length, outcomesLength(outcomes));
    for (let j = 0; j < n; j++) batch.part[j]!.resolve(outcomeAt(outcomes, j));
    this.flush();
  }

  private release(batch: LiveBatch): void {
    if (batch.slot < 0) return;
    this.freeSlots.push(batch.slot);
    batch.slot = -1;
  }

  /**
   * A serve task ended (its thread died: piscina replaces the thread): start another
   * one; its batch's running task gets the error, the others run again (once).
   */
  private onEnd(member: Member, e: unknown): void {
    member.port.close();
    if (this.closed) return;
    const at = this.members.indexOf(member);
    if (at >= 0) this.members.splice(at, 1);
    if (Date.now() - member.started >= RESPAWN_DELAY_MS) this.serve();
    else setTimeout(() => this.serve(), RESPAWN_DELAY_MS).unref();
    const batches = [member.batch, member.next];
    member.batch = member.next = undefined;
    for (const batch of batches) {
      if (batch === undefined) continue;
      const index = batch.stopped ?? (batch.slot >= 0 ? Atomics.load(this.board, batch.slot * 2 + 1) - 1 : -1);
      this.release(batch);
      this.failed(batch, index, e);
    }
    this.opts.onExit();
    this.checkServing();
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

  /** Terminate the threads whose running task is past its deadline and grace period. */
  private watch(): void {
    const now = Date.now() - this.epoch;
    const limit = this.opts.timeoutMs + this.opts.graceMs;
    for (const m of this.members) {
      // The running batch is the first, or the next one once the first is answered.
      for (const batch of [m.batch, m.next]) {
        if (batch === undefined || batch.slot < 0 || batch.stopped !== undefined) continue;
        const index = Atomics.load(this.board, batch.slot * 2 + 1);
        if (index === 0) continue;
        if (now - Atomics.load(this.board, batch.slot * 2) > limit) {
          batch.stopped = index - 1;
          const worker = m.worker ?? this.piscina.threads.find((w) => w.threadId === m.threadId);
          void worker?.terminate();
        }
      }
    }
  }

  /** Stop every thread; waiting and running tasks get an error outcome. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.watchdog) clearInterval(this.watchdog);
    for (const q of this.queued.splice(0)) q.resolve({ timers: {}, cacheHit: false, error: CLOSED });
    for (const m of this.members.splice(0)) {
      for (const q of [...(m.batch?.part ?? []), ...(m.next?.part ?? [])]) q.resolve({ timers: {}, cacheHit: false, error: CLOSED });
      m.batch = m.next = undefined;
    }
    this.checkServing();
    await this.piscina.destroy();
  }
}
