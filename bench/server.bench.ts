// Server throughput benchmark: autocannon on loopback, POST /v1/data/rbac/allow
// (the examples/rbac policy and data) against an empty Fastify route serving the
// same request in the same process, 5 s per run after a 1 s warm-up, for each pool
// size and once more with decision logging to a local log service. Prints
// requests/s and p99 latency of each and the ratio (target ≥ 0.6).
// Run: npm run bench:server  (REGENT_BENCH_SECONDS, REGENT_BENCH_CONNECTIONS, REGENT_BENCH_WORKERS)
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer } from '../server/index.js';
import { loadConfig } from '../server/config/config.js';
import { loadPaths } from '../server/engine/loader.js';
import { startPlugins } from '../server/plugins/index.js';
import { createServer } from 'node:http';

const seconds = Number(process.env.REGENT_BENCH_SECONDS ?? 5);
const connections = Number(process.env.REGENT_BENCH_CONNECTIONS ?? 10);
const workerCounts = (process.env.REGENT_BENCH_WORKERS ?? '0,1').split(',').map(Number);
const body = JSON.stringify({ input: { user: 'bob', action: 'update', type: 'finance' } });
const root = join(fileURLToPath(import.meta.url), '..', '..');

interface Result {
  name: string;
  rps: number;
  p99: number;
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

async function measure(name: string, url: string, duration: number): Promise<Result> {
  const r = await autocannon({ url, method: 'POST', body, headers: { 'content-type': 'application/json' }, connections, pipelining: 1, duration, workers: 1 });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx responses, ${r.errors} errors`);
  return { name, rps: r.requests.average, p99: r.latency.p99 };
}

async function run(name: string, app: FastifyInstance, path: string): Promise<Result> {
  const base = await listen(app);
  try {
    await measure(name, base + path, 1);
    return await measure(name, base + path, seconds);
  } finally {
    await app.close();
  }
}

function emptyApp(): FastifyInstance {
  const app = Fastify();
  app.post('/empty', () => ({}));
  return app;
}

async function regentApp(workers: number, configText = ''): Promise<FastifyInstance> {
  const config = loadConfig({ version: 'bench', text: configText });
  const app = await buildServer({ config, workers });
  await loadPaths(app.regent.engine, app.regent.host, [join(root, 'examples', 'rbac')]);
  if (configText) app.regent.attachPlugins(await startPlugins(config.document, app.regent.host, {}));
  return app;
}

/** A log service that accepts decision-log uploads (gzip JSON) and discards them. */
async function logSink(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

const baseline = await run('empty fastify route', emptyApp(), '/empty');
const results: Result[] = [];
for (const workers of workerCounts) {
  results.push(await run(`POST /v1/data/rbac/allow (workers: ${workers})`, await regentApp(workers), '/v1/data/rbac/allow'));
}
// Decision logging on, uploading to a local service every 1–2 s (as OPA's decision_logs plugin).
const sink = await logSink();
const logsConfig = JSON.stringify({ services: { logs: { url: sink.url } }, decision_logs: { service: 'logs', reporting: { min_delay_seconds: 1, max_delay_seconds: 2 } } });
results.push(await run(`  ... with decision logs (workers: ${workerCounts[0]})`, await regentApp(workerCounts[0]!, logsConfig), '/v1/data/rbac/allow'));
await sink.close();
console.log(`loopback, ${connections} connections, ${seconds} s per run, no pipelining`);
for (const r of [baseline, ...results]) {
  const ratio = r === baseline ? '' : `  ratio ${(r.rps / baseline.rps).toFixed(2)}`;
  console.log(`${r.name.padEnd(44)} ${r.rps.toFixed(0).padStart(7)} req/s  p99 ${String(r.p99).padStart(3)} ms${ratio}`);
}
