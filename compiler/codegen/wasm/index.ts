// The WebAssembly back end's entry point: `compileWasm(policy, entrypoints)` turns a
// compiled policy (its IR) or Rego sources into a policy.wasm that follows OPA's Wasm
// ABI 1.3 and loads in OPA's SDKs (`@open-policy-agent/opa-wasm`). Constructs outside
// the supported slice throw WasmUnsupportedError (code `wasm_unsupported`) at compile
// time, never a wrong answer at run time. See compiler/README.md, "WebAssembly".
import { compile, type CompiledPolicy } from '../../policy.js';
import type { CompileOptions, SourceFile } from '../../api.js';
import { linkPolicy, type WasmCompileOptions } from './link.js';

export { WasmUnsupportedError } from './body.js';
export { runtimeWasm, type WasmCompileOptions } from './link.js';

/** policy.wasm for `entrypoints` (`'rbac/allow'`, `'data.rbac.allow'` or `['rbac', 'allow']`). */
export function compileWasm(
  policy: CompiledPolicy | SourceFile[],
  entrypoints: (string | string[])[],
  opts: WasmCompileOptions & { compile?: CompileOptions } = {},
): Uint8Array {
  const compiled = Array.isArray(policy) ? compile(policy, opts.compile) : policy;
  return linkPolicy(compiled.ir, entrypoints, opts);
}
