// The conformance runner's Wasm evaluator: a case whose query is `data.<path> = x` (or
// just `data.<path>`, or several joined by `;`) is compiled to policy.wasm with those
// paths as the entrypoints (compileSupportedWasm) and run on the Wasm back end from
// createBackend (compiler/backend.ts), each path in the module itself (decideInWasm:
// no JS fallback); the values must equal the JS back end's decisions (createJSBackend).
// Cases that cannot run on Wasm — another query shape, a compile error, an `env`
// block, a construct the Wasm back end refuses, an error where the JS back end
// answers — are `unsupported`, with a reason. The same comparison runs in other Wasm
// hosts (OPA's SDK in test/wasm/differential.ts) through `host`.
import { compile, compileSupportedWasm, createBackend, createJSBackend, parseTerm, termToValue, WasmBackend, type CompiledPolicy } from '../../compiler/index.js';
import { fromJS, toJS, type Value } from '../../runtime/value/index.js';
import type { LoadedCase } from './load.js';
import type { CaseResult, RunOptions } from './run-case.js';

/** Another Wasm host: load a module, set data, evaluate one entrypoint → the result set as JSON. */
export type WasmHost = (wasm: Uint8Array, data: unknown, input: unknown, entrypoint?: number) => Promise<unknown[]>;

export type WasmVerdict =
  | { status: 'pass' }
  | { status: 'unsupported'; reason: string }
  | { status: 'disagree'; want: unknown; got: unknown }
  /** A difference that comes from a host's own JS builtin (e.g. the SDK's sprintf), not from Regent. */
  | { status: 'hostdiff'; builtins: string[]; want: unknown; got: unknown };

/** JSON with sorted keys, for comparing values. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return '{' + Object.keys(o).sort().map((k) => JSON.stringify(k) + ':' + canonical(o[k])).join(',') + '}';
  }
  return JSON.stringify(v);
}

const QUERY = /^\s*data((?:\.[A-Za-z_][\w]*)+)\s*(?:=\s*([A-Za-z_]\w*))?\s*$/;
const DEADLINE_MS = 10_000;

/** The case's decision paths, or undefined when its query has another shape. */
export function wasmPaths(c: LoadedCase): string[][] | undefined {
  const parts = c.query.trim().split(/\s*;\s*|\n+/).filter((x) => x.trim() !== '').map((x) => QUERY.exec(x));
  if (parts.length === 0 || parts.some((x) => !x)) return undefined;
  return parts.map((q) => q![1]!.slice(1).split('.'));
}

/** Result sets (`[[{result}]…]`, or `[]` when some path is undefined) from Regent's host, through the Backend interface. */
async function regentResults(policy: CompiledPolicy, wasm: Uint8Array, paths: string[][], data: Value, input: Value | undefined): Promise<unknown> {
  const backend = await createBackend('wasm', policy, { wasm });
  if (!(backend instanceof WasmBackend)) throw new Error('createBackend gave no Wasm back end');
  backend.setData(data);
  const deadline = Date.now() + DEADLINE_MS;
  const values = paths.map((path) => backend.decideInWasm(path, { ...(input !== undefined ? { input } : {}), deadline }));
  return values.some((v) => v === undefined) ? [] : values.map((v) => [{ result: toJS(v!) }]);
}

/** `data.<path>` cases on the Wasm back end against the JS back end; `host` replaces Regent's. */
export async function wasmVerdict(c: LoadedCase, host?: WasmHost, sdkBuiltins?: (wasm: Uint8Array) => Promise<string[]>): Promise<WasmVerdict> {
  const paths = wasmPaths(c);
  if (!paths) return { status: 'unsupported', reason: 'query is not data.<path> = x' };
  const wantsError = c.want_error !== undefined || c.want_error_code !== undefined;
  if (c.env) return { status: 'unsupported', reason: 'case sets environment variables' };
  let policy: CompiledPolicy;
  try {
    policy = compile((c.modules ?? []).map((text, i) => ({ file: `mod${i}.rego`, text, v0Compatible: c.v0_compatible })));
  } catch {
    return { status: 'unsupported', reason: wantsError ? 'case expects a compile error' : 'compile error (JS back end)' };
  }
  let input: Value | undefined;
  try {
    // the input a Wasm host can be given is JSON (a set in input_term becomes an array): both back ends get that
    input = c.input_term !== undefined ? fromJS(toJS(termToValue(parseTerm(c.input_term)))) : c.input === undefined ? undefined : fromJS(c.input);
  } catch {
    return { status: 'unsupported', reason: 'input_term' };
  }
  const data = fromJS(c.data ?? {});
  let want: unknown;
  let jsError = false;
  try {
    const js = createJSBackend('js', policy);
    js.setData(data);
    const vs = paths.map((path) => js.prepareDecision(path).eval(input, undefined, false, Date.now() + DEADLINE_MS));
    want = vs.some((v) => v === undefined) ? [] : vs.map((v) => [{ result: toJS(v!) }]);
  } catch {
    jsError = true;
  }
  let wasm: Uint8Array | undefined;
  try {
    const built = await compileSupportedWasm(policy, paths, 0);
    if (built.refused.length > 0 || !built.wasm) return { status: 'unsupported', reason: built.refused[0]?.reason ?? 'no module' };
    wasm = built.wasm;
  } catch (e) {
    return { status: 'unsupported', reason: `wasm compile crash: ${e instanceof Error ? e.message : String(e)}` };
  }
  let got: unknown;
  try {
    if (host === undefined) got = await regentResults(policy, wasm, paths, data, input);
    else {
      const sets: unknown[][] = [];
      const inputJSON = input === undefined ? undefined : toJS(input);
      for (let i = 0; i < paths.length; i++) sets.push(await host(wasm, c.data ?? {}, inputJSON, i));
      got = sets.some((r) => r.length === 0) ? [] : sets;
    }
  } catch (e) {
    // both raise an error: what the case wants (error texts differ by design: opa_abort)
    const msg = e instanceof Error ? e.message : String(e);
    if (jsError && !msg.includes('not supported on wasm')) return { status: 'pass' };
    return { status: 'unsupported', reason: `wasm run error: ${msg}`.slice(0, 160) };
  }
  // The JS back end raises an error where the module answers: reported, not hidden
  // (builtin errors are undefined on Wasm, as in OPA's own Wasm, rather than errors).
  if (jsError) return { status: 'unsupported', reason: 'error on the JS back end, a result on wasm' };
  if (canonical(want) !== canonical(got)) {
    const builtins = host !== undefined && sdkBuiltins ? await sdkBuiltins(wasm) : [];
    if (builtins.length > 0) return { status: 'hostdiff', builtins, want, got };
    return { status: 'disagree', want, got };
  }
  return { status: 'pass' };
}

/** One case on the Wasm evaluator as a runner result: a disagreement is a failure. */
export async function runWasmCase(c: LoadedCase, opts: RunOptions = {}): Promise<CaseResult> {
  const start = performance.now();
  const base = { id: c.id, folder: c.folder, file: c.file };
  const skipReason = opts.skip?.[c.id];
  if (skipReason !== undefined) return { ...base, status: 'skip', reason: skipReason, ms: 0 };
  let v: WasmVerdict;
  try {
    v = await wasmVerdict(c);
  } catch (e) {
    return { ...base, status: 'fail', reason: `runner error: ${e instanceof Error ? e.message : String(e)}`, ms: performance.now() - start };
  }
  const ms = performance.now() - start;
  if (v.status === 'pass') return { ...base, status: 'pass', ms };
  if (v.status === 'unsupported') return { ...base, status: 'unsupported', reason: v.reason, ms };
  const reason = 'wasm disagrees with the JS back end';
  return { ...base, status: 'fail', reason, expected: canonical(v.want), actual: canonical(v.got), ms };
}
