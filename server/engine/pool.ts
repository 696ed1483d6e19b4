// The worker-thread evaluator: a piscina pool of fixed size. Each worker keeps a
// replica of the engine state (compiled modules + base document). State changes are
// broadcast on a BroadcastChannel and acknowledged by every live worker before
// `publish` resolves; each task also names the generation it needs, and a worker
// that is behind waits for it, so no evaluation ever sees older state than the
// write that preceded it. A task that runs past its deadline (plus a grace period)
// (counted from when a worker reports it started) is aborted: piscina terminates that worker and starts a fresh one, which asks for
// a snapshot; other requests are unaffected.
import { BroadcastChannel } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
import { Piscina } from 'piscina';
import type { Evaluator } from './evaluator.js';
import type { DownMessage, EvalBatch, EvalOutcome, EvalTask, StateSnapshot, StateUpdate, UpMessage, WorkerConfig } from './protocol.js';

export interface PoolOptions {
  threads: number;
  v0Compatible: boolean;
  /** Extra time after a task's deadline before its worker is considered stuck (ms). */
  graceMs?: number;
  /** The current state, for workers that (re)start. */
  snapshot(): Omit<StateSnapshot, 'type' | 'target'>;
}

const ACK_TIMEOUT_MS = 30_000;

interface QueuedTask {
  task: EvalTask;
  resolve(outcome: EvalOutcome): void;
  reject(e: unknown): void;
}

function workerFile(): string {
  const compiled = import.meta.url.endsWith('.js');
  return new URL(compiled ? './worker.js' : './worker-boot.mjs', import.meta.url).href;
}

export class PoolEvaluator implements Evaluator {
  private readonly pool: Piscina;
  private readonly down: BroadcastChannel;
  private readonly up: BroadcastChannel;
  private readonly acked = new Map<number, number>();
  private readonly waiters = new Set<() => void>();
  /** Task id → arms the task's abort timer once a worker reports it started. */
  private readonly starting = new Map<number, () => void>();
  private nextTaskId = 1;
  private queued: QueuedTask[] = [];
  private closed = false;

  constructor(private readonly opts: PoolOptions) {
    const id = randomUUID();
    const config: WorkerConfig = { downChannel: `regent-down-${id}`, upChannel: `regent-up-${id}`, v0Compatible: opts.v0Compatible };
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
    });
    this.pool.on('workerDestroy', () => this.wake());
    this.pool.on('error', () => this.wake());
  }

  /** Thread ids of the live workers. */
  threadIds(): number[] {
    return this.pool.threads.map((t) => t.threadId);
  }

  async evaluate(task: EvalTask): Promise<EvalOutcome> {
    // Without a time limit a task joins the current batch (see flush); with one it
    // travels alone, so that aborting its worker touches no other request.
    if (task.timeoutMs === undefined) return this.enqueue(task);
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const taskId = this.nextTaskId++;
    const limit = task.timeoutMs + (this.opts.graceMs ?? 250);
    this.starting.set(taskId, () => (timer = setTimeout(() => abort.abort(), limit)));
    try {
      task.taskId = taskId;
      return (await this.pool.run(task, { signal: abort.signal })) as EvalOutcome;
    } catch (e) {
      if (abort.signal.aborted) {
        return { timers: {}, cacheHit: false, error: { kind: 'eval', phase: 'eval', code: 'eval_cancel_error', message: 'caller cancelled query execution: evaluation deadline exceeded' } };
      }
      throw e;
    } finally {
      this.starting.delete(taskId);
      if (timer) clearTimeout(timer);
    }
  }

  private enqueue(task: EvalTask): Promise<EvalOutcome> {
    return new Promise((resolve, reject) => {
      this.queued.push({ task, resolve, reject });
      if (this.queued.length === 1) setImmediate(() => this.flush());
    });
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
    for (let i = 0; i < queued.length; i += size) {
      const part = queued.slice(i, i + size);
      const batch: EvalBatch = { batch: part.map((q) => q.task) };
      this.pool.run(batch).then(
        (outcomes: EvalOutcome[]) => part.forEach((q, j) => q.resolve(outcomes[j]!)),
        (e: unknown) => part.forEach((q) => q.reject(e)),
      );
    }
  }

  async publish(update: StateUpdate): Promise<void> {
    this.down.postMessage(update);
    await this.waitForAcks(update.generation);
  }

  private onUp(msg: UpMessage): void {
    if (msg.type === 'started') {
      this.starting.get(msg.taskId)?.();
      this.starting.delete(msg.taskId);
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
    this.wake();
    await this.pool.destroy();
    this.down.close();
    this.up.close();
  }
}
