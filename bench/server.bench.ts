// Server throughput benchmark: autocannon on loopback, POST /v1/data/rbac/allow
// (the examples/rbac policy and data) against an empty Fastify route serving the
// same request in the same process, for each pool size and once more with
// decision logging to a local log service. All servers listen at once and are
// measured in interleaved rounds (empty route, then each Regent variant, round
// after round), so a change in the machine's load hits every side alike; each
// variant's ratio is the median of its per-round ratios against the empty route of
// the same round (the range is printed too). Each round starts one server later in
// the list than the last (the order rotates), so no variant is always measured right
// after the same one (a build measured second after another came out up to 20%
// cheaper than the same build measured first, at load average 10). Under load from
// other processes the throughput ratio swings; the process's CPU time per request
// (server and the autocannon client thread, which costs every side alike) is
// steadier, and its ratio (empty route's CPU per request ÷ the variant's) is printed
// as `cpu`.
// The server runs the compiled build in dist/ (what `regent run --server` runs;
// rebuilt first when a source is newer), or the sources through tsx with
// REGENT_BENCH_SOURCES=1 (tsx adds a naming helper call to every closure, which
// costs the request path a few percent).
// Run: npm run bench:server  (REGENT_BENCH_SECONDS per round, REGENT_BENCH_ROUNDS,
// REGENT_BENCH_CONNECTIONS, REGENT_BENCH_WORKERS, REGENT_BENCH_LOG_WORKERS, `none` for
// no decision-log variant; REGENT_BENCH_DIST=<dir> runs another build;
// REGENT_BENCH_BEFORE=<dir> adds the same variants from a second build (an older
// commit's) to the same interleaved rounds).
// REGENT_BENCH_PROCESS=1 runs every server (the empty route too) in a child process of
// its own and reports that process's CPU per request, without the client's: under a
// heavy machine load, where throughput ratios swing by ±0.5 between rounds, this is the
// figure that still compares (the ratio is the empty route's server CPU per request ÷
// the variant's).
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { distIsCurrent } from './dist-freshness.js';

const seconds = Number(process.env.REGENT_BENCH_SECONDS ?? 2);
const rounds = Number(process.env.REGENT_BENCH_ROUNDS ?? 3);
const connections = Number(process.env.REGENT_BENCH_CONNECTIONS ?? 10);
const workerCounts = (process.env.REGENT_BENCH_WORKERS ?? '0,1').split(',').map(Number);
const logWorkersText = process.env.REGENT_BENCH_LOG_WORKERS ?? String(workerCounts[0] ?? 0);
const logWorkerCounts = logWorkersText === 'none' ? [] : logWorkersText.split(',').map(Number);
const body = JSON.stringify({ input: { user: 'bob', action: 'update', type: 'finance' } });
const root = join(fileURLToPath(import.meta.url), '..', '..');

const serverDistIsCurrent = (): boolean => distIsCurrent('server/index.js', ['compiler', 'runtime', 'server']);

/** The server modules: dist/ (rebuilt when stale; type errors do not stop tsc emitting) or the sources. */
async function serverModules(otherDist = process.env.REGENT_BENCH_DIST) {
  const fromSources = otherDist === undefined && process.env.REGENT_BENCH_SOURCES === '1';
  // A child of REGENT_BENCH_PROCESS=1 runs what its parent checked (or built).
  if (!fromSources && otherDist === undefined && process.env.REGENT_BENCH_CHILD === undefined && !serverDistIsCurrent()) {
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
  /** The app in this process, or the child process serving it (REGENT_BENCH_PROCESS=1). */
  app?: FastifyInstance;
  child?: ChildProcess;
  rps: number[];
  p99: number[];
  /** Process CPU µs per request, per round. */
  cpu: number[];
}

async function listen(name: string, app: FastifyInstance, path: string): Promise<Target> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { name, app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}${path}`, rps: [], p99: [], cpu: [] };
}

const nextMessage = <T>(child: ChildProcess): Promise<T> => new Promise((resolve) => child.once('message', (m) => resolve(m as T)));

async function measure(t: Target, duration: number, record = true): Promise<void> {
  const before = process.cpuUsage();
  t.child?.send('start');
  const r = await autocannon({ url: t.url, method: 'POST', body, headers: { 'content-type': 'application/json' }, connections, pipelining: 1, duration, workers: 1 });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${t.name}: ${r.non2xx} non-2xx responses, ${r.errors} errors`);
  const used = process.cpuUsage(before);
  let cpu = used.user + used.system;
  if (t.child) {
    const stopped = nextMessage<{ cpu: number }>(t.child);
    t.child.send('stop');
    cpu = (await stopped).cpu;
  }
  if (!record) return;
  t.cpu.push(cpu / (r.requests as { total?: number }).total!);
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
const childSpec = process.env.REGENT_BENCH_CHILD;
const separate = process.env.REGENT_BENCH_PROCESS === '1';
const mods = await serverModules();
const before = process.env.REGENT_BENCH_BEFORE ? await serverModules(process.env.REGENT_BENCH_BEFORE) : undefined;

async function regentApp(workers: number, configText = '', m: Modules = mods): Promise<FastifyInstance> {
  const config = m.loadConfig({ version: 'bench', text: configText });
  const app = await m.buildServer({ config, workers });
  await m.loadPaths(app.regent.engine, app.regent.host, [join(root, 'examples', 'rbac')]);
  if (configText) app.regent.attachPlugins(await m.startPlugins(config.document, app.regent.host, {}));
  return app;
}

/** One server to measure: the empty route, or Regent (this build or the `before` one), with or without decision logs. */
interface ServerSpec {
  name: string;
  kind: 'empty' | 'regent';
  workers?: number;
  /** The decision-logs configuration (uploads to the sink). */
  logs?: string;
  before?: boolean;
}

async function specApp(spec: ServerSpec): Promise<{ app: FastifyInstance; path: string }> {
  if (spec.kind === 'empty') return { app: emptyApp(), path: '/empty' };
  return { app: await regentApp(spec.workers ?? 0, spec.logs ?? '', spec.before ? before : mods), path: '/v1/data/rbac/allow' };
}

/** REGENT_BENCH_PROCESS=1: this file run as the child serving one spec, reporting its own CPU time between 'start' and 'stop'. */
async function serveChild(spec: ServerSpec): Promise<void> {
  const { app, path } = await specApp(spec);
  await app.listen({ host: '127.0.0.1', port: 0 });
  let start = process.cpuUsage();
  process.on('message', (m) => {
    if (m === 'start') start = process.cpuUsage();
    else if (m === 'stop') {
      const used = process.cpuUsage(start);
      process.send!({ cpu: used.user + used.system });
    } else if (m === 'close') void app.close().then(() => process.exit(0));
  });
  process.send!({ port: (app.server.address() as { port: number }).port, path });
}

async function start(spec: ServerSpec): Promise<Target> {
  if (!separate) {
    const { app, path } = await specApp(spec);
    return listen(spec.name, app, path);
  }
  const child = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, REGENT_BENCH_CHILD: JSON.stringify(spec) }, execArgv: ['--import', 'tsx'] });
  const { port, path } = await nextMessage<{ port: number; path: string }>(child);
  return { name: spec.name, child, url: `http://127.0.0.1:${port}${path}`, rps: [], p99: [], cpu: [] };
}

async function stop(t: Target): Promise<void> {
  if (t.app) return t.app.close();
  const exited = new Promise((resolve) => t.child!.once('exit', resolve));
  t.child!.send('close');
  await exited;
}

async function main(): Promise<void> {
  const sink = await logSink();
  // Decision logging uploads to the local service every 1–2 s (as OPA's decision_logs plugin).
  const logs = JSON.stringify({ services: { logs: { url: sink.url } }, decision_logs: { service: 'logs', reporting: { min_delay_seconds: 1, max_delay_seconds: 2 } } });
  const specs: ServerSpec[] = [];
  for (const b of before ? [false, true] : [false]) {
    const tag = b ? 'before: ' : '';
    for (const workers of workerCounts) specs.push({ name: `${tag}POST /v1/data/rbac/allow (workers: ${workers})`, kind: 'regent', workers, before: b });
    for (const workers of logWorkerCounts) specs.push({ name: `${tag}  ... with decision logs (workers: ${workers})`, kind: 'regent', workers, logs, before: b });
  }
  const baseline = await start({ name: 'empty fastify route', kind: 'empty' });
  const targets: Target[] = [];
  for (const spec of specs) targets.push(await start(spec));
  try {
    for (const t of [baseline, ...targets]) await measure(t, 1, false); // warm-up
    const all = [baseline, ...targets];
    for (let r = 0; r < rounds; r++) for (let i = 0; i < all.length; i++) await measure(all[(r + i) % all.length]!, seconds);
  } finally {
    for (const t of [baseline, ...targets]) await stop(t);
    await sink.close();
  }
  const where = separate ? 'each server in its own process, cpu = that process only' : 'servers and client in one process';
  console.log(`loopback, ${connections} connections, ${rounds} interleaved rounds of ${seconds} s, no pipelining, ${where}, server from ${mods.mode}${before ? `, before: ${before.mode}` : ''}`);
  for (const t of [baseline, ...targets]) {
    const ratios = t.rps.map((x, i) => x / baseline.rps[i]!);
    const cpuRatios = t.cpu.map((x, i) => baseline.cpu[i]! / x);
    const ratio = t === baseline ? '' : `  ratio ${median(ratios).toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}), cpu ${median(cpuRatios).toFixed(2)} (${Math.min(...cpuRatios).toFixed(2)}–${Math.max(...cpuRatios).toFixed(2)})`;
    console.log(`${t.name.padEnd(44)} ${median(t.rps).toFixed(0).padStart(7)} req/s  p99 ${String(median(t.p99)).padStart(3)} ms  ${median(t.cpu).toFixed(1).padStart(5)} µs cpu/req${ratio}`);
  }
}

if (childSpec !== undefined) await serveChild(JSON.parse(childSpec) as ServerSpec);
else await main();
