// The Wasm back end as a differential evaluator over the conformance cases: a case
// whose query is `data.<path> = x` (or just `data.<path>`, or several joined by `;`) is
// compiled to policy.wasm with those paths as the entrypoints and evaluated through a Wasm host (Regent's own,
// or OPA's SDK); the value must equal what the JS back end gives for the same
// decision. Cases that cannot run on Wasm (another query shape, a compile error, an
// expected error, a construct the back end refuses) are "unsupported", with reasons.
import { compile, compileWasm, WasmUnsupportedError } from '../../compiler/index.js';
import { toJS, fromJS } from '../../runtime/value/json.js';
import { WasmPolicy } from '../../runtime/wasm/host.js';
import type { LoadedCase } from '../conformance/load.js';
import { termToValue, parseTerm } from '../../compiler/index.js';

export type Verdict =
  | { status: 'pass' }
  | { status: 'unsupported'; reason: string }
  | { status: 'disagree'; want: unknown; got: unknown }
  /** A difference that comes from a host's own JS builtin (e.g. the SDK's sprintf), not from Regent. */
  | { status: 'hostdiff'; builtins: string[]; want: unknown; got: unknown };

/** A host: load a module, set data, evaluate one entrypoint (0) → result set JSON. */
export type Host = (wasm: Uint8Array, data: unknown, input: unknown, entrypoint?: number) => Promise<unknown[]>;

export const regentHost: Host = async (wasm, data, input, entrypoint = 0) => {
  const p = await WasmPolicy.load(wasm);
  p.setData(data ?? {});
  return p.evaluate(input, entrypoint);
};

/** JSON with sorted keys, for comparing values. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return '{' + Object.keys(o).sort().map((k) => JSON.stringify(k) + ':' + canonical(o[k])).join(',') + '}';
  }
  return JSON.stringify(v);
}

/** Builtins OPA's JS SDK implements itself (node_modules/@open-policy-agent/opa-wasm/src/builtins). */
const SDK_SUPPLIED = new Set(['sprintf', 'json.is_valid', 'regex.split', 'yaml.is_valid', 'yaml.marshal', 'yaml.unmarshal']);

const QUERY = /^\s*data((?:\.[A-Za-z_][\w]*)+)\s*(?:=\s*([A-Za-z_]\w*))?\s*$/;

function inputOf(c: LoadedCase): unknown {
  if (c.input_term !== undefined) return toJS(termToValue(parseTerm(c.input_term)));
  return c.input;
}

export async function runWasmCase(c: LoadedCase, host: Host = regentHost): Promise<Verdict> {
  // `data.a.b = x` or several of them joined by `;` (one entrypoint each)
  const parts = c.query.trim().split(/\s*;\s*|\n+/).filter((x) => x.trim() !== '').map((x) => QUERY.exec(x));
  if (parts.length === 0 || parts.some((x) => !x)) return { status: 'unsupported', reason: 'query is not data.<path> = x' };
  const wantsError = c.want_error !== undefined || c.want_error_code !== undefined;
  if (c.env) return { status: 'unsupported', reason: 'case sets environment variables' };
  const paths = parts.map((q) => q![1]!.slice(1).split('.'));
  let policy;
  try {
    policy = compile((c.modules ?? []).map((text, i) => ({ file: `mod${i}.rego`, text, v0Compatible: c.v0_compatible })));
  } catch {
    return { status: 'unsupported', reason: wantsError ? 'case expects a compile error' : 'compile error (JS back end)' };
  }
  let input: unknown;
  try {
    input = inputOf(c);
  } catch {
    return { status: 'unsupported', reason: 'input_term' };
  }
  let want: unknown;
  let jsError = false;
  try {
    const vs = paths.map((path) => policy.prepareDecision(path)({ input: input === undefined ? undefined : fromJS(input), data: fromJS(c.data ?? {}) }));
    want = vs.some((v) => v === undefined) ? [] : vs.map((v) => [{ result: toJS(v!) }]);
  } catch {
    jsError = true;
  }
  let wasm: Uint8Array;
  try {
    wasm = await compileWasm(policy, paths, { optimize: 0 });
  } catch (e) {
    if (e instanceof WasmUnsupportedError) return { status: 'unsupported', reason: e.message };
    return { status: 'unsupported', reason: `wasm compile crash: ${e instanceof Error ? e.message : String(e)}` };
  }
  let got: unknown;
  try {
    const sets: unknown[][] = [];
    for (let i = 0; i < paths.length; i++) sets.push(await host(wasm, c.data ?? {}, input, i));
    got = sets.some((r) => r.length === 0) ? [] : sets;
  } catch (e) {
    // both raise an error: what the case wants (error texts differ by design: opa_abort)
    const msg = e instanceof Error ? e.message : String(e);
    if (jsError && !msg.includes('not supported on wasm')) return { status: 'pass' };
    return { status: 'unsupported', reason: `wasm run error: ${e instanceof Error ? e.message : String(e)}`.slice(0, 160) };
  }
  // The JS back end raises an error where the module answers: reported, not hidden
  // (builtin errors are undefined on Wasm, as in OPA's own Wasm, rather than errors).
  if (jsError) return { status: 'unsupported', reason: 'error on the JS back end, a result on wasm' };
  if (canonical(want) !== canonical(got)) {
    if (host !== regentHost) {
      // only the SDK's own JS builtins count (not natives that hand some inputs to the host)
      const builtins = (await WasmPolicy.load(wasm)).builtinNames.filter((n) => SDK_SUPPLIED.has(n));
      if (builtins.length > 0) return { status: 'hostdiff', builtins, want, got };
    }
    return { status: 'disagree', want, got };
  }
  return { status: 'pass' };
}

export interface FolderCount {
  pass: number;
  unsupported: number;
  disagree: number;
  hostdiff: number;
}

/** Counts per folder, plus unsupported reasons (reason → count) and disagreements. */
export async function runAll(cases: LoadedCase[], host: Host = regentHost) {
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
