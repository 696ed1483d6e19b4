// Memory benchmark for large data writes: starts `regent run --server` (default
// flags: --workers auto) as a child process with the examples/rbac policy, PUTs a
// generated 50 MB JSON document of objects and strings (bench/memory-data.ts) to
// /v1/data/big, and prints the server's resident-memory growth divided by the JSON
// size. Then it PUTs a second 50 MB document (sent from a worker thread, so that
// writing it does not delay the probes) while a client sends one RBAC decision at a
// time, and prints the decision latency p50/p99/max during that PUT.
// Targets (issue 10): memory ≤ 5× the JSON size, p99 < 50 ms during the PUT.
// Run: npm run bench:memory   (REGENT_BENCH_MB=50, REGENT_BENCH_WORKERS=auto)
// Diagnostics: BENCH_FLAGS='--trace-gc' (node flags of the server), BENCH_OUT=1 (its
// stdout), BENCH_TRACE=1 (probes over 20 ms with their start time, for a timeline).
// Linux only (reads /proc/<pid>/status). Do not run while the machine is busy.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { generateDocumentText } from './memory-data.js';

const megabytes = Number(process.env.REGENT_BENCH_MB ?? 50);
const workers = process.env.REGENT_BENCH_WORKERS ?? 'auto';
const root = join(fileURLToPath(import.meta.url), '..', '..');
const decision = JSON.stringify({ input: { user: 'bob', action: 'update', type: 'finance' } });

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Resident memory of a process (all its threads), in bytes. */
function rss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) * 1024;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** PUT `body` to `url` from a worker thread; resolves with the reply's status. */
function putFromThread(url: string, body: Buffer): Promise<number> {
  const code = `const { parentPort, workerData } = require('node:worker_threads');
    fetch(workerData.url, { method: 'PUT', body: workerData.body }).then(async (r) => { await r.text(); parentPort.postMessage(r.status); });`;
  const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  const worker = new Worker(code, { eval: true, workerData: { url, body: bytes }, transferList: [bytes.buffer as ArrayBuffer] });
  return new Promise((resolve, reject) => {
    worker.once('message', (status: number) => {
      void worker.terminate();
      resolve(status);
    });
    worker.once('error', reject);
  });
}

async function main(): Promise<void> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, [...(process.env.BENCH_FLAGS ? process.env.BENCH_FLAGS.split(' ') : []), join(root, 'bin', 'regent.js'), 'run', '--server', '--addr', `127.0.0.1:${port}`, '--workers', workers, join(root, 'examples', 'rbac')], {
    stdio: ['ignore', process.env.BENCH_OUT ? 'inherit' : 'ignore', 'inherit'],
  });
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(url + '/health')).ok) break;
      } catch {
        if (i > 300) throw new Error('server did not start');
      }
      await sleep(100);
    }
    const first = Buffer.from(generateDocumentText(megabytes * 1e6, 1));
    const second = Buffer.from(generateDocumentText(megabytes * 1e6, 2));
    const size = first.byteLength;
    const probe = async (): Promise<number> => {
      const t = performance.now();
      const r = await fetch(url + '/v1/data/rbac/allow', { method: 'POST', body: decision, headers: { 'content-type': 'application/json' } });
      const body = await r.text();
      if (r.status !== 200 || !body.includes('"result":true')) throw new Error(`decision failed: ${r.status} ${body}`);
      const d = performance.now() - t;
      if (process.env.BENCH_TRACE && d > 20) console.error(`PROBE ${(performance.timeOrigin + t).toFixed(1)} ${d.toFixed(1)}`);
      return d;
    };
    for (let i = 0; i < 300; i++) await probe();
    await sleep(1000);
    const before = rss(server.pid!);

    let t = performance.now();
    let r = await fetch(url + '/v1/data/big', { method: 'PUT', body: first });
    if (r.status !== 204) throw new Error(`PUT failed: ${r.status} ${await r.text()}`);
    const firstMs = performance.now() - t;
    await sleep(3000);
    const after = rss(server.pid!);
    const ratio = (after - before) / size;

    const latencies: number[] = [];
    let done = false;
    t = performance.now();
    if (process.env.BENCH_TRACE) console.error(`PUT2 start ${(performance.timeOrigin + t).toFixed(1)}`);
    // The PUT is sent from another thread, so that writing its 50 MB does not delay
    // this thread's probes (their latency is the server's, not the client's).
    const put = putFromThread(url + '/v1/data/big', second).then((status) => {
      done = true;
      return status;
    });
    while (!done) {
      latencies.push(await probe());
      await sleep(5);
    }
    const status = await put;
    if (status !== 204) throw new Error(`second PUT failed: ${status}`);
    const secondMs = performance.now() - t;
    const check = await (await fetch(url + '/v1/data/big/users/user-0000001/email')).json();
    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 0.5);
    const p99 = percentile(latencies, 0.99);

    console.log(`document: ${(size / 1e6).toFixed(1)} MB JSON (objects and strings), workers: ${workers}`);
    console.log(`first PUT: ${firstMs.toFixed(0)} ms; RSS ${(before / 1e6).toFixed(0)} MB → ${(after / 1e6).toFixed(0)} MB`);
    console.log(`memory: RSS growth / JSON size = ${ratio.toFixed(2)}x  (target ≤ 5x)`);
    console.log(`second PUT: ${secondMs.toFixed(0)} ms; ${latencies.length} decisions during it: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${latencies[latencies.length - 1]!.toFixed(1)} ms  (target p99 < 50 ms)`);
    console.log(`read back: ${JSON.stringify(check)}; RSS now ${(rss(server.pid!) / 1e6).toFixed(0)} MB`);
  } finally {
    server.kill();
  }
}

await main();
