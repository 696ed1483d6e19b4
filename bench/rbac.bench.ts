// RBAC decision benchmark (warm, in process): Regent's compiled policy against a
// hand-written JS function for the same decision, measured in the same run.
// Prints time per decision and the ratio Regent / hand-written.
import { readFileSync } from 'node:fs';
import { Bench } from 'tinybench';
import { compile } from '../compiler/index.js';
import { fromJS, toJS } from '../runtime/index.js';
import { handWrittenAllow, makeRbacData } from './fixtures/rbac/make-data.js';

export async function runRbacBench(opts: { time?: number } = {}): Promise<{ regentNs: number; baselineNs: number; ratio: number }> {
  const text = readFileSync(new URL('./fixtures/rbac/policy.rego', import.meta.url), 'utf8');
  const data = makeRbacData();
  const dataValue = fromJS(data);
  const policy = compile([{ file: 'rbac.rego', text }]);
  const query = policy.prepare('data.rbac.allow');
  const inputs = Array.from({ length: 64 }, (_, i) => ({ user: `user-${(i * 37) % 500}`, action: ['read', 'write', 'delete'][i % 3]!, type: ['dog', 'cat', 'bird', 'fish'][i % 4]! }));
  const inputValues = inputs.map((i) => fromJS(i));
  // Both sides must agree on every input before anything is timed.
  inputs.forEach((input, i) => {
    const got = toJS(query.eval({ input: inputValues[i]!, data: dataValue })[0]!.expressions[0]!.value);
    if (got !== handWrittenAllow(data, input)) throw new Error(`decision mismatch for ${JSON.stringify(input)}`);
  });
  let i = 0;
  let sink = 0;
  const bench = new Bench({ time: opts.time ?? 1500, warmupTime: 300 });
  bench
    .add('regent', () => {
      const rows = query.eval({ input: inputValues[i++ & 63]!, data: dataValue });
      if (rows[0]!.expressions[0]!.value === true) sink++;
    })
    .add('hand-written JS', () => {
      if (handWrittenAllow(data, inputs[i++ & 63]!)) sink++;
    });
  await bench.run();
  const [regent, baseline] = bench.tasks.map((t) => (t.result as { latency?: { mean: number } }).latency?.mean ?? NaN);
  const regentNs = regent! * 1e6;
  const baselineNs = baseline! * 1e6;
  if (sink < 0) console.log(sink);
  return { regentNs, baselineNs, ratio: regentNs / baselineNs };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runRbacBench();
  console.log(`rbac allow: regent ${r.regentNs.toFixed(0)} ns/decision, hand-written JS ${r.baselineNs.toFixed(0)} ns/decision, ratio ${r.ratio.toFixed(2)}x`);
}
