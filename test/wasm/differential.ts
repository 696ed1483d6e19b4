// The Wasm back end as a differential evaluator over the conformance cases, in two
// hosts: Regent's own (the conformance runner's Wasm evaluator, test/conformance/
// run-wasm.ts, through the Backend interface) and OPA's SDK (sdk-host.ts). A case whose
// query is `data.<path> = x` (or several joined by `;`) is compiled to policy.wasm with
// those paths as the entrypoints; the values must equal the JS back end's. Cases that
// cannot run on Wasm (another query shape, a compile error, an expected error, a
// construct the back end refuses) are "unsupported", with reasons; this file counts
// them per folder.
import { WasmPolicy } from '../../runtime/wasm/host.js';
import type { LoadedCase } from '../conformance/load.js';
import { canonical, wasmVerdict, type WasmHost, type WasmVerdict } from '../conformance/run-wasm.js';

export { canonical };
export type Verdict = WasmVerdict;

/** A host: load a module, set data, evaluate one entrypoint (0) → result set JSON. */
export type Host = WasmHost;

/** Builtins OPA's JS SDK implements itself (node_modules/@open-policy-agent/opa-wasm/src/builtins). */
const SDK_SUPPLIED = new Set(['sprintf', 'json.is_valid', 'regex.split', 'yaml.is_valid', 'yaml.marshal', 'yaml.unmarshal']);

/** The SDK-supplied builtins a module imports (a difference there is the SDK's, not Regent's). */
async function sdkBuiltins(wasm: Uint8Array): Promise<string[]> {
  return (await WasmPolicy.load(wasm)).builtinNames.filter((n) => SDK_SUPPLIED.has(n));
}

/** One case; without `host`, in Regent's host through the Backend interface (the runner's Wasm evaluator). */
export function runWasmCase(c: LoadedCase, host?: Host): Promise<Verdict> {
  return wasmVerdict(c, host, sdkBuiltins);
}

export interface FolderCount {
  pass: number;
  unsupported: number;
  disagree: number;
  hostdiff: number;
}

/** Counts per folder, plus unsupported reasons (reason → count) and disagreements. */
export async function runAll(cases: LoadedCase[], host?: Host) {
  const folders = new Map<string, FolderCount>();
  const reasons = new Map<string, number>();
  const disagreements: { id: string; folder: string; want: unknown; got: unknown }[] = [];
  const hostdiffs: { id: string; builtins: string[]; want: unknown; got: unknown }[] = [];
  for (const c of cases) {
    const v = await runWasmCase(c, host);
    const f = folders.get(c.folder) ?? { pass: 0, unsupported: 0, disagree: 0, hostdiff: 0 };
    folders.set(c.folder, f);
    f[v.status]++;
    if (v.status === 'unsupported') {
      const r = v.reason.replace(/rule [\w.]+: /, 'rule …: ').replace(/document [\w.]+ /, 'document … ');
      reasons.set(r, (reasons.get(r) ?? 0) + 1);
    }
    if (v.status === 'disagree') disagreements.push({ id: c.id, folder: c.folder, want: v.want, got: v.got });
    if (v.status === 'hostdiff') hostdiffs.push({ id: c.id, builtins: v.builtins, want: v.want, got: v.got });
  }
  return { folders, reasons, disagreements, hostdiffs };
}
