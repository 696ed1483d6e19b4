// The public entry of the Wasm back end as compiler/index.ts exports it: binaryen
// (several MB of JS with an asynchronous start) is loaded only on the first call, so
// the CLI, the server and the JS back ends never pay for it.
import type { CompiledPolicy } from '../../policy.js';
import type { CompileOptions, SourceFile } from '../../api.js';

export { WasmUnsupportedError } from './errors.js';

export interface WasmCompileOptions {
  /** binaryen optimization level (0 = none; 1..3 as `opa build -O`). Default 1. */
  optimize?: number;
  /** Options for compiling sources (when `policy` is a list of files). */
  compile?: CompileOptions;
}

/** policy.wasm (OPA Wasm ABI 1.3) for `entrypoints` (`'rbac/allow'`, `'data.rbac.allow'` or `['rbac', 'allow']`). */
export async function compileWasm(
  policy: CompiledPolicy | SourceFile[],
  entrypoints: (string | string[])[],
  opts: WasmCompileOptions = {},
): Promise<Uint8Array> {
  const m = await import('./index.js');
  return m.compileWasm(policy, entrypoints, opts);
}
