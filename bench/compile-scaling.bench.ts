// Compile-time scaling benchmark: compiles generated policies of 1,000, 5,000 and
// 10,000 rules (bench/fixtures/scaling/make-policy.ts: a mix of distinct complete
// rules, partial set rules, functions and incremental definitions of one name; a
// policy of many definitions of one rule; and a chain `p0 := p1`, `p1 := p2`, …)
// and prints the time of each and the ratio 10k / 1k. Compile time should grow
// linearly: the target is a ratio under 10 (10× the rules).
// Each size is compiled REGENT_BENCH_REPEAT times (default 3) and the fastest run
// is kept, so a busy machine inflates the ratio less.
// Run: npm run bench:compile  (REGENT_BENCH_SIZES=1000,5000,10000, REGENT_BENCH_SHAPES=mixed,indexed,chain)
import { compile } from '../compiler/index.js';
import { makeChain, makePolicy, type Shape } from './fixtures/scaling/make-policy.js';

const sizes = (process.env.REGENT_BENCH_SIZES ?? '1000,5000,10000').split(',').map(Number);
const shapes = (process.env.REGENT_BENCH_SHAPES ?? 'mixed,indexed,chain').split(',');
const repeat = Number(process.env.REGENT_BENCH_REPEAT ?? 3);

function source(shape: string, n: number): string {
  return shape === 'chain' ? makeChain(n) : makePolicy(n, shape as Shape);
}

/** Fastest of `repeat` compiles of `text`, in ms. */
function timeCompile(text: string): number {
  let best = Infinity;
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    compile([{ file: 'gen.rego', text }]);
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

export interface ScalingResult {
  shape: string;
  times: { rules: number; ms: number }[];
  ratio: number;
}

export function runCompileScaling(): ScalingResult[] {
  // Warm the JIT so the smallest size is not charged for it.
  for (const shape of shapes) timeCompile(source(shape, 500));
  const results: ScalingResult[] = [];
  for (const shape of shapes) {
    const times = sizes.map((rules) => ({ rules, ms: timeCompile(source(shape, rules)) }));
    const first = times[0]!;
    const last = times[times.length - 1]!;
    results.push({ shape, times, ratio: last.ms / first.ms });
  }
  return results;
}

const results = runCompileScaling();
let worst = 0;
for (const r of results) {
  const cols = r.times.map((t) => `${t.rules.toLocaleString('en')} rules ${t.ms.toFixed(0)} ms`).join(', ');
  const first = r.times[0]!.rules;
  const last = r.times[r.times.length - 1]!.rules;
  console.log(`compile ${r.shape}: ${cols}; ratio ${last / 1000}k/${first / 1000}k ${r.ratio.toFixed(2)}x (rules ×${last / first}, target < ${last / first}x)`);
  worst = Math.max(worst, r.ratio);
}
console.log(`worst scaling ratio ${worst.toFixed(2)}x`);
