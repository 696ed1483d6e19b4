// Server throughput benchmark: autocannon on loopback, POST /v1/data/rbac/allow
// (the examples/rbac policy and data) against an empty Fastify route serving the
// same request in the same process, for each pool size and once more with
// decision logging to a local log service. All servers listen at once and are
// measured in interleaved rounds (empty route, then each Regent variant, round
// after round), so a change in the machine's load hits every side alike; each
// variant's ratio is the median of its per-round ratios against the empty route of
// the same round (the range is printed too). Under load from other processes the
// throughput ratio swings; the process's CPU time per request (server and the
// autocannon client thread, which costs every side alike) is steadier, and its
// ratio (empty route's CPU per request ÷ the variant's) is printed as `cpu`.
// The server runs the compiled build in dist/ (what `regent run --server` runs;
// rebuilt first when a source is newer), or the sources through tsx with
// REGENT_BENCH_SOURCES=1 (tsx adds a naming helper call to every closure, which
// costs the request path a few percent).
// Run: npm run bench:server  (REGENT_BENCH_SECONDS per round, REGENT_BENCH_ROUNDS,
// REGENT_BENCH_CONNECTIONS, REGENT_BENCH_WORKERS, REGENT_BENCH_LOG_WORKERS;
// REGENT_BENCH_DIST=<dir> runs another build; REGENT_BENCH_BEFORE=<dir> adds the same
// variants from a second build (an older commit's) to the same interleaved rounds)
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { distIsCurrent } from './dist-freshness.js';

const seconds = Number(process.env.REGENT_BENCH_SECONDS ?? 2);
const rounds = Number(process.env.REGENT_BENCH_ROUNDS ?? 3);
const connections = Number(process.env.REGENT_BENCH_CONNECTIONS ?? 10);
const workerCounts = (process.env.REGENT_BENCH_WORKERS ?? '0,1').split(',').map(Number);
const logWorkerCounts = (process.env.REGENT_BENCH_LOG_WORKERS ?? String(workerCounts[0] ?? 0)).split(',').map(Number);
const body = JSON.stringify({ input: { user: 'bob', action: 'update', type: 'finance' } });
const root = join(fileURLToPath(import.meta.url), '..', '..');

const serverDistIsCurrent = (): boolean => distIsCurrent('server/index.js', ['compiler', 'runtime', 'server']);

/** The server modules: dist/ (rebuilt when stale; type errors do not stop tsc emitting) or the sources. */
async function serverModules(otherDist = process.env.REGENT_BENCH_DIST) {
  const fromSources = otherDist === undefined && process.env.REGENT_BENCH_SOURCES === '1';
  if (!fromSources && otherDist === undefined && !serverDistIsCurrent()) {
    spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'ignore' });
  }
  const base = fromSources ? root : (otherDist ?? join(root, 'dist'));
  const load = (p: string) => import(pathToFileURL(join(base, p + (fromSources ? '.ts' : '.js'))).href);
  const [index, config, loader, plugins] = await Promise.all([load('server/index'), load('server/config/config'), load('server/engine/loader'), load('server/plugins/index')]);
  return {
    mode: fromSources ? 'sources (tsx)' : (otherDist ?? 'dist'),
    buildServer: index.buildServer as typeof import('../server/index.js').buildServer,
    loadConfig: config.loadConfig as typeof import('../server/config/config.js').loadConfig,
    loadPaths: loader.loadPaths as typeof import('../server/engine/loader.js').loadPaths,
    startPlugins: plugins.startPlugins as typeof import('../server/plugins/index.js').startPlugins,
  };
}

interface Target {
  name: string;
  url: string;
  app: FastifyInstance;
  rps: number[];
  p99: number[];
  /** Process CPU µs per request, per round. */
  cpu: number[];
}

async function listen(name: string, app: FastifyInstance, path: string): Promise<Target> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { name, app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}${path}`, rps: [], p99: [], cpu: [] };
}

async function measure(t: Target, duration: number, record = true): Promise<void> {
  const before = process.cpuUsage();
  const r = await autocannon({ url: t.url, method: 'POST', body, headers: { 'content-type': 'application/json' }, connections, pipelining: 1, duration, workers: 1 });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${t.name}: ${r.non2xx} non-2xx responses, ${r.errors} errors`);
  const used = process.cpuUsage(before);
  if (!record) return;
  t.cpu.push((used.user + used.system) / (r.requests as { total?: number }).total!);
  t.rps.push(r.requests.average);
  t.p99.push(r.latency.p99);
}

function emptyApp(): FastifyInstance {
  const app = Fastify();
  app.post('/empty', () => ({}));
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

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

type Modules = Awaited<ReturnType<typeof serverModules>>;
const mods = await serverModules();
const before = process.env.REGENT_BENCH_BEFORE ? await serverModules(process.env.REGENT_BENCH_BEFORE) : undefined;

async function regentApp(workers: number, configText = '', m: Modules = mods): Promise<FastifyInstance> {
  const config = m.loadConfig({ version: 'bench', text: configText });
  const app = await m.buildServer({ config, workers });
  await m.loadPaths(app.regent.engine, app.regent.host, [join(root, 'examples', 'rbac')]);
  if (configText) app.regent.attachPlugins(await m.startPlugins(config.document, app.regent.host, {}));
  return app;
}

const sink = await logSink();
// Decision logging uploads to the local service every 1–2 s (as OPA's decision_logs plugin).
const logsConfig = JSON.stringify({ services: { logs: { url: sink.url } }, decision_logs: { service: 'logs', reporting: { min_delay_seconds: 1, max_delay_seconds: 2 } } });
const baseline = await listen('empty fastify route', emptyApp(), '/empty');
const targets: Target[] = [];
for (const workers of workerCounts) targets.push(await listen(`POST /v1/data/rbac/allow (workers: ${workers})`, await regentApp(workers), '/v1/data/rbac/allow'));
for (const workers of logWorkerCounts) targets.push(await listen(`  ... with decision logs (workers: ${workers})`, await regentApp(workers, logsConfig), '/v1/data/rbac/allow'));
if (before) {
  for (const workers of workerCounts) targets.push(await listen(`before: POST /v1/data/rbac/allow (workers: ${workers})`, await regentApp(workers, '', before), '/v1/data/rbac/allow'));
  for (const workers of logWorkerCounts) targets.push(await listen(`before:  ... with decision logs (workers: ${workers})`, await regentApp(workers, logsConfig, before), '/v1/data/rbac/allow'));
}
try {
  for (const t of [baseline, ...targets]) await measure(t, 1, false); // warm-up
  for (let r = 0; r < rounds; r++) for (const t of [baseline, ...targets]) await measure(t, seconds);
} finally {
  for (const t of [baseline, ...targets]) await t.app.close();
  await sink.close();
}
console.log(`loopback, ${connections} connections, ${rounds} interleaved rounds of ${seconds} s, no pipelining, server from ${mods.mode}${before ? `, before: ${before.mode}` : ''}`);
for (const t of [baseline, ...targets]) {
  const ratios = t.rps.map((x, i) => x / baseline.rps[i]!);
  const cpuRatios = t.cpu.map((x, i) => baseline.cpu[i]! / x);
  const ratio = t === baseline ? '' : `  ratio ${median(ratios).toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}), cpu ${median(cpuRatios).toFixed(2)} (${Math.min(...cpuRatios).toFixed(2)}–${Math.max(...cpuRatios).toFixed(2)})`;
  console.log(`${t.name.padEnd(44)} ${median(t.rps).toFixed(0).padStart(7)} req/s  p99 ${String(median(t.p99)).padStart(3)} ms  ${median(t.cpu).toFixed(1).padStart(5)} µs cpu/req${ratio}`);
}
