// Wasm back end benchmark (warm, in process, one run): the RBAC decision of
// bench/rbac.bench.ts compiled to policy.wasm and evaluated through Regent's host and
// through OPA's SDK (@open-policy-agent/opa-wasm), against the JS back end's decision
// path and the hand-written JS function, all in the same run; medians of per-round
// ratios to the hand-written function. Also: module size, compile time, instantiation.
// Run: npx tsx bench/wasm.bench.ts
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Bench } from 'tinybench';
import { compile, compileWasm } from '../compiler/index.js';
import { fromJS, toJS, type Value } from '../runtime/index.js';
import { WasmPolicy } from '../runtime/wasm/host.js';
import { handWrittenAllow, makeRbacData } from './fixtures/rbac/make-data.js';

type SdkPolicy = { setData(d: unknown): void; evaluate(i: unknown, e?: number): { result: unknown }[] };
const sdk = createRequire(import.meta.url)('@open-policy-agent/opa-wasm') as { loadPolicy(w: Uint8Array): Promise<SdkPolicy> };

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export async function runWasmBench(opts: { rounds?: number; time?: number } = {}) {
  const text = readFileSync(new URL('./fixtures/rbac/policy.rego', import.meta.url), 'utf8');
  const data = makeRbacData();
  const dataValue = fromJS(data);
  const policy = compile([{ file: 'rbac.rego', text }]);
  const decide = policy.prepareDecision(['rbac', 'allow']);
  await compileWasm(policy, ['rbac/allow']); // loads binaryen (timed separately below)
  let t = performance.now();
  const wasm = await compileWasm(policy, ['rbac/allow'], { optimize: 2 });
  const compileMs = performance.now() - t;
  t = performance.now();
  const host = await WasmPolicy.load(wasm);
  const instantiateMs = performance.now() - t;
  host.setData(data);
  const official = await sdk.loadPolicy(wasm);
  official.setData(data);
  const inputs = Array.from({ length: 64 }, (_, i) => ({ user: `user-${(i * 37) % 500}`, action: ['read', 'write', 'delete'][i % 3]!, type: ['dog', 'cat', 'bird', 'fish'][i % 4]! }));
  const inputValues = inputs.map((i) => fromJS(i));
  inputs.forEach((input, i) => {
    const want = handWrittenAllow(data, input);
    const js = toJS(decide({ input: inputValues[i]!, data: dataValue }) as Value);
    const a = host.evaluate(input)[0]?.result;
    const b = official.evaluate(input)[0]?.result;
    if (js !== want || a !== want || b !== want) throw new Error(`decision mismatch for ${JSON.stringify(input)}`);
  });
  let i = 0;
  let sink = 0;
  const tasks: Record<string, () => void> = {
    js: () => { if (decide({ input: inputValues[i++ & 63]!, data: dataValue }) === true) sink++; },
    wasmRegent: () => { if (host.evaluate(inputs[i++ & 63]!)[0]?.result === true) sink++; },
    wasmSdk: () => { if (official.evaluate(inputs[i++ & 63]!)[0]?.result === true) sink++; },
    baseline: () => { if (handWrittenAllow(data, inputs[i++ & 63]!)) sink++; },
  };
  const per: Record<string, number[]> = { js: [], wasmRegent: [], wasmSdk: [], baseline: [] };
  for (let r = 0; r < (opts.rounds ?? 5); r++) {
    const bench = new Bench({ time: opts.time ?? 200, warmupTime: 50 });
    for (const [name, fn] of Object.entries(tasks)) bench.add(name, fn);
    await bench.run();
    for (const task of bench.tasks) per[task.name]!.push((task.result as { latency?: { mean: number } }).latency!.mean * 1e6);
  }
  if (sink < 0) console.log(sink);
  const ratio = (name: string) => median(per[name]!.map((x, k) => x / per.baseline![k]!));
  return {
    sizeBytes: wasm.length, compileMs, instantiateMs,
    ns: Object.fromEntries(Object.keys(per).map((k) => [k, median(per[k]!)])),
    ratio: { js: ratio('js'), wasmRegent: ratio('wasmRegent'), wasmSdk: ratio('wasmSdk') },
  };
}

/** The ACI policy's create_container decision (shared workloads), JS back end vs Wasm (Regent's host). */
export async function runAciBench(opts: { rounds?: number; time?: number } = {}) {
  const { existsSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { load } = await import('js-yaml');
  const { sharedDir } = await import('../test/shared-dir.js');
  const dir = join(sharedDir(), 'bench-workloads', 'aci');
  if (!existsSync(join(dir, 'aci.yaml'))) return undefined;
  type Case = { note: string; modules: string[]; input: unknown; data?: Record<string, unknown>; query: string };
  const c = (load(readFileSync(join(dir, 'aci.yaml'), 'utf8')) as { cases: Case[] }).cases.find((x) => x.note === 'aci/create_container')!;
  const policy = compile(c.modules.map((m) => ({ file: m, text: readFileSync(join(dir, m), 'utf8'), v0Compatible: true })), { v0Compatible: true });
  const path = c.query.replace(/^data\./, '').split('.');
  const data = { ...(JSON.parse(readFileSync(join(dir, 'data.json'), 'utf8')) as object), ...(c.data ?? {}) };
  const decide = policy.prepareDecision(path);
  const dataValue = fromJS(data);
  const inputValue = fromJS(c.input);
  const wasm = await compileWasm(policy, [path], { optimize: 2 });
  const host = await WasmPolicy.load(wasm);
  host.setData(data);
  const want = JSON.stringify(toJS(decide({ input: inputValue, data: dataValue }) as Value));
  if (JSON.stringify(host.evaluate(c.input)[0]?.result) !== want) throw new Error('aci: wasm and JS disagree');
  const per: Record<string, number[]> = { js: [], wasmRegent: [] };
  let sink = 0;
  for (let r = 0; r < (opts.rounds ?? 3); r++) {
    const bench = new Bench({ time: opts.time ?? 300, warmupTime: 50 });
    bench.add('js', () => { if (decide({ input: inputValue, data: dataValue }) !== undefined) sink++; });
    bench.add('wasmRegent', () => { if (host.evaluate(c.input).length > 0) sink++; });
    await bench.run();
    for (const task of bench.tasks) per[task.name]!.push((task.result as { latency?: { mean: number } }).latency!.mean * 1e6);
  }
  if (sink < 0) console.log(sink);
  return { sizeBytes: wasm.length, jsNs: median(per.js!), wasmNs: median(per.wasmRegent!), ratio: median(per.wasmRegent!.map((x, k) => x / per.js![k]!)), builtins: host.builtinNames };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runWasmBench();
  const ns = r.ns as Record<string, number>;
  console.log(`policy.wasm ${r.sizeBytes} bytes (-O2), compile ${r.compileMs.toFixed(0)} ms, instantiate ${r.instantiateMs.toFixed(2)} ms`);
  console.log(`rbac allow ns/decision: hand-written ${ns.baseline!.toFixed(0)}, JS back end ${ns.js!.toFixed(0)} (${r.ratio.js.toFixed(2)}x), ` +
    `wasm via Regent host ${ns.wasmRegent!.toFixed(0)} (${r.ratio.wasmRegent.toFixed(2)}x), wasm via OPA SDK ${ns.wasmSdk!.toFixed(0)} (${r.ratio.wasmSdk.toFixed(2)}x)`);
  const aci = await runAciBench();
  if (aci) {
    console.log(`aci create_container: JS back end ${(aci.jsNs / 1000).toFixed(1)} µs, wasm via Regent host ${(aci.wasmNs / 1000).toFixed(1)} µs ` +
      `(${aci.ratio.toFixed(2)}x the JS back end), policy.wasm ${aci.sizeBytes} bytes; host-served builtins: ${aci.builtins.join(', ') || 'none'}`);
  }
}
