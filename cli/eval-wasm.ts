// `regent eval -t wasm <data.pkg.rule>`: evaluates a decision through the Wasm back
// end, as `opa eval -t wasm` does: the query's path becomes the module's entrypoint,
// the loaded data is set with setData, and the module runs in Regent's host
// (runtime/wasm/host.ts, every builtin available), through the Backend interface. Only queries that are a plain
// `data.…` reference are supported here; others are a usage error.
import type { CompiledPolicy } from '../compiler/policy.js';
import type { ResultRow } from '../compiler/api.js';
import type { Value } from '../runtime/value/index.js';
import { UsageError } from './args.js';

const REF = /^\s*data((?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*$/;

export async function evaluateWasm(policy: CompiledPolicy, query: string, data: Value, input: Value | undefined): Promise<ResultRow[]> {
  const m = REF.exec(query);
  if (!m) throw new UsageError('-t wasm evaluates a data reference (e.g. data.rbac.allow)');
  const path = m[1]!.split('.').filter((s) => s !== '');
  // the Backend interface (compiler/backend.ts) over a module built for this one path;
  // decideInWasm, not decide: -t wasm reports the module's errors instead of asking JS
  const { compileWasm, createBackend, WasmBackend } = await import('../compiler/index.js');
  const backend = await createBackend('wasm', policy, { wasm: await compileWasm(policy, [path]) });
  if (!(backend instanceof WasmBackend)) throw new Error('no wasm module');
  backend.setData(data);
  const value = backend.decideInWasm(path, input === undefined ? {} : { input });
  if (value === undefined) return [];
  const col = query.length - query.trimStart().length + 1;
  return [{ expressions: [{ value, text: query.trim(), location: { row: 1, col } }], bindings: {} }];
}
