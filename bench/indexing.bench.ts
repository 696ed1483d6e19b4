// Rule indexing workload (warm, in process): a policy with 1, 100, 1,000 and 10,000
// definitions of `allow` of the shape `allow if input.x == "c<i>"` (one rule group, so
// compiler/passes/rule-index.ts indexes it on input.x), decided for inputs that hit a
// definition and inputs that hit none. The baseline is the same decision with one
// definition, measured in the same rounds: evaluation time should stay flat
// (issue 14: ≤ 1.2x from 1 to 10,000 rules). Results are checked against the expected
// value (x in the constants) first. Every size also runs on the Wasm back end, against
// the one-rule Wasm module (compiling 10,000 rules at -O2 takes 14 s on a fast machine).
// Run alone: npx tsx bench/indexing.bench.ts
import { compile } from '../compiler/index.js';
import { fromJS, type Value } from '../runtime/index.js';
import { alternateRounds, loadWasm, type Row } from './timing.js';

export const RULE_COUNTS = [1, 100, 1000, 10000];
/** Decisions per timed call of the JS rows (see the tasks). */
const BATCH = 64;

function policyText(n: number): string {
  const lines = ['package idx', 'import rego.v1', ''];
  for (let i = 0; i < n; i++) lines.push(`allow if input.x == "c${i}"`);
  return lines.join('\n') + '\n';
}

/** 64 inputs: half hit a definition that exists in every policy size (c0), half hit none. */
function inputs(): { x: string }[] {
  return Array.from({ length: 64 }, (_, k) => ({ x: k % 2 ? 'c0' : `other-${k}` }));
}

export async function runIndexingBench(opts: { rounds?: number; time?: number; log?: (s: string) => void } = {}): Promise<Row[]> {
  const log = opts.log ?? console.log;
  const ins = inputs();
  const values = ins.map((x) => fromJS(x));
  const data = fromJS({});
  const tasks: Record<string, () => void> = {};
  const wasmTasks: Record<string, () => void> = {};
  let i = 0;
  let sink = 0;
  for (const n of RULE_COUNTS) {
    const t = performance.now();
    const policy = compile([{ file: `idx${n}.rego`, text: policyText(n) }]);
    const compileMs = performance.now() - t;
    const decide = policy.prepareDecision(['idx', 'allow']);
    ins.forEach((x, k) => {
      const got = decide({ input: values[k]!, data }) as Value | undefined;
      if ((got === true) !== (x.x === 'c0')) throw new Error(`indexing (${n} rules): wrong result for ${x.x}`);
    });
    // A batch of BATCH decisions per timed call: tinybench's per-call overhead (tens of
    // ns) would otherwise be most of what a row measures, and flatten or blur the ratios.
    tasks[String(n)] = () => {
      for (let b = 0; b < BATCH; b++) if (decide({ input: values[i++ & 63]!, data }) === true) sink++;
    };
    const tw = performance.now();
    const wasm = await loadWasm(policy, [['idx', 'allow']], {});
    const wasmMs = performance.now() - tw;
    if ('skipped' in wasm) log(`indexing ${n} rules: no Wasm row (${wasm.skipped})`);
    else {
      ins.forEach((x) => {
        if ((wasm.host.evaluate(x)[0]?.result === true) !== (x.x === 'c0')) throw new Error(`indexing (${n} rules, wasm): wrong result for ${x.x}`);
      });
      wasmTasks[String(n)] = () => { if (wasm.host.evaluate(ins[i++ & 63]).length) sink++; };
    }
    log(`indexing: ${n} rules compiled in ${compileMs.toFixed(0)} ms${'skipped' in wasm ? '' : `, to Wasm in ${wasmMs.toFixed(0)} ms`}`);
  }
  const js = await alternateRounds(tasks, '1', { warmCalls: 20000 / BATCH, ...opts });
  const rows: Row[] = RULE_COUNTS.slice(1).map((n) => ({
    workload: `indexing: ${n} rules input.x == const`, baseline: '1 rule', value: js.ns[String(n)]! / BATCH, unit: 'ns/decision',
    baselineValue: js.ns['1']! / BATCH, ratio: js.ratio[String(n)]!, target: '≤ 1.2x',
  }));
  if (wasmTasks['1']) {
    const w = await alternateRounds(wasmTasks, '1', opts);
    for (const n of RULE_COUNTS.slice(1)) {
      const k = String(n);
      if (w.ns[k] === undefined) continue;
      rows.push({ workload: `indexing: ${n} rules, Wasm`, baseline: '1 rule, Wasm', value: w.ns[k]!, unit: 'ns/decision', baselineValue: w.ns['1']!, ratio: w.ratio[k]!, target: '≤ 1.2x' });
    }
  }
  if (sink < 0) log(String(sink));
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await runIndexingBench()) console.log(`${r.workload}: ${r.value.toFixed(0)} ns vs ${r.baselineValue.toFixed(0)} ns (${r.baseline}), ${r.ratio.toFixed(2)}x`);
}
