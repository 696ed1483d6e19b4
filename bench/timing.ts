// Shared timing helpers for the in-process workloads of `npm run bench`: the table row
// type, alternating tinybench rounds with a median of same-round ratios, per-call
// latency percentiles, and loading a compiled policy onto the Wasm back end (with the
// reason printed when a workload cannot run there). Each workload file
// (admission, large-data, indexing, aci) builds on these so their rows read alike.
import { Bench } from 'tinybench';
import { compileWasm, type CompiledPolicy } from '../compiler/index.js';
import { WasmPolicy } from '../runtime/wasm/host.js';

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

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!;
}

export interface RoundsResult {
  /** Median ns per call of each task. */
  ns: Record<string, number>;
  /** Median over rounds of (task ns ÷ reference ns) in the same round. */
  ratio: Record<string, number>;
}

/**
 * Runs `tasks` in `rounds` short tinybench rounds (all tasks in each round) and returns
 * each task's median ns per call and its median ratio to the `reference` task.
 */
export async function alternateRounds(
  tasks: Record<string, () => void>,
  reference: string,
  opts: { rounds?: number; time?: number; warmCalls?: number } = {},
): Promise<RoundsResult> {
  warmUp(tasks, opts.warmCalls ?? 500);
  const per: Record<string, number[]> = Object.fromEntries(Object.keys(tasks).map((k) => [k, []]));
  for (let r = 0; r < (opts.rounds ?? 5); r++) {
    const bench = new Bench({ time: opts.time ?? 150, warmupTime: 30 });
    for (const [name, fn] of Object.entries(tasks)) bench.add(name, fn);
    await bench.run();
    for (const t of bench.tasks) per[t.name]!.push((t.result as { latency?: { mean: number } }).latency!.mean * 1e6);
  }
  const ns: Record<string, number> = {};
  const ratio: Record<string, number> = {};
  for (const k of Object.keys(per)) {
    ns[k] = median(per[k]!);
    ratio[k] = median(per[k]!.map((x, i) => x / per[reference]![i]!));
  }
  return { ns, ratio };
}

/**
 * Calls each task `calls` times (at most about 3 s each) before anything is timed. On a
 * loaded machine V8's optimizing compiler runs late (its background thread waits for a
 * core), and tinybench's short warm-up leaves a large policy (ACI: thousands of calls
 * before its decisions settle) timed mostly in unoptimized code.
 */
export function warmUp(tasks: Record<string, () => void>, calls: number): void {
  for (const fn of Object.values(tasks)) {
    const end = performance.now() + 3000;
    for (let i = 0; i < calls; i++) {
      fn();
      if ((i & 63) === 63 && performance.now() > end) break;
    }
  }
}

/**
 * The policy compiled to Wasm (binaryen -O2) and loaded in Regent's host with `data`,
 * or the reason it cannot run there (printed by the caller as the skipped row's note).
 */
export async function loadWasm(
  policy: CompiledPolicy,
  entrypoints: string[][],
  data: unknown,
): Promise<{ host: WasmPolicy; setDataMs: number } | { skipped: string }> {
  try {
    const wasm = await compileWasm(policy, entrypoints, { optimize: 2 });
    const host = await WasmPolicy.load(wasm);
    const t = performance.now();
    host.setData(data);
    return { host, setDataMs: performance.now() - t };
  } catch (e) {
    return { skipped: (e as Error).message.split('\n')[0]!.slice(0, 160) };
  }
}

/** A canonical JSON text (object keys sorted) for comparing results across back ends. */
export function canonical(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(canonical).join(',')}]`;
  if (x !== null && typeof x === 'object') {
    const o = x as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(x);
}
