// `npm run bench`: every in-repo workload that has a same-run baseline, as one table
// of ratios, also written as JSON to bench/results/latest.json. Workloads: the RBAC
// decision in process (decision path and ad-hoc query, against a hand-written JS
// function) and CLI start (whole processes against `node -e 0`). With `--server`
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

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface Row {
  workload: string;
  /** What the ratio is measured against. */
  baseline: string;
  /** Regent's figure and its unit (ns/decision, ms, req/s). */
  value: number;
  unit: string;
  baselineValue: number;
  ratio: number;
  /** The goal from issue 14, as text (`≤ 1.5x`). */
  target: string;
}

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

const startLoad = loadavg()[0]!;
const rows: Row[] = [];
const rbac = await runRbacBench();
rows.push(
  { workload: 'rbac allow, decision (in process)', baseline: 'hand-written JS', value: rbac.regentNs, unit: 'ns/decision', baselineValue: rbac.baselineNs, ratio: rbac.ratio, target: '≤ 1.5x' },
  { workload: 'rbac allow, ad-hoc query (in process)', baseline: 'hand-written JS', value: rbac.queryNs, unit: 'ns/decision', baselineValue: rbac.baselineNs, ratio: rbac.queryRatio, target: '—' },
);
const cli = runCliStartBench();
for (const c of cli.commands) {
  rows.push({ workload: `CLI start: ${c.name} (${cli.mode})`, baseline: 'node -e 0', value: c.ms, unit: 'ms', baselineValue: cli.nodeMs, ratio: c.ratio, target: '≤ 3x' });
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
  rows,
};
mkdirSync(join(root, 'bench', 'results'), { recursive: true });
writeFileSync(join(root, 'bench', 'results', 'latest.json'), JSON.stringify(result, null, 2) + '\n');
console.log('written to bench/results/latest.json');
