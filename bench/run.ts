// `npm run bench`: every in-repo workload that has a same-run baseline, as one table
// of ratios, also written as JSON to bench/results/latest.json. Workloads: the RBAC
// decision in process (decision path and ad-hoc query, against a hand-written JS
// function), Kubernetes admission (gatekeeper templates against hand-written JS), the
// ACI policy's nine entrypoints, a 50 MB data document (lookup and full scan, p50/p99),
// rule indexing (1 to 10,000 rules; also OPA's VirtualDocs), each also on the Wasm back
// end, OPA's REST authz benchmark (10 to 1,000 regex paths, against hand-written JS), a
// group-by comprehension (OPA's comprehension indexing, against hand-written JS),
// and CLI start (whole processes against `node -e 0`). `--only rbac,admission,aci,large-data,indexing,restauthz,groupby,cli`
// runs a subset (then bench/results/latest.json holds only those rows). With `--server`
// (or REGENT_BENCH_SERVER=1) it also runs bench/server.bench.ts (autocannon against
// an empty Fastify route, minutes) and takes its ratios. The memory and filters
// benchmarks run on their own (`npm run bench:memory`, `npm run bench:filters`).
// Timings never gate CI: this prints and records, it does not fail on a number.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runRbacBench } from './rbac.bench.js';
import { runCliStartBench } from './cli-start.bench.js';
import { runAdmissionBench } from './admission.bench.js';
import { runAciBench } from './aci.bench.js';
import { runLargeDataBench } from './large-data.bench.js';
import { runIndexingBench } from './indexing.bench.js';
import { runRestAuthzBench } from './restauthz.bench.js';
import { runGroupByBench } from './groupby.bench.js';
import type { Row } from './timing.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export type { Row };

function serverRows(): Row[] {
  const out = execFileSync(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'bench', 'server.bench.ts')], { cwd: root, encoding: 'utf8' });
  const lines = out.split('\n');
  const base = lines.find((l) => l.startsWith('empty fastify route'));
  const baseRps = Number(/(\d+) req\/s/.exec(base ?? '')?.[1] ?? NaN);
  return lines
    .filter((l) => l.includes('ratio'))
    .map((l) => ({
      workload: `server: ${l.slice(0, 44).trim()}`,
      baseline: 'empty Fastify route',
      value: Number(/(\d+) req\/s/.exec(l)?.[1] ?? NaN),
      unit: 'req/s',
      baselineValue: baseRps,
      ratio: Number(/ratio ([\d.]+)/.exec(l)?.[1] ?? NaN),
      target: l.includes('decision logs') ? '≥ 0.7x' : '≥ 0.9x',
    }));
}

const onlyArg = process.argv.indexOf('--only');
const only = onlyArg >= 0 ? new Set(process.argv[onlyArg + 1]!.split(',')) : undefined;
const runs = (name: string): boolean => only === undefined || only.has(name);
const notes: string[] = [];
const log = (s: string): void => {
  notes.push(s);
  console.log(s);
};

const startLoad = loadavg()[0]!;
const rows: Row[] = [];
if (runs('rbac')) {
  const rbac = await runRbacBench();
  rows.push(
    { workload: 'rbac allow, decision (in process)', baseline: 'hand-written JS', value: rbac.regentNs, unit: 'ns/decision', baselineValue: rbac.baselineNs, ratio: rbac.ratio, target: '≤ 1.5x' },
    { workload: 'rbac allow, ad-hoc query (in process)', baseline: 'hand-written JS', value: rbac.queryNs, unit: 'ns/decision', baselineValue: rbac.baselineNs, ratio: rbac.queryRatio, target: '—' },
    { workload: 'rbac allow, 64 decisions per timed call', baseline: 'hand-written JS', value: rbac.batchNs, unit: 'ns/decision', baselineValue: rbac.batchBaselineNs, ratio: rbac.batchRatio, target: '—' },
  );
  if ('ns' in rbac.wasm) rows.push({ workload: 'rbac allow, Wasm', baseline: 'hand-written JS', value: rbac.wasm.ns, unit: 'ns/decision', baselineValue: rbac.baselineNs, ratio: rbac.wasm.ratio, target: '—' });
  else log(`rbac: no Wasm row (${rbac.wasm.skipped})`);
}
if (runs('admission')) rows.push(...(await runAdmissionBench({ log })));
if (runs('aci')) rows.push(...(await runAciBench({ log })));
if (runs('large-data')) rows.push(...(await runLargeDataBench({ log })));
if (runs('indexing')) rows.push(...(await runIndexingBench({ log })));
if (runs('restauthz')) rows.push(...(await runRestAuthzBench({ log })));
if (runs('groupby')) rows.push(...(await runGroupByBench({ log })));
if (runs('cli')) {
  const cli = runCliStartBench();
  for (const c of cli.commands) {
    rows.push({ workload: `CLI start: ${c.name} (${cli.mode})`, baseline: 'node -e 0', value: c.ms, unit: 'ms', baselineValue: cli.nodeMs, ratio: c.ratio, target: '≤ 3x' });
  }
}
if (process.argv.includes('--server') || process.env.REGENT_BENCH_SERVER === '1') rows.push(...serverRows());

const fmt = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const width = Math.max(...rows.map((r) => r.workload.length));
console.log(`${'workload'.padEnd(width)}  ${'regent'.padStart(10)}  ${'baseline'.padStart(10)}  unit         ratio   target  (baseline)`);
for (const r of rows) {
  console.log(`${r.workload.padEnd(width)}  ${fmt(r.value).padStart(10)}  ${fmt(r.baselineValue).padStart(10)}  ${r.unit.padEnd(11)} ${r.ratio.toFixed(2).padStart(6)}x  ${r.target.padEnd(6)}  (${r.baseline})`);
}
const endLoad = loadavg()[0]!;
console.log(`load average ${startLoad.toFixed(2)} → ${endLoad.toFixed(2)} on ${cpus().length} cores; ratios are same-run, absolute times are not comparable across loads`);

const result = {
  date: new Date().toISOString(),
  node: process.version,
  cores: cpus().length,
  loadAverage: { start: Number(startLoad.toFixed(2)), end: Number(endLoad.toFixed(2)) },
  ...(only ? { only: [...only] } : {}),
  rows,
  notes,
};
mkdirSync(join(root, 'bench', 'results'), { recursive: true });
writeFileSync(join(root, 'bench', 'results', 'latest.json'), JSON.stringify(result, null, 2) + '\n');
console.log('written to bench/results/latest.json');
