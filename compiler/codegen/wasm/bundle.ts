// `regent build -t wasm -e <pkg/rule>`: compiles a bundle's modules to /policy.wasm
// (OPA Wasm ABI) and records the manifest's `wasm` entries, as `opa build -t wasm`
// does; rules (or packages) annotated `entrypoint: true` are entrypoints too. Returns a
// one-line size report for the command to print.
import { compile, type CompiledPolicy } from '../../policy.js';
import type { Bundle } from '../../../runtime/bundles/index.js';
import { compileWasm } from './lazy.js';
import { WasmUnsupportedError } from './errors.js';

/** Rules annotated `entrypoint: true` (METADATA), as `pkg/rule` paths. */
export function annotatedEntrypoints(policy: CompiledPolicy): string[] {
  const out: string[] = [];
  for (const g of policy.ir.groups) {
    if (g.defs.some((d) => d.src?.annotations?.some((a) => a.entrypoint))) out.push(g.path.join('/'));
  }
  for (const m of policy.modules) {
    if (!m.annotations.some((a) => a.entrypoint)) continue;
    const path = m.package.path.map((t) => (t as { value?: unknown }).value).filter((v): v is string => typeof v === 'string');
    out.push(path.join('/'));
  }
  return [...new Set(out)];
}

export async function addWasmModule(bundle: Bundle, entrypoints: string[], optimize = 1): Promise<string> {
  const v0 = bundle.manifest.rego_version === 0;
  const policy = compile(
    bundle.modules.map((m) => ({ file: m.path, text: m.text, v0Compatible: m.regoVersion === undefined ? v0 : m.regoVersion === 0 })),
    { v0Compatible: v0 },
  );
  const eps = [...new Set([...entrypoints.map((e) => e.replace(/^data[./]/, '').replace(/\./g, '/')), ...annotatedEntrypoints(policy)])];
  if (eps.length === 0) throw new WasmUnsupportedError('a wasm build without entrypoints (give one or more -e pkg/rule, or METADATA entrypoint: true)');
  const t = Date.now();
  const raw = await compileWasm(policy, eps, { optimize });
  bundle.wasmModules = [{ path: '/policy.wasm', raw }];
  bundle.manifest.wasm = eps.map((entrypoint) => ({ entrypoint, module: '/policy.wasm' }));
  return `policy.wasm: ${raw.length} bytes, ${eps.length} entrypoint(s) (${eps.join(', ')}), -O${optimize}, ${Date.now() - t} ms`;
}
