// Kubernetes admission workload (warm, in process): three gatekeeper-library templates
// (general/requiredlabels, general/allowedrepos, general/containerlimits with its
// lib.exempt_container library), read from ../shared/rego-corpus/gatekeeper-library and
// compiled as v0 Rego, each deciding `violation` over 32 pod AdmissionReviews
// (bench/fixtures/admission/reviews.ts). Baseline: the same decisions written by hand
// (bench/fixtures/admission/hand-written.ts). Every review's result is checked against
// the hand-written function first (JS back end and Wasm), then both are timed in
// alternating rounds. Run alone: npx tsx bench/admission.bench.ts; with `--against DIR`
// (another checkout of Regent with node_modules, e.g. `git archive` of an older commit
// plus a node_modules link) that tree's compiler and values are checked and timed in
// the same rounds, and a row gives this tree's time over that tree's.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compile } from '../compiler/index.js';
import { fromJS, toJS, type Value } from '../runtime/index.js';
import { sharedDir } from '../test/shared-dir.js';
import { allowedRepos, containerLimits, requiredLabels } from './fixtures/admission/hand-written.js';
import { allowedReposParams, containerLimitsParams, makeReviews, requiredLabelsParams, type AdmissionInput } from './fixtures/admission/reviews.js';
import { alternateRounds, canonical, loadWasm, type Row } from './timing.js';

interface Template {
  name: string;
  files: string[];
  pkg: string;
  params: Record<string, unknown>;
  handWritten: (i: AdmissionInput) => unknown[];
}

const TEMPLATES: Template[] = [
  { name: 'requiredlabels', files: ['general/requiredlabels/src.rego'], pkg: 'k8srequiredlabels', params: requiredLabelsParams, handWritten: requiredLabels },
  { name: 'allowedrepos', files: ['general/allowedrepos/src.rego'], pkg: 'k8sallowedrepos', params: allowedReposParams, handWritten: allowedRepos },
  {
    name: 'containerlimits',
    files: ['general/containerlimits/src.rego', 'general/containerlimits/lib_exempt_container.rego'],
    pkg: 'k8scontainerlimits',
    params: containerLimitsParams,
    handWritten: containerLimits,
  },
];

/** Another checkout's compiler and value conversions (`--against DIR`). */
export interface OtherTree {
  dir: string;
  compile: typeof compile;
  fromJS: typeof fromJS;
  toJS: typeof toJS;
}

/** Loads `dir`'s compiler/index.ts and runtime/index.ts (run under tsx). */
export async function loadTree(dir: string): Promise<OtherTree> {
  const c = (await import(pathToFileURL(join(resolve(dir), 'compiler', 'index.ts')).href)) as { compile: typeof compile };
  const r = (await import(pathToFileURL(join(resolve(dir), 'runtime', 'index.ts')).href)) as { fromJS: typeof fromJS; toJS: typeof toJS };
  return { dir, compile: c.compile, fromJS: r.fromJS, toJS: r.toJS };
}

/** A violation set as comparable text: members in canonical order. */
const setText = (xs: unknown): string => canonical((xs as unknown[]).map(canonical).sort());

export async function runAdmissionBench(opts: { rounds?: number; time?: number; log?: (s: string) => void; against?: OtherTree } = {}): Promise<Row[]> {
  const log = opts.log ?? console.log;
  const root = join(sharedDir(), 'rego-corpus', 'gatekeeper-library', 'src');
  if (!existsSync(root)) {
    log(`admission: skipped, ${root} is missing`);
    return [];
  }
  const rows: Row[] = [];
  for (const t of TEMPLATES) {
    const policy = compile(t.files.map((f) => ({ file: f, text: readFileSync(join(root, f), 'utf8'), v0Compatible: true })), { v0Compatible: true });
    const path = [t.pkg, 'violation'];
    const decide = policy.prepareDecision(path);
    const reviews = makeReviews(32, t.params);
    const values = reviews.map((r) => fromJS(r));
    const empty = fromJS({});
    let wasm = await loadWasm(policy, [path], {});
    let fired = 0;
    reviews.forEach((r, k) => {
      const want = setText(t.handWritten(r));
      const got = setText(toJS(decide({ input: values[k]!, data: empty }) as Value) ?? []);
      if (got !== want) throw new Error(`admission ${t.name}: review ${k} disagrees with the hand-written function\nregent ${got}\nhand   ${want}`);
      if (want !== '[]') fired++;
      if ('host' in wasm) {
        let w: string;
        try {
          w = setText(wasm.host.evaluate(r)[0]?.result ?? []);
        } catch (e) {
          wasm = { skipped: `review ${k}: ${(e as Error).message}` };
          return;
        }
        if (w !== want) throw new Error(`admission ${t.name} (wasm): review ${k} disagrees\nwasm ${w}\nhand ${want}`);
      }
    });
    if (fired === 0 || fired === reviews.length) throw new Error(`admission ${t.name}: reviews should both pass and fail (${fired} of ${reviews.length} fail)`);
    let i = 0;
    let sink = 0;
    const tasks: Record<string, () => void> = {
      js: () => { if (decide({ input: values[i++ & 31]!, data: empty }) !== undefined) sink++; },
      hand: () => { if (t.handWritten(reviews[i++ & 31]!).length >= 0) sink++; },
    };
    const other = opts.against;
    if (other) {
      const prev = other.compile(t.files.map((f) => ({ file: f, text: readFileSync(join(root, f), 'utf8'), v0Compatible: true })), { v0Compatible: true }).prepareDecision(path);
      const prevValues = reviews.map((r) => other.fromJS(r));
      const prevEmpty = other.fromJS({});
      reviews.forEach((r, k) => {
        const got = setText(other.toJS(prev({ input: prevValues[k]!, data: prevEmpty }) as Value) ?? []);
        if (got !== setText(t.handWritten(r))) throw new Error(`admission ${t.name} (${other.dir}): review ${k} disagrees with the hand-written function`);
      });
      tasks.before = () => { if (prev({ input: prevValues[i++ & 31]!, data: prevEmpty }) !== undefined) sink++; };
    }
    const host = 'host' in wasm ? wasm.host : undefined;
    if (host) tasks.wasm = () => { if (host.evaluate(reviews[i++ & 31]!).length > 0) sink++; };
    else if ('skipped' in wasm) log(`admission ${t.name}: no Wasm row (${wasm.skipped})`);
    const r = await alternateRounds(tasks, 'hand', { warmCalls: 5000, ...opts });
    if (sink < 0) log(String(sink));
    const base = { baseline: 'hand-written JS', unit: 'ns/decision', baselineValue: r.ns.hand!, target: '—' };
    rows.push({ ...base, workload: `admission ${t.name} violation (${fired}/32 deny)`, value: r.ns.js!, ratio: r.ratio.js! });
    if ('host' in wasm) rows.push({ ...base, workload: `admission ${t.name} violation, Wasm`, value: r.ns.wasm!, ratio: r.ratio.wasm! });
    if (other) {
      const ratio = r.ratio.js! / r.ratio.before!;
      rows.push({ workload: `admission ${t.name} violation, this tree vs ${other.dir}`, baseline: other.dir, unit: 'ns/decision', value: r.ns.js!, baselineValue: r.ns.before!, ratio, target: '—' });
    }
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--against');
  const against = at > 0 && process.argv[at + 1] ? await loadTree(process.argv[at + 1]!) : undefined;
  for (const r of await runAdmissionBench({ against })) console.log(`${r.workload}: ${r.value.toFixed(0)} ns vs ${r.baselineValue.toFixed(0)} ns ${r.baseline}, ${r.ratio.toFixed(2)}x`);
}
