// ACI workload (warm, in process): the Azure Container Instances confidential-containers
// policy in ../shared/bench-workloads/aci (about 1,300 lines of Rego v0: policy, framework,
// API module, data.json), read from there. Every case of aci.yaml (nine entrypoints:
// mount_device … load_fragment) is first checked against its expected result on the JS
// back end and on Wasm, then each entrypoint is timed warm on both. No hand-written
// baseline exists, so JS rows are set against issue 14's goal for create_container
// (10 µs per decision; OPA publishes 57–92 µs), and Wasm rows against the JS back end in
// the same rounds. Run alone: npx tsx bench/aci.bench.ts; `--against DIR` (another
// checkout with node_modules, as in admission.bench.ts) also checks and times that
// tree's JS back end in the same rounds, with a row of this tree's time over it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { compile, type CompiledPolicy } from '../compiler/index.js';
import { fromJS, toJS, type Value } from '../runtime/index.js';
import { sharedDir } from '../test/shared-dir.js';
import { alternateRounds, canonical, loadWasm, type Row } from './timing.js';
import { loadTree, type OtherTree } from './admission.bench.js';

type Case = { note: string; modules: string[]; input: unknown; data?: Record<string, unknown>; query: string; want_result: { x: unknown }[] };

/** issue 14's goal for a create_container decision, in ns. */
const GOAL_NS = 10_000;

export async function runAciBench(opts: { rounds?: number; time?: number; log?: (s: string) => void; against?: OtherTree } = {}): Promise<Row[]> {
  const log = opts.log ?? console.log;
  const dir = join(sharedDir(), 'bench-workloads', 'aci');
  if (!existsSync(join(dir, 'aci.yaml'))) {
    log(`aci: skipped, ${dir} is missing`);
    return [];
  }
  const cases = (load(readFileSync(join(dir, 'aci.yaml'), 'utf8')) as { cases: Case[] }).cases;
  const baseData = JSON.parse(readFileSync(join(dir, 'data.json'), 'utf8')) as Record<string, unknown>;
  const policies = new Map<string, CompiledPolicy>();
  const rows: Row[] = [];
  for (const c of cases) {
    const files = c.modules.map((m, i) => (m.endsWith('.rego') ? { file: m, text: readFileSync(join(dir, m), 'utf8') } : { file: `fragment${i}.rego`, text: m }));
    const key = JSON.stringify(files.map((f) => f.file + '\n' + f.text));
    let policy = policies.get(key);
    if (policy === undefined) {
      policy = compile(files.map((f) => ({ ...f, v0Compatible: true })), { v0Compatible: true });
      policies.set(key, policy);
    }
    const path = c.query.replace(/^data\./, '').split('.');
    const data = { ...baseData, ...(c.data ?? {}) };
    const decide = policy.prepareDecision(path);
    const dataValue = fromJS(data);
    const inputValue = fromJS(c.input);
    const want = canonical(c.want_result.map((r) => r.x));
    const v = decide({ input: inputValue, data: dataValue }) as Value | undefined;
    const got = canonical(v === undefined ? [] : [toJS(v)]);
    if (got !== want) throw new Error(`aci ${c.note}: result differs from aci.yaml's\ngot  ${got}\nwant ${want}`);
    const tasks: Record<string, () => void> = {};
    let sink = 0;
    tasks.js = () => { if (decide({ input: inputValue, data: dataValue }) !== undefined) sink++; };
    const wasm = await loadWasm(policy, [path], data);
    if ('skipped' in wasm) log(`aci ${c.note}: no Wasm row (${wasm.skipped})`);
    else {
      const w = canonical(wasm.host.evaluate(c.input).map((r) => r.result));
      if (w !== want) throw new Error(`aci ${c.note} (wasm): result differs from aci.yaml's\ngot  ${w}\nwant ${want}`);
      tasks.wasm = () => { if (wasm.host.evaluate(c.input).length > 0) sink++; };
    }
    const other = opts.against;
    if (other) {
      const prev = other.compile(files.map((f) => ({ ...f, v0Compatible: true })), { v0Compatible: true }).prepareDecision(path);
      const prevData = other.fromJS(data);
      const prevInput = other.fromJS(c.input);
      const pv = prev({ input: prevInput, data: prevData }) as Value | undefined;
      if (canonical(pv === undefined ? [] : [other.toJS(pv)]) !== want) throw new Error(`aci ${c.note} (${other.dir}): result differs from aci.yaml's`);
      tasks.before = () => { if (prev({ input: prevInput, data: prevData }) !== undefined) sink++; };
    }
    const r = await alternateRounds(tasks, 'js', { rounds: opts.rounds ?? 3, time: opts.time ?? 100, warmCalls: 5000 });
    if (sink < 0) log(String(sink));
    const name = path[path.length - 1]!;
    const goal = name === 'create_container' ? '≤ 1x' : '—';
    rows.push({ workload: `aci ${name}`, baseline: 'goal 10 µs/decision', value: r.ns.js!, unit: 'ns/decision', baselineValue: GOAL_NS, ratio: r.ns.js! / GOAL_NS, target: goal });
    if (r.ns.wasm !== undefined) rows.push({ workload: `aci ${name}, Wasm`, baseline: 'JS back end', value: r.ns.wasm, unit: 'ns/decision', baselineValue: r.ns.js!, ratio: r.ratio.wasm!, target: '—' });
    if (other) rows.push({ workload: `aci ${name}, this tree vs ${other.dir}`, baseline: other.dir, value: r.ns.js!, unit: 'ns/decision', baselineValue: r.ns.before!, ratio: 1 / r.ratio.before!, target: '—' });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--against');
  const against = at > 0 && process.argv[at + 1] ? await loadTree(process.argv[at + 1]!) : undefined;
  for (const r of await runAciBench({ against })) console.log(`${r.workload}: ${(r.value / 1000).toFixed(1)} µs, ${r.ratio.toFixed(2)}x ${r.baseline}`);
}
