// RBAC decision benchmark (warm, in process): Regent's compiled policy against a
// hand-written JS function for the same decision, measured in the same run.
// Rounds alternate between the two (tinybench, short runs) and the median of the
// per-round ratios is reported, so load on the machine affects both sides alike.
import { readFileSync } from 'node:fs';
import { Bench } from 'tinybench';
import { compile } from '../compiler/index.js';
import { fromJS, toJS, type Value } from '../runtime/index.js';
import { handWrittenAllow, makeRbacData } from './fixtures/rbac/make-data.js';
import { loadWasm, warmUp } from './timing.js';

export interface RbacResult {
  /** ns per decision through the decision path (as the Data API serves it). */
  regentNs: number;
  /** ns per decision through an ad-hoc query `data.rbac.allow` (rows and bindings). */
  queryNs: number;
  baselineNs: number;
  ratio: number;
  queryRatio: number;
  /**
   * The same decision 64 times per timed call (all 64 inputs), per decision: tinybench's
   * own cost per timed call (a clock read, a loop step, about 50–70 ns) is spread over 64
   * decisions, so this ratio is the one a tight loop sees, and it is higher.
   */
  batchNs: number;
  batchBaselineNs: number;
  batchRatio: number;
  /** The decision on the Wasm back end (Regent's host), or why it did not run. */
  wasm: { ns: number; ratio: number } | { skipped: string };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export async function runRbacBench(opts: { rounds?: number; time?: number } = {}): Promise<RbacResult> {
  const text = readFileSync(new URL('./fixtures/rbac/policy.rego', import.meta.url), 'utf8');
  const data = makeRbacData();
  const dataValue = fromJS(data);
  const policy = compile([{ file: 'rbac.rego', text }]);
  const decide = policy.prepareDecision(['rbac', 'allow']);
  const query = policy.prepare('data.rbac.allow');
  const inputs = Array.from({ length: 64 }, (_, i) => ({ user: `user-${(i * 37) % 500}`, action: ['read', 'write', 'delete'][i % 3]!, type: ['dog', 'cat', 'bird', 'fish'][i % 4]! }));
  const inputValues = inputs.map((i) => fromJS(i));
  // Every path must agree with the hand-written function before anything is timed.
  inputs.forEach((input, i) => {
    const want = handWrittenAllow(data, input);
    const viaDecision = toJS(decide({ input: inputValues[i]!, data: dataValue }) as Value);
    const viaQuery = toJS(query.eval({ input: inputValues[i]!, data: dataValue })[0]!.expressions[0]!.value);
    if (viaDecision !== want || viaQuery !== want) throw new Error(`decision mismatch for ${JSON.stringify(input)}`);
  });
  const wasm = await loadWasm(policy, [['rbac', 'allow']], data);
  if ('host' in wasm) {
    inputs.forEach((input) => {
      if ((wasm.host.evaluate(input)[0]?.result ?? false) !== handWrittenAllow(data, input)) throw new Error(`wasm decision mismatch for ${JSON.stringify(input)}`);
    });
  }
  let i = 0;
  let sink = 0;
  const tasks: Record<string, () => void> = {
    regent: () => {
      if (decide({ input: inputValues[i++ & 63]!, data: dataValue }) === true) sink++;
    },
    query: () => {
      if (query.eval({ input: inputValues[i++ & 63]!, data: dataValue })[0]!.expressions[0]!.value === true) sink++;
    },
    baseline: () => {
      if (handWrittenAllow(data, inputs[i++ & 63]!)) sink++;
    },
    regentBatch: () => {
      for (let k = 0; k < 64; k++) if (decide({ input: inputValues[k]!, data: dataValue }) === true) sink++;
    },
    baselineBatch: () => {
      for (let k = 0; k < 64; k++) if (handWrittenAllow(data, inputs[k]!)) sink++;
    },
  };
  if ('host' in wasm) tasks.wasm = () => { if (wasm.host.evaluate(inputs[i++ & 63]!)[0]?.result === true) sink++; };
  warmUp(tasks, 20000);
  const per: Record<string, number[]> = Object.fromEntries(Object.keys(tasks).map((k) => [k, []]));
  const rounds = opts.rounds ?? 7;
  for (let r = 0; r < rounds; r++) {
    const bench = new Bench({ time: opts.time ?? 200, warmupTime: 50 });
    for (const [name, fn] of Object.entries(tasks)) bench.add(name, fn);
    await bench.run();
    for (const t of bench.tasks) per[t.name]!.push((t.result as { latency?: { mean: number } }).latency!.mean * 1e6);
  }
  if (sink < 0) console.log(sink);
  const ratios = per.regent!.map((x, k) => x / per.baseline![k]!);
  const queryRatios = per.query!.map((x, k) => x / per.baseline![k]!);
  return {
    regentNs: median(per.regent!),
    queryNs: median(per.query!),
    baselineNs: median(per.baseline!),
    ratio: median(ratios),
    queryRatio: median(queryRatios),
    batchNs: median(per.regentBatch!) / 64,
    batchBaselineNs: median(per.baselineBatch!) / 64,
    batchRatio: median(per.regentBatch!.map((x, k) => x / per.baselineBatch![k]!)),
    wasm: 'host' in wasm ? { ns: median(per.wasm!), ratio: median(per.wasm!.map((x, k) => x / per.baseline![k]!)) } : { skipped: wasm.skipped },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runRbacBench();
  console.log(
    `rbac allow: regent ${r.regentNs.toFixed(0)} ns/decision, hand-written JS ${r.baselineNs.toFixed(0)} ns/decision, ` +
      `ratio ${r.ratio.toFixed(2)}x; as an ad-hoc query ${r.queryNs.toFixed(0)} ns (${r.queryRatio.toFixed(2)}x); ` +
      `64 per timed call ${r.batchNs.toFixed(0)} against ${r.batchBaselineNs.toFixed(0)} ns (${r.batchRatio.toFixed(2)}x)`,
  );
}
