// Data-filter benchmark (OPA's bench_filters.rego with `compile:` annotations and
// roles.json, the caesar/acmecorp input of OPA's handler tests):
//   1. filter compilation in process, against a full decision on the same rule
//      (`data.filters.include` with a ticket row as input, as the Data API
//      evaluates it), printed as ratios:
//        cold: annotations extracted, constraints built, mask rule planned, then
//              mask evaluation, partial evaluation, checks and SQL translation;
//        warm: the prepared filter from the cache (what repeated requests do),
//              with the partial-evaluation query planned once (cachedPartial),
//              and with it re-planned per call (preparePartial each time), as a ratio;
//   2. HTTP throughput of POST /v1/compile/filters/include (postgresql) against an
//      empty Fastify route in the same process, autocannon on loopback.
// Run: npm run bench:filters  (REGENT_BENCH_SECONDS: HTTP run length, default 5;
// REGENT_BENCH_MS: in-process measuring time per case, default 2000)
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import { compile, filters as f, preparePartial } from '../compiler/index.js';
import { fromJS } from '../runtime/index.js';
import { buildServer } from '../server/index.js';
import { loadConfig } from '../server/config/config.js';
import { partialEvaluator } from '../server/api/compile-filters.js';
import { benchFiltersPolicy, benchRoles } from '../test/filters/helpers.js';

const seconds = Number(process.env.REGENT_BENCH_SECONDS ?? 5);
const measureMs = Number(process.env.REGENT_BENCH_MS ?? 2000);
const connections = Number(process.env.REGENT_BENCH_CONNECTIONS ?? 10);

const partialEval = partialEvaluator();
if (!partialEval) {
  console.error('bench:filters needs the partial evaluator (compiler/partial), which this build does not have.');
  process.exit(1);
}

const text = benchFiltersPolicy();
const roles = benchRoles();
const input = { user: 'caesar', tenant: { id: 2, name: 'acmecorp' } };
const policy = compile([{ file: 'bench_filters.rego', text }]);
const data = fromJS({ roles } as never);
const inputValue = fromJS(input as never);
const path = ['filters', 'include'];
const targets = [{ target: 'sql', dialect: 'postgresql' }];

/** ns per operation of `fn`, run for about `measureMs` after a short warm-up. */
function nsPerOp(fn: () => unknown): number {
  const warm = Date.now() + Math.min(200, measureMs / 4);
  while (Date.now() < warm) fn();
  let n = 0;
  const start = process.hrtime.bigint();
  const end = Date.now() + measureMs;
  while (Date.now() < end) {
    for (let i = 0; i < 20; i++) fn();
    n += 20;
  }
  return Number(process.hrtime.bigint() - start) / n;
}

/** ns per operation of `a` and `b`, measured in alternating batches (fair under a changing machine load). */
function pairNsPerOp(a: () => unknown, b: () => unknown): [number, number] {
  const warmUntil = Date.now() + Math.min(200, measureMs / 4);
  while (Date.now() < warmUntil) (a(), b());
  const ns = [0, 0];
  const ops = [0, 0];
  const end = Date.now() + 2 * measureMs;
  while (Date.now() < end) {
    [a, b].forEach((fn, i) => {
      const t = process.hrtime.bigint();
      for (let j = 0; j < 20; j++) fn();
      ns[i]! += Number(process.hrtime.bigint() - t);
      ops[i]! += 20;
    });
  }
  return [ns[0]! / ops[0]!, ns[1]! / ops[1]!];
}

function cold(): unknown {
  const ann = f.filterAnnotations([...policy.modules], path); // a fresh module list: no annotation-set cache
  const prepared = f.prepareFilter(policy, { path, targets, unknowns: ann.unknowns, ...(ann.maskRule ? { maskRule: ann.maskRule } : {}) });
  return f.runFilter(policy, prepared, { input: inputValue, data, partialEval: partialEval! });
}

const ann = f.filterAnnotations(policy.modules, path);
const prepared = f.prepareFilter(policy, { path, targets, unknowns: ann.unknowns, ...(ann.maskRule ? { maskRule: ann.maskRule } : {}) });
const warm = (): unknown => f.runFilter(policy, prepared, { input: inputValue, data, partialEval: partialEval! });
// The same, but the partial-evaluation query re-planned on every call (what partialEval
// did before planned queries were cached per policy/query/unknowns: preparePartial).
const replanning: f.PartialEvalFn = (p, q, o) => preparePartial(p, q, o).eval(o);
const warmReplanned = (): unknown => f.runFilter(policy, prepared, { input: inputValue, data, partialEval: replanning });

const sql = (warm() as f.FilterRun).filters[0]!.query;
console.log(`filter: ${JSON.stringify(sql)}`);

const decide = policy.prepareDecision(path);
const rowInput = fromJS({ ...input, tickets: { tenant: 2, assignee: null, resolved: false }, users: { name: 'caesar' } } as never);
const decision = (): unknown => decide({ input: rowInput, data });
if (decision() !== true) throw new Error('the decision row should be included');

const dNs = nsPerOp(decision);
const coldNs = nsPerOp(cold);
const [warmNs, replannedNs] = pairNsPerOp(warm, warmReplanned);
const us = (ns: number) => `${(ns / 1000).toFixed(1)} µs`;
console.log(`\nin process (${measureMs} ms per case)`);
console.log(`  decision data.filters.include (one row)   ${us(dNs)}`);
console.log(`  filter compile, cold                      ${us(coldNs)}   ${(coldNs / dNs).toFixed(1)}× a decision`);
console.log(`  filter compile, warm (prepared cache)     ${us(warmNs)}   ${(warmNs / dNs).toFixed(1)}× a decision`);
console.log(`  filter compile, warm, PE query re-planned ${us(replannedNs)}   ${(replannedNs / dNs).toFixed(1)}× a decision   (cached plan: ${(replannedNs / warmNs).toFixed(2)}× faster; the two measured in alternating batches)`);

// ---------------------------------------------------------------- HTTP

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

async function measure(name: string, url: string, body: string, headers: Record<string, string>, duration: number): Promise<{ rps: number; p99: number }> {
  const r = await autocannon({ url, method: 'POST', body, headers, connections, pipelining: 1, duration, workers: 1 });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx responses, ${r.errors} errors`);
  return { rps: r.requests.average, p99: r.latency.p99 };
}

async function run(name: string, app: FastifyInstance, path: string, body: string, headers: Record<string, string>) {
  const base = await listen(app);
  try {
    await measure(name, base + path, body, headers, 1);
    return await measure(name, base + path, body, headers, seconds);
  } finally {
    await app.close();
  }
}

const empty = Fastify();
empty.post('/empty', () => ({}));
const body = JSON.stringify({ input });
const json = { 'content-type': 'application/json' };
const baseline = await run('empty', empty, '/empty', body, json);

const app = await buildServer({ config: loadConfig({ version: 'bench', text: '' }), workers: 0 });
await app.regent.engine.putPolicy('bench_filters.rego', text);
await app.regent.engine.writeData([['roles']], (txn) => txn.write('add', ['roles'], fromJS(roles as never)));
const filters = await run('filters', app, '/v1/compile/filters/include', body, { ...json, accept: 'application/vnd.opa.sql.postgresql+json' });

console.log(`\nHTTP (${seconds} s, ${connections} connections)`);
console.log(`  empty fastify route                       ${baseline.rps.toFixed(0)} req/s  p99 ${baseline.p99} ms`);
console.log(`  POST /v1/compile/filters/include (pg)     ${filters.rps.toFixed(0)} req/s  p99 ${filters.p99} ms   ${(filters.rps / baseline.rps).toFixed(2)}× the empty route`);
