// Large data workload (warm, in process): a generated 50 MB data document (users keyed
// by id with departments, roles and locations; bench/memory-data.ts's generator) and two
// decisions over it: a lookup (`allow`: one user by id, active, with a role, in a
// department) and a full scan (`active_in_city`: count the active users of a department
// in a city, visiting every user). Baseline: the same decisions written by hand over the
// parsed JSON. Each call is timed on its own (interleaved with the baseline) and p50 and
// p99 are reported; results are checked against the hand-written functions first.
// REGENT_BENCH_DATA_MB sets the size (default 50). Run alone: npx tsx bench/large-data.bench.ts
import { compile } from '../compiler/index.js';
import { fromJS, toJS, type Value } from '../runtime/index.js';
import { generateDocumentText } from './memory-data.js';
import { loadWasm, percentile, type Row } from './timing.js';

const POLICY = `package big
import rego.v1

allow if {
  u := data.users[input.user]
  u.active
  input.role in u.roles
  u.department == input.department
}

active_in_city := count([id |
  some id, u in data.users
  u.active
  u.location.city == input.city
  u.department == input.department
])
`;

interface User { department: string; roles: string[]; location: { city: string }; active: boolean }
type Doc = { users: Record<string, User> };

function handAllow(d: Doc, i: { user: string; role: string; department: string }): boolean {
  const u = d.users[i.user];
  return u !== undefined && u.active === true && u.roles.includes(i.role) && u.department === i.department;
}

function handActiveInCity(d: Doc, i: { city: string; department: string }): number {
  let n = 0;
  for (const id in d.users) {
    const u = d.users[id]!;
    if (u.active === true && u.location.city === i.city && u.department === i.department) n++;
  }
  return n;
}

/** Times `regent` and `hand` alternately, one call each per step; ns per call of each. */
function interleaved(steps: number, regent: (k: number) => void, hand: (k: number) => void): { regent: number[]; hand: number[] } {
  const out = { regent: [] as number[], hand: [] as number[] };
  for (let k = 0; k < steps; k++) {
    let t = process.hrtime.bigint();
    regent(k);
    out.regent.push(Number(process.hrtime.bigint() - t));
    t = process.hrtime.bigint();
    hand(k);
    out.hand.push(Number(process.hrtime.bigint() - t));
  }
  return out;
}

export async function runLargeDataBench(opts: { mb?: number; log?: (s: string) => void } = {}): Promise<Row[]> {
  const log = opts.log ?? console.log;
  const mb = opts.mb ?? Number(process.env.REGENT_BENCH_DATA_MB ?? 50);
  const text = generateDocumentText(mb * 1e6);
  const doc = JSON.parse(text) as Doc;
  const t = performance.now();
  const dataValue = fromJS(doc);
  const loadMs = performance.now() - t;
  const ids = Object.keys(doc.users);
  const policy = compile([{ file: 'big.rego', text: POLICY }]);
  const allow = policy.prepareDecision(['big', 'allow']);
  const scan = policy.prepareDecision(['big', 'active_in_city']);
  const CITIES = ['Amsterdam', 'Berlin', 'Chicago', 'Denver'];
  const DEPTS = ['engineering', 'finance', 'sales', 'support'];
  const lookups = Array.from({ length: 256 }, (_, k) => {
    const u = doc.users[ids[(k * 7919) % ids.length]!]!;
    return { user: k % 16 === 15 ? 'user-missing' : ids[(k * 7919) % ids.length]!, role: u.roles[k % 2]!, department: k % 3 ? u.department : 'legal' };
  });
  const scans = Array.from({ length: 8 }, (_, k) => ({ city: CITIES[k % 4]!, department: DEPTS[(k >> 2) % 4]! }));
  const lookupValues = lookups.map((x) => fromJS(x));
  const scanValues = scans.map((x) => fromJS(x));
  let allowed = 0;
  lookups.forEach((x, k) => {
    const got = toJS(allow({ input: lookupValues[k]!, data: dataValue }) as Value) ?? false;
    if (got !== handAllow(doc, x)) throw new Error(`large data: allow disagrees for ${JSON.stringify(x)}`);
    if (got) allowed++;
  });
  scans.forEach((x, k) => {
    const got = toJS(scan({ input: scanValues[k]!, data: dataValue }) as Value);
    if (got !== handActiveInCity(doc, x)) throw new Error(`large data: active_in_city disagrees for ${JSON.stringify(x)}: ${String(got)}`);
  });
  log(`large data: ${(text.length / 1e6).toFixed(1)} MB, ${ids.length} users, fromJS ${loadMs.toFixed(0)} ms; ${allowed}/256 lookups allowed`);
  let sink = 0;
  interleaved(20000, (k) => { if (allow({ input: lookupValues[k & 255]!, data: dataValue }) === true) sink++; }, (k) => { if (handAllow(doc, lookups[k & 255]!)) sink++; });
  const look = interleaved(20000, (k) => { if (allow({ input: lookupValues[k & 255]!, data: dataValue }) === true) sink++; }, (k) => { if (handAllow(doc, lookups[k & 255]!)) sink++; });
  const full = interleaved(24, (k) => { if (scan({ input: scanValues[k & 7]!, data: dataValue }) !== undefined) sink++; }, (k) => { sink += handActiveInCity(doc, scans[k & 7]!); });
  const rows: Row[] = [];
  const add = (what: string, unit: string, scale: number, xs: { regent: number[]; hand: number[] }, p: number, target = '—'): void => {
    const a = percentile(xs.regent, p) / scale;
    const b = percentile(xs.hand, p) / scale;
    rows.push({ workload: `large data (${mb} MB): ${what} p${p}`, baseline: 'hand-written JS', value: a, unit, baselineValue: b, ratio: a / b, target });
  };
  add('lookup', 'ns/decision', 1, look, 50);
  add('lookup', 'ns/decision', 1, look, 99);
  add('full scan', 'ms/decision', 1e6, full, 50);
  add('full scan', 'ms/decision', 1e6, full, 99);
  // Wasm: the same two decisions after loading the document into linear memory
  const wasm = await loadWasm(policy, [['big', 'allow'], ['big', 'active_in_city']], doc);
  if ('skipped' in wasm) log(`large data: no Wasm rows (${wasm.skipped})`);
  else {
    rows.push({ workload: `large data (${mb} MB): load the document, Wasm setData`, baseline: 'fromJS (JS back end)', value: wasm.setDataMs, unit: 'ms', baselineValue: loadMs, ratio: wasm.setDataMs / loadMs, target: '—' });
    lookups.forEach((x) => {
      if ((wasm.host.evaluate(x, 'big/allow')[0]?.result ?? false) !== handAllow(doc, x)) throw new Error(`large data (wasm): allow disagrees for ${JSON.stringify(x)}`);
    });
    if (wasm.host.evaluate(scans[0], 'big/active_in_city')[0]?.result !== handActiveInCity(doc, scans[0]!)) throw new Error('large data (wasm): active_in_city disagrees');
    const wl = interleaved(20000, (k) => { if (wasm.host.evaluate(lookups[k & 255], 'big/allow').length) sink++; }, (k) => { if (handAllow(doc, lookups[k & 255]!)) sink++; });
    const ws = interleaved(8, (k) => { if (wasm.host.evaluate(scans[k & 7], 'big/active_in_city').length) sink++; }, (k) => { sink += handActiveInCity(doc, scans[k & 7]!); });
    add('lookup, Wasm', 'ns/decision', 1, wl, 50);
    add('lookup, Wasm', 'ns/decision', 1, wl, 99);
    add('full scan, Wasm', 'ms/decision', 1e6, ws, 50);
  }
  if (sink < 0) log(String(sink));
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await runLargeDataBench()) console.log(`${r.workload}: ${r.value.toFixed(1)} vs ${r.baselineValue.toFixed(1)} ${r.unit} hand-written, ${r.ratio.toFixed(2)}x`);
}
