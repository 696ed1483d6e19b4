// `npm run fuzz`: the parser and compiler fuzzer. Mutates the conformance and corpus
// policies and runs every input through parse + compile in a worker thread with a
// 5 s hang watchdog (runner.ts), then prints inputs tried, structured errors by
// code, crashes and hangs (each saved to the output folder). Exit status 1 when
// anything crashed or hung.
//
//   npm run fuzz -- --count 100000 --seconds 1800 --seed 1 --out /tmp/regent-fuzz
//   (or REGENT_FUZZ_COUNT, REGENT_FUZZ_SECONDS, REGENT_FUZZ_SEED, REGENT_FUZZ_OUT, REGENT_FUZZ_HANG_MS)
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runFuzz, type FuzzStats } from './runner.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string' },
    seconds: { type: 'string' },
    seed: { type: 'string' },
    out: { type: 'string' },
    'hang-ms': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  console.log('usage: npm run fuzz -- [--count N (10000)] [--seconds S (300)] [--seed N (time)] [--out DIR] [--hang-ms MS (5000)]');
  process.exit(0);
}

const env = process.env;
const count = Number(values.count ?? env.REGENT_FUZZ_COUNT ?? 10_000);
const seconds = Number(values.seconds ?? env.REGENT_FUZZ_SECONDS ?? 300);
const seed = Number(values.seed ?? env.REGENT_FUZZ_SEED ?? Date.now() % 1_000_000);
const hangMs = Number(values['hang-ms'] ?? env.REGENT_FUZZ_HANG_MS ?? 5000);
const outDir = values.out ?? env.REGENT_FUZZ_OUT ?? join(tmpdir(), `regent-fuzz-${seed}`);

const line = (s: FuzzStats): string =>
  `${s.inputs} inputs in ${s.seconds.toFixed(0)} s: ${s.ok} compiled, ${s.errors} structured errors, ${s.crashes} crashes, ${s.hangs} hangs`;

console.log(`fuzz: seed ${seed}, at most ${count} inputs or ${seconds} s, hang after ${hangMs} ms; findings go to ${outDir}`);
const stats = await runFuzz({ count, seconds, seed, hangMs, outDir, onProgress: (s) => console.log('  ' + line(s)) });
console.log(`seeds: ${stats.seeds.conformance} from the conformance cases, ${stats.seeds.corpus} corpus files`);
console.log(line(stats));
console.log(`structured errors by code: ${JSON.stringify(stats.codes)}; of them, stack overflows caught by the compile-stage guard: ${stats.overflows}`);
for (const [code, msgs] of Object.entries(stats.samples)) console.log(`  ${code}, e.g.: ${msgs.map((m) => JSON.stringify(m)).join('; ')}`);
console.log(`slowest input ${stats.slowestMs.toFixed(0)} ms [${stats.slowestOps.join(', ')}]`);
for (const f of stats.findings) console.log(`${f.kind}: ${f.file} [${f.ops.join(', ')}] ${f.message}`);
process.exit(stats.crashes + stats.hangs > 0 ? 1 : 0);
