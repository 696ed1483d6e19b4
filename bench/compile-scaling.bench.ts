// Compile-time scaling benchmark: compiles generated policies of 1,000, 5,000 and
// 10,000 rules (bench/fixtures/scaling/make-policy.ts: a mix of distinct complete
// rules, partial set rules, functions and incremental definitions of one name; a
// policy of many definitions of one rule; and a chain `p0 := p1`, `p1 := p2`, …)
// and prints the time of each and the ratio 10k / 1k. Compile time should grow
// linearly: the target is a ratio under 10 (10× the rules).
// Sizes are compiled in REGENT_BENCH_REPEAT interleaved rounds (default 3; smaller
// sizes several times a round) and the fastest run of each is kept, so a busy
// machine inflates the ratio less; `npm run bench:compile` passes
// --expose-gc so garbage of one run is not collected during the next.
// Run: npm run bench:compile  (REGENT_BENCH_SIZES=1000,5000,10000, REGENT_BENCH_SHAPES=mixed,indexed,chain)
import { compile } from '../compiler/index.js';
import { makeChain, makePolicy, type Shape } from './fixtures/scaling/make-policy.js';

const sizes = (process.env.REGENT_BENCH_SIZES ?? '1000,5000,10000').split(',').map(Number);
const shapes = (process.env.REGENT_BENCH_SHAPES ?? 'mixed,indexed,chain').split(',');
const repeat = Number(process.env.REGENT_BENCH_REPEAT ?? 3);

function source(shape: string, n: number): string {
  return shape === 'chain' ? makeChain(n) : makePolicy(n, shape as Shape);
}

const gc = (globalThis as { gc?: () => void }).gc;

/** One compile of `text`, in ms (heap collected first when --expose-gc). */
function timeOnce(text: string): number {
  gc?.();
  const t = performance.now();
  compile([{ file: 'gen.rego', text }]);
  return performance.now() - t;
}

/**
 * Fastest time per size. Sizes are measured in interleaved rounds, so a load spike
 * on the shared machine hits every size alike, and smaller sizes get more samples
 * (as many as fit in the time of one largest compile).
 */
function timeSizes(shape: string): { rules: number; ms: number }[] {
  const texts = sizes.map((n) => source(shape, n));
  const best = sizes.map(() => Infinity);
  const largest = Math.max(...sizes);
  for (let round = 0; round < repeat; round++) {
    sizes.forEach((n, i) => {
      const samples = Math.max(1, Math.floor(largest / n));
      for (let k = 0; k < samples; k++) best[i] = Math.min(best[i]!, timeOnce(texts[i]!));
    });
  }
  return sizes.map((rules, i) => ({ rules, ms: best[i]! }));
}

export interface ScalingResult {
  shape: string;
  times: { rules: number; ms: number }[];
  ratio: number;
}

export function runCompileScaling(): ScalingResult[] {
  // Warm the JIT so the smallest size is not charged for it.
  for (const shape of shapes) for (let i = 0; i < 3; i++) timeOnce(source(shape, 500));
  const results: ScalingResult[] = [];
  for (const shape of shapes) {
    const times = timeSizes(shape);
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
