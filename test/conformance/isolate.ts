// Running cases in worker threads, so that an engine bug which hangs (a loop that
// never checks the deadline) or kills the thread cannot stop the run. Each worker
// takes cases one at a time and reports a result per case; the main thread keeps a
// watchdog per worker and, when a case runs past the hard limit or the worker dies,
// terminates that worker, records the case as failed and starts a fresh worker.
// Several workers share the queue, which also makes the run faster.
import { Worker, parentPort, workerData } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import type { LoadedCase } from './load.js';
import { runCase, type CaseResult, type RunOptions } from './run-case.js';

export interface IsolateOptions extends RunOptions {
  /** Wall-clock limit per case before the worker is killed (default 6 × timeoutMs, min 30 s). */
  hardTimeoutMs?: number;
  /** Number of worker threads (default: CPUs − 1, between 1 and 4). */
  workers?: number;
}

type ToWorker = { type: 'run'; index: number; case: LoadedCase };
type FromWorker = { type: 'ready' } | { type: 'result'; index: number; result: CaseResult };

const BOOT = new URL('./worker.mjs', import.meta.url);
const SELF = new URL('./isolate.ts', import.meta.url).href;

/** Run the cases in workers; results come back in the order of `cases`. */
export function runIsolated(cases: LoadedCase[], opts: IsolateOptions = {}, onResult?: (r: CaseResult) => void): Promise<CaseResult[]> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const hardMs = opts.hardTimeoutMs ?? Math.max(30_000, timeoutMs * 6);
  const poolSize = Math.max(1, Math.min(opts.workers ?? Math.min(4, availableParallelism() - 1), cases.length || 1));
  const results: (CaseResult | undefined)[] = new Array(cases.length);
  const runOpts: RunOptions = { timeoutMs, ...(opts.skip ? { skip: opts.skip } : {}) };
  let next = 0;
  let done = 0;

  return new Promise((resolve) => {
    if (cases.length === 0) return resolve([]);
    const finish = (index: number, r: CaseResult): void => {
      if (results[index]) return;
      results[index] = r;
      done++;
      onResult?.(r);
      if (done === cases.length) resolve(results as CaseResult[]);
    };
    const lost = (index: number, reason: string): CaseResult => {
      const c = cases[index]!;
      return { id: c.id, folder: c.folder, file: c.file, status: 'fail', reason, ms: hardMs };
    };

    const spawn = (): void => {
      const worker = new Worker(BOOT, { workerData: { entry: SELF, opts: runOpts } }); console.error('spawn'); worker.on('online', () => console.error('online')); worker.on('message', (m) => console.error('msg', m.type));
      let current = -1;
      let timer: NodeJS.Timeout | undefined;
      let dead = false;
      const feed = (): void => {
        if (timer) clearTimeout(timer);
        if (next >= cases.length) {
          dead = true;
          void worker.terminate();
          return;
        }
        current = next++;
        timer = setTimeout(() => replace(`hard timeout: still running after ${hardMs / 1000}s`), hardMs);
        worker.postMessage({ type: 'run', index: current, case: cases[current]! } satisfies ToWorker);
      };
      const replace = (reason: string): void => { console.error('replace', current, reason, dead, next, done);
        if (dead) return;
        dead = true;
        if (timer) clearTimeout(timer);
        void worker.terminate();
        if (current >= 0 && !results[current]) finish(current, lost(current, reason));
        if (done < cases.length && next < cases.length) spawn();
      };
      worker.on('message', (m: FromWorker) => {
        if (m.type === 'result') finish(m.index, m.result);
        feed();
      });
      worker.on('error', (e) => replace(`worker crashed: ${e instanceof Error ? e.message : String(e)}`));
      worker.on('exit', (code) => {
        if (!dead) replace(`worker exited with code ${code}`);
      });
    };
    for (let i = 0; i < poolSize; i++) spawn();
  });
}

/** Worker side: run each case sent by the main thread. */
export function workerMain(): void {
  const port = parentPort;
  if (!port) throw new Error('workerMain must run in a worker thread');
  const opts = (workerData as { opts: RunOptions }).opts;
  port.on('message', (m: ToWorker) => {
    if (m.type !== 'run') return;
    port.postMessage({ type: 'result', index: m.index, result: runCase(m.case, opts) } satisfies FromWorker);
  });
  port.postMessage({ type: 'ready' } satisfies FromWorker);
}
