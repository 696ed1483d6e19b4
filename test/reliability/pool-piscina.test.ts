// The worker pool on piscina's threads (server/engine/pool-threads.ts): piscina
// starts the N threads, each runs one long-lived `serve` task answering batches on
// its own port. The pool's threads are piscina's (same thread ids), tasks are
// answered with the state the pool was given, a thread terminated under a running
// batch is replaced by piscina and a new serve task answers the rest, and an idle
// pool does not keep the process alive (piscina's task port is unreferenced once a
// thread serves).
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PoolEvaluator } from '../../server/engine/pool.js';
import type { EvalTask } from '../../server/engine/protocol.js';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..');
const MODULES = [{ file: 'p.rego', text: 'package p\ndouble := input.n * 2\nspin := count([x | some x in numbers.range(1, 5000); some y in numbers.range(1, 5000); x % 7 == y % 5])\n' }];

function task(query: string, n = 0): EvalTask {
  return { generation: 0, query, mode: 'value', input: { kind: 'js', js: { n } }, strictBuiltinErrors: false, pretty: false };
}

function pool(threads: number, timeoutMs = 0): PoolEvaluator {
  return new PoolEvaluator({
    threads,
    v0Compatible: false,
    timeoutMs,
    graceMs: 50,
    heapMb: 256,
    maxCollectionSize: 0,
    snapshot: () => ({ generation: 0, modules: MODULES, dataText: '{"k":"v"}' }),
  });
}

const open: PoolEvaluator[] = [];
afterAll(async () => {
  await Promise.all(open.map((p) => p.close()));
});

describe('the pool on piscina threads', () => {
  it('starts N threads at once and answers each task with its own result', async () => {
    const p = pool(2);
    open.push(p);
    expect(p.threadIds()).toHaveLength(2);
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, n) => p.evaluate(task('data.p.double', n))));
    expect(outcomes.map((o) => o.error)).toEqual(Array.from({ length: 40 }, () => undefined));
    expect(outcomes.map((o) => o.resultText)).toEqual(Array.from({ length: 40 }, (_, n) => String(n * 2)));
    expect((await p.evaluate(task('data.k'))).resultText).toBe('"v"');
  }, 60_000);

  it('replaces a thread the watchdog terminates; the stuck task fails, a later one is answered', async () => {
    const p = pool(1, 100);
    open.push(p);
    expect((await p.evaluate(task('data.p.double', 4))).resultText).toBe('8');
    const before = p.threadIds();
    // No deadline of its own (timeoutMs 0): only the watchdog (100 + 50 ms) stops it.
    const stuck = await p.evaluate({ ...task('data.p.spin'), timeoutMs: 0 });
    expect(stuck.error?.code).toBe('eval_cancel_error');
    expect((await p.evaluate(task('data.p.double', 21))).resultText).toBe('42');
    expect(p.threadIds()).toHaveLength(1);
    expect(p.threadIds()).not.toEqual(before);
  }, 60_000);

  it('does not keep the process alive once idle', () => {
    const script = [
      `import { PoolEvaluator } from ${JSON.stringify(pathToFileURL(join(root, 'server', 'engine', 'pool.ts')).href)};`,
      `const p = new PoolEvaluator({ threads: 2, v0Compatible: false, timeoutMs: 0, heapMb: 256, maxCollectionSize: 0, snapshot: () => ({ generation: 0, modules: ${JSON.stringify(MODULES)}, dataText: '{}' }) });`,
      "const o = await p.evaluate({ generation: 0, query: 'data.p.double', mode: 'value', input: { kind: 'js', js: { n: 5 } }, strictBuiltinErrors: false, pretty: false });",
      'console.log(o.resultText);',
    ].join('\n');
    const dir = mkdtempSync(join(tmpdir(), 'regent-pool-'));
    const file = join(dir, 'idle.mjs');
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8', timeout: 45_000 });
    rmSync(dir, { recursive: true, force: true });
    expect(run.error).toBeUndefined(); // no timeout: the process ended by itself, the pool never closed
    expect(run.stdout.trim()).toBe('10');
    expect(run.status).toBe(0);
  }, 60_000);
});
