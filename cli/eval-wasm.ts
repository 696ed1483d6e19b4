// `regent eval -t wasm <data.pkg.rule>`: evaluates a decision through the Wasm back
// end, as `opa eval -t wasm` does: the query's path becomes the module's entrypoint,
// the loaded data is set with setData, and the module runs in Regent's host
// (runtime/wasm/host.ts, every builtin available). Only queries that are a plain
// `data.…` reference are supported here; others are a usage error.
import type { CompiledPolicy } from '../compiler/policy.js';
import type { ResultRow } from '../compiler/api.js';
import { fromJS, toJS, type Value } from '../runtime/value/index.js';
import { UsageError } from './args.js';

const REF = /^\s*data((?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*$/;

export async function evaluateWasm(policy: CompiledPolicy, query: string, data: Value, input: Value | undefined): Promise<ResultRow[]> {
  const m = REF.exec(query);
  if (!m) throw new UsageError('-t wasm evaluates a data reference (e.g. data.rbac.allow)');
  const path = m[1]!.split('.').filter((s) => s !== '');
  const { compileWasm } = await import('../compiler/codegen/wasm/lazy.js');
  const { WasmPolicy } = await import('../runtime/wasm/host.js');
  const host = await WasmPolicy.load(await compileWasm(policy, [path]));
  host.setData(toJS(data));
  const rs = host.evaluate(input === undefined ? undefined : toJS(input), 0);
  const col = query.length - query.trimStart().length + 1;
  return rs.map((r) => ({ expressions: [{ value: fromJS(r.result), text: query.trim(), location: { row: 1, col } }], bindings: {} }));
}
