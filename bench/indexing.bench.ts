// Rule indexing workloads (warm, in process), each at 1, 100, 1,000 and 10,000 rule
// definitions of one group (indexed by compiler/passes/rule-index.ts), the one-rule
// policy measured in the same rounds as the baseline: evaluation time should stay flat
// (issue 14: ≤ 1.2x from 1 to 10,000 rules).
//   - `input.x == const` (issue 14's shape): `allow if input.x == "c<i>"`, decided for
//     inputs that hit a definition (c0) and inputs that hit none;
//   - OPA's VirtualDocs benchmark (util/test GenerateVirtualDocsBenchmarkData, topdown's
//     BenchmarkVirtualDocs{N}x1): N−1 identical "miss" definitions (`input.method =
//     "GET"`, `input.path = ["salaries", id]`, `input.user_id = id`) and one "hit"
//     (POST, accounts), decided for the matching POST input. Informative (no target of
//     the issue; the notes' example goal is 1000x1 within 1.2x of 1x1).
// Results are checked against the expected value first. Every size also runs on the
// Wasm back end, against the one-rule Wasm module (compiling 10,000 rules at -O2 takes
// 14 s on a fast machine; VirtualDocs goes up to 1,000 rules there).
// Run alone: npx tsx bench/indexing.bench.ts
import { compile } from '../compiler/index.js';
import { fromJS, type Value } from '../runtime/index.js';
import { alternateRounds, loadWasm, type Row } from './timing.js';

export const RULE_COUNTS = [1, 100, 1000, 10000];
/** Decisions per timed call of the JS rows (see the tasks). */
const BATCH = 64;

/** One indexing workload: its policy per size, its inputs and their expected decisions. */
interface Shape {
  name: string;
  path: string[];
  policy(n: number): string;
  inputs: unknown[];
  expected(input: unknown): boolean;
  /** Sizes that also run on Wasm. */
  wasmSizes: number[];
  target: string;
}

/** 64 inputs: half hit a definition that exists in every policy size (c0), half hit none. */
const CONST_SHAPE: Shape = {
  name: 'input.x == const',
  path: ['idx', 'allow'],
  policy(n) {
    const lines = ['package idx', 'import rego.v1', ''];
    for (let i = 0; i < n; i++) lines.push(`allow if input.x == "c${i}"`);
    return lines.join('\n') + '\n';
  },
  inputs: Array.from({ length: 64 }, (_, k) => ({ x: k % 2 ? 'c0' : `other-${k}` })),
  expected: (input) => (input as { x: string }).x === 'c0',
  wasmSizes: RULE_COUNTS,
  target: '≤ 1.2x',
};

const HIT_RULE = 'allow if {\n\tinput.method = "POST"\n\tinput.path = ["accounts", account_id]\n\tinput.user_id = account_id\n}\n';
const MISS_RULE = 'allow if {\n\tinput.method = "GET"\n\tinput.path = ["salaries", account_id]\n\tinput.user_id = account_id\n}\n';

/** OPA's VirtualDocs N×1: the same POST input every time, as OPA's benchmark. */
const VIRTUAL_DOCS_SHAPE: Shape = {
  name: 'OPA VirtualDocs Nx1',
  path: ['a', 'b', 'c', 'allow'],
  policy: (n) => 'package a.b.c\nimport rego.v1\n\n' + MISS_RULE.repeat(n - 1) + HIT_RULE,
  inputs: Array.from({ length: 64 }, () => ({ method: 'POST', path: ['accounts', 'alice'], user_id: 'alice' })),
  expected: () => true,
  wasmSizes: [1, 100, 1000],
  target: '—',
};

async function runShape(shape: Shape, opts: { rounds?: number; time?: number; log: (s: string) => void }): Promise<Row[]> {
  const { log } = opts;
  const values = shape.inputs.map((x) => fromJS(x));
  const data = fromJS({});
  const tasks: Record<string, () => void> = {};
  const wasmTasks: Record<string, () => void> = {};
  let i = 0;
  let sink = 0;
  for (const n of RULE_COUNTS) {
    const t = performance.now();
    const policy = compile([{ file: `idx${n}.rego`, text: shape.policy(n) }]);
    const compileMs = performance.now() - t;
    const decide = policy.prepareDecision(shape.path);
    shape.inputs.forEach((x, k) => {
      const got = decide({ input: values[k]!, data }) as Value | undefined;
      if ((got === true) !== shape.expected(x)) throw new Error(`indexing ${shape.name} (${n} rules): wrong result for ${JSON.stringify(x)}`);
    });
    // A batch of BATCH decisions per timed call: tinybench's per-call overhead (tens of
    // ns) would otherwise be most of what a row measures, and flatten or blur the ratios.
    tasks[String(n)] = () => {
      for (let b = 0; b < BATCH; b++) if (decide({ input: values[i++ & 63]!, data }) === true) sink++;
    };
    let wasmNote = '';
    if (shape.wasmSizes.includes(n)) {
      const tw = performance.now();
      const wasm = await loadWasm(policy, [shape.path], {});
      if ('skipped' in wasm) log(`indexing ${shape.name}, ${n} rules: no Wasm row (${wasm.skipped})`);
      else {
        shape.inputs.forEach((x) => {
          if ((wasm.host.evaluate(x)[0]?.result === true) !== shape.expected(x)) throw new Error(`indexing ${shape.name} (${n} rules, wasm): wrong result for ${JSON.stringify(x)}`);
        });
        wasmTasks[String(n)] = () => { if (wasm.host.evaluate(shape.inputs[i++ & 63]).length) sink++; };
        wasmNote = `, to Wasm in ${(performance.now() - tw).toFixed(0)} ms`;
      }
    }
    log(`indexing ${shape.name}: ${n} rules compiled in ${compileMs.toFixed(0)} ms${wasmNote}`);
  }
  const js = await alternateRounds(tasks, '1', { warmCalls: 20000 / BATCH, ...opts });
  const rows: Row[] = RULE_COUNTS.slice(1).map((n) => ({
    workload: `indexing: ${n} rules ${shape.name}`, baseline: '1 rule', value: js.ns[String(n)]! / BATCH, unit: 'ns/decision',
    baselineValue: js.ns['1']! / BATCH, ratio: js.ratio[String(n)]!, target: shape.target,
  }));
  if (wasmTasks['1']) {
    const w = await alternateRounds(wasmTasks, '1', opts);
    for (const n of RULE_COUNTS.slice(1)) {
      const k = String(n);
      if (w.ns[k] === undefined) continue;
      rows.push({ workload: `indexing: ${n} rules ${shape.name}, Wasm`, baseline: '1 rule, Wasm', value: w.ns[k]!, unit: 'ns/decision', baselineValue: w.ns['1']!, ratio: w.ratio[k]!, target: shape.target });
    }
  }
  if (sink < 0) log(String(sink));
  return rows;
}

export async function runIndexingBench(opts: { rounds?: number; time?: number; log?: (s: string) => void } = {}): Promise<Row[]> {
  const log = opts.log ?? console.log;
  const rows: Row[] = [];
  for (const shape of [CONST_SHAPE, VIRTUAL_DOCS_SHAPE]) rows.push(...(await runShape(shape, { ...opts, log })));
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await runIndexingBench()) console.log(`${r.workload}: ${r.value.toFixed(0)} ns vs ${r.baselineValue.toFixed(0)} ns (${r.baseline}), ${r.ratio.toFixed(2)}x`);
}
