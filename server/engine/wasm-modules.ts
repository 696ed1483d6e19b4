// Which Wasm modules the evaluators run, decided on the main thread at each policy
// change: the /policy.wasm of every active bundle that ships one (its manifest's
// `wasm` entrypoints), and with `--backend wasm` one module the engine compiles from
// the current policies, for every rule and package path no bundle module serves and
// the Wasm back end compiles (refused ones stay on JS). The bytes then travel to the
// workers with the policy update (server/engine/wasm-decisions.ts runs them).
import { compileSupportedWasm, wasmEntrypoints, type CompiledPolicy } from '../../compiler/index.js';
import type { Bundle } from '../../runtime/index.js';

/** The back end the engine evaluates Data API decisions on (`--backend`, config `regent.backend`). */
export type EngineBackend = 'js' | 'wasm';

/** A module the engine hands to every evaluator (structured-clone safe). */
export interface WasmModuleSpec {
  /** `engine` (compiled from the policies) or `bundle:<name>`. */
  source: string;
  bytes: Uint8Array;
  /** The decision paths it serves (`['rbac', 'allow']`). */
  entrypoints: string[][];
}

/** What the last build did (GET-able by tests and logs). */
export interface WasmBuildReport {
  specs: WasmModuleSpec[];
  /** Engine entrypoints the Wasm back end refused, with the reason (served by JS). */
  refused: { path: string; reason: string }[];
  /** Set when compiling the engine module failed outright (everything on JS). */
  error?: string;
}

function segments(entrypoint: string): string[] {
  return entrypoint.replace(/^data[./]/, '').split(/[./]/).filter((s) => s !== '');
}

/** A bundle's /policy.wasm and its manifest entrypoints, or undefined when it ships none. */
export function bundleWasmSpec(name: string, bundle: Bundle): WasmModuleSpec | undefined {
  const wasm = bundle.wasmModules ?? [];
  const entries = (bundle.manifest.wasm ?? []) as { entrypoint?: unknown; module?: unknown }[];
  if (wasm.length === 0 || entries.length === 0) return undefined;
  // OPA allows several modules; each entry names its module. One spec per bundle
  // covers the common case (build -t wasm writes one): the first module with entries.
  const first = wasm.find((w) => entries.some((e) => String(e.module).replace(/^\/+/, '') === w.path.replace(/^\/+/, '')));
  if (first === undefined) return undefined;
  const eps = entries.filter((e) => String(e.module).replace(/^\/+/, '') === first.path.replace(/^\/+/, '')).map((e) => segments(String(e.entrypoint)));
  return { source: `bundle:${name}`, bytes: first.raw, entrypoints: eps };
}

/** The modules for `policy`: the bundles' own, plus the engine's when the back end is wasm. */
export async function buildWasmModules(policy: CompiledPolicy, backend: EngineBackend, bundles: WasmModuleSpec[]): Promise<WasmBuildReport> {
  const specs = [...bundles];
  if (backend !== 'wasm') return { specs, refused: [] };
  const taken = new Set(bundles.flatMap((b) => b.entrypoints.map((p) => p.join('/'))));
  const wanted = wasmEntrypoints(policy).filter((p) => !taken.has(p.join('/')));
  try {
    const built = await compileSupportedWasm(policy, wanted);
    if (built.wasm) specs.push({ source: 'engine', bytes: built.wasm, entrypoints: built.entrypoints });
    return { specs, refused: built.refused.map((r) => ({ path: r.path.join('/'), reason: r.reason })) };
  } catch (e) {
    return { specs, refused: [], error: e instanceof Error ? e.message : String(e) };
  }
}
