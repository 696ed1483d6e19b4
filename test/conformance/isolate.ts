// Running cases in worker processes, so that an engine bug which hangs (a loop that
// never checks the deadline) or kills the process cannot stop the run. Each worker
// takes cases one at a time and reports a result per case; the main process keeps a
// watchdog per worker and, when a case runs past the hard limit or the worker dies,
// kills that worker, records the case as failed and starts a fresh worker. Several
// workers share the queue, which also makes the run faster. (Child processes, not
// worker threads: a thread killed mid-run can leave tsx's loader hooks unusable.)
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { LoadedCase } from './load.js';
import { runCase, runCaseOn, type CaseResult, type RunOptions } from './run-case.js';

export interface IsolateOptions extends RunOptions {
  /** Wall-clock limit per case before the worker is killed (default 6 × timeoutMs, min 30 s). */
  hardTimeoutMs?: number;
  /** Number of worker threads (default: CPUs − 1, between 1 and 4). */
  workers?: number;
}

type ToWorker = { type: 'run'; index: number; case: LoadedCase };
type FromWorker = { type: 'ready' } | { type: 'result'; index: number; result: CaseResult };

const BOOT = fileURLToPath(new URL('./worker.mjs', import.meta.url));
const SELF = new URL(import.meta.url).href;

/** Run the cases in workers; results come back in the order of `cases`. */
export function runIsolated(cases: LoadedCase[], opts: IsolateOptions = {}, onResult?: (r: CaseResult) => void): Promise<CaseResult[]> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const hardMs = opts.hardTimeoutMs ?? Math.max(30_000, timeoutMs * 6);
  const poolSize = Math.max(1, Math.min(opts.workers ?? Math.min(4, availableParallelism() - 1), cases.length || 1));
  const results: (CaseResult | undefined)[] = new Array(cases.length);
  // Skipped cases are settled here; workers only get the deadline.
  const skip = opts.skip ?? {};
  const runOpts: RunOptions = { timeoutMs, ...(opts.backend ? { backend: opts.backend } : {}) };
  let next = 0;
  let done = 0;
  let bootFailures = 0;

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
      const worker: ChildProcess = fork(BOOT, [], {
        serialization: 'advanced',
        env: { ...process.env, REGENT_CONFORMANCE_WORKER: JSON.stringify({ entry: SELF, opts: runOpts }) },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      let current = -1;
      let timer: NodeJS.Timeout | undefined;
      let dead = false;
      const feed = (): void => {
        if (timer) clearTimeout(timer);
        while (next < cases.length && skip[cases[next]!.id] !== undefined) {
          const index = next++;
          finish(index, runCase(cases[index]!, { skip }));
        }
        if (next >= cases.length) {
          dead = true;
          worker.kill();
          return;
        }
        current = next++;
        timer = setTimeout(() => replace(`hard timeout: still running after ${hardMs / 1000}s`), hardMs);
        worker.send({ type: 'run', index: current, case: cases[current]! } satisfies ToWorker);
      };
      const replace = (reason: string): void => {
        if (dead) return;
        dead = true;
        if (timer) clearTimeout(timer);
        worker.kill('SIGKILL');
        if (current >= 0 && !results[current]) finish(current, lost(current, reason));
        else if (current < 0 && ++bootFailures >= 3) {
          // Workers cannot start at all: fail what is left instead of respawning forever.
          for (; next < cases.length; next++) finish(next, lost(next, `worker failed to start: ${reason}`));
          return;
        }
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

/** Worker side: run each case sent by the parent process. */
export function workerMain(opts: RunOptions): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('workerMain must run in a forked child process');
  process.on('message', (m: ToWorker) => {
    if (m.type !== 'run') return;
    void runCaseOn(m.case, opts).then((result) => send({ type: 'result', index: m.index, result } satisfies FromWorker));
  });
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready' } satisfies FromWorker);
}
