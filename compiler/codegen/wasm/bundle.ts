// `regent build -t wasm -e <pkg/rule>`: compiles a bundle's modules to /policy.wasm
// (OPA Wasm ABI) and records the manifest's `wasm` entries, as `opa build -t wasm`
// does. Returns a one-line size report for the command to print.
import { compile } from '../../policy.js';
import type { Bundle } from '../../../runtime/bundles/index.js';
import { compileWasm } from './lazy.js';
import { WasmUnsupportedError } from './errors.js';

export async function addWasmModule(bundle: Bundle, entrypoints: string[], optimize = 1): Promise<string> {
  if (entrypoints.length === 0) throw new WasmUnsupportedError('a wasm build without entrypoints (give one or more -e pkg/rule)');
  const eps = entrypoints.map((e) => e.replace(/^data[./]/, '').replace(/\./g, '/'));
  const v0 = bundle.manifest.rego_version === 0;
  const policy = compile(
    bundle.modules.map((m) => ({ file: m.path, text: m.text, v0Compatible: m.regoVersion === undefined ? v0 : m.regoVersion === 0 })),
    { v0Compatible: v0 },
  );
  const t = Date.now();
  const raw = await compileWasm(policy, eps, { optimize });
  bundle.wasmModules = [{ path: '/policy.wasm', raw }];
  bundle.manifest.wasm = eps.map((entrypoint) => ({ entrypoint, module: '/policy.wasm' }));
  return `policy.wasm: ${raw.length} bytes, ${eps.length} entrypoint(s) (${eps.join(', ')}), -O${optimize}, ${Date.now() - t} ms`;
}
