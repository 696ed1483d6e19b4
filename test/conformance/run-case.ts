// Running one conformance case against the compiler's public contract, judged the
// way OPA's own runner (v1/topdown/topdown_test.go, testRun) judges it:
//   - modules are files `test-<i>.rego`; `data` is the base document (empty when
//     absent); `input_term` (a Rego term) wins over `input` (JSON);
//   - want_error: an error must occur and its text (`file:row: code: message`)
//     must contain the string; want_error_code: the error's code must match (for
//     compile errors, any of the reported RegoErrors); any other error fails;
//   - rows are compared as JSON (sets → sorted arrays, non-string keys → JSON
//     text), in order, as the suite's README specifies; with sort_bindings both
//     lists of rows are sorted first, and so are array-valued bindings (OPA's
//     runner sorts those; it compares rows as a set, which is more lenient than
//     this); ignore_generated_vars drops compiler-generated names;
//   - no want_result and no expected error means "undefined": no rows.
// A case whose query is `data.<path> = x` is also decided through the back end's
// prepared decision for that path, three times (the case's input, another input, the
// case's input again): the third answer must be the query's (x, undefined, or an
// error when the query failed). The later decisions run in the context the earlier
// ones released (EvalContext.release, compiler/policy.ts ContextKeeper), so this also
// checks that nothing of one decision reaches the next.
// Nothing thrown by the engine escapes: every failure becomes a `fail` result.
// The evaluator is chosen through the Backend interface (compiler/backend.ts):
// `js` (default), `closures` or `interp` here; `wasm` in run-wasm.ts (runCaseOn
// dispatches), where cases the Wasm back end cannot run are `unsupported`.
import * as regent from '../../compiler/index.js';
import { createJSBackend, type BackendName } from '../../compiler/index.js';
import type { ResultRow } from '../../compiler/api.js';
import type { Term } from '../../compiler/ast/nodes.js';
import { compare, fromJS, toJS, toJSONText, type JSONValue, type Value } from '../../runtime/value/index.js';
import type { LoadedCase } from './load.js';
import { termToValue as localTermToValue } from './term-value.js';
import { withEnv, restoreEnv } from './env.js';

export type Status = 'pass' | 'fail' | 'skip' | 'unsupported';

export interface CaseResult {
  id: string;
  folder: string;
  file: string;
  status: Status;
  /** Why it failed or was skipped. */
  reason?: string;
  /** Canonical JSON of the expected and actual outcome (failures only). */
  expected?: string;
  actual?: string;
  ms: number;
}

export interface RunOptions {
  /** id → reason for cases not to run. */
  skip?: Record<string, string>;
  /** Evaluation deadline per case (default 10 s). */
  timeoutMs?: number;
  /** The back end to run on (default js); see runCaseOn for wasm. */
  backend?: BackendName;
}

/** What the engine produced: rows, or an error thrown at some stage. */
interface Outcome {
  rows?: ResultRow[];
  error?: unknown;
  stage?: 'input' | 'compile' | 'prepare' | 'eval';
  /** For a `data.<path> = x` query: the prepared decision's third answer (see the header). */
  decision?: { value?: Value; error?: unknown };
}

/** `data.a.b = x` → ['a', 'b']. */
const DECISION_QUERY = /^data((?:\.[A-Za-z_][A-Za-z0-9_]*)+) = x$/;

/** One case on a JS-family back end (js, closures, interp), judged against the case's expectations. */
export function runCase(c: LoadedCase, opts: RunOptions = {}): CaseResult {
  if (opts.backend === 'wasm') throw new Error('runCase: the wasm back end is asynchronous, use runCaseOn');
  const start = performance.now();
  const base = { id: c.id, folder: c.folder, file: c.file };
  const skipReason = opts.skip?.[c.id];
  if (skipReason !== undefined) return { ...base, status: 'skip', reason: skipReason, ms: 0 };
  let verdict: Omit<CaseResult, 'id' | 'folder' | 'file' | 'ms'>;
  try {
    const out = execute(c, opts.timeoutMs ?? 10_000, opts.backend ?? 'js');
    verdict = judge(c, out);
    if (verdict.status === 'pass' && out.decision !== undefined) verdict = judgeDecision(out);
  } catch (e) {
    verdict = { status: 'fail', reason: `runner error: ${describe(e)}` };
  }
  return { ...base, ...verdict, ms: performance.now() - start };
}

/** One case on any back end (wasm: compiled and run in Regent's Wasm host, see run-wasm.ts). */
export async function runCaseOn(c: LoadedCase, opts: RunOptions = {}): Promise<CaseResult> {
  if (opts.backend !== 'wasm') return runCase(c, opts);
  const { runWasmCase } = await import('./run-wasm.js');
  return runWasmCase(c, opts);
}

/** Run many cases; `onResult` sees each result as it completes. */
export async function runCases(cases: LoadedCase[], opts: RunOptions = {}, onResult?: (r: CaseResult) => void): Promise<CaseResult[]> {
  const out: CaseResult[] = [];
  for (const c of cases) {
    const r = await runCaseOn(c, opts);
    onResult?.(r);
    out.push(r);
  }
  return out;
}

function execute(c: LoadedCase, timeoutMs: number, backendName: Exclude<BackendName, 'wasm'>): Outcome {
  const saved = withEnv(c.env);
  let stage: Outcome['stage'] = 'input';
  try {
    const input = c.input_term !== undefined ? termValue(regent.parseTerm(c.input_term)) : c.input !== undefined ? fromJS(c.input) : undefined;
    const data = fromJS(c.data ?? {});
    stage = 'compile';
    const files = (c.modules ?? []).map((text, i) => ({ file: `test-${i}.rego`, text }));
    const backend = createJSBackend(backendName, files, { compile: c.v0_compatible ? { v0Compatible: true } : {} });
    backend.setData(data);
    stage = 'prepare';
    const prepared = backend.prepare(c.query);
    stage = 'eval';
    let out: Outcome;
    try {
      const rows = prepared.eval({
        ...(input !== undefined ? { input } : {}),
        strictBuiltinErrors: c.strict_error === true,
        deadline: Date.now() + timeoutMs,
      });
      out = { rows };
    } catch (error) {
      out = { error, stage };
    }
    const path = DECISION_QUERY.exec(c.query.trim())?.[1]?.slice(1).split('.');
    if (path !== undefined) {
      const decision = backend.prepareDecision(path);
      const decide = (x: Value | undefined): { value?: Value; error?: unknown } => {
        try {
          return { value: decision.eval(x, undefined, c.strict_error === true, Date.now() + timeoutMs) };
        } catch (error) {
          return { error };
        }
      };
      decide(input);
      decide(fromJS({ another: 'input' }));
      out.decision = decide(input);
    }
    return out;
  } catch (error) {
    return { error, stage };
  } finally {
    restoreEnv(saved);
  }
}

/** The query passed: its prepared decision's third answer must be the same (see the header). */
function judgeDecision(out: Outcome): Omit<CaseResult, 'id' | 'folder' | 'file' | 'ms'> {
  const d = out.decision!;
  const fail = (actual: string): Omit<CaseResult, 'id' | 'folder' | 'file' | 'ms'> => ({ status: 'fail', reason: 'the prepared decision (third call, reused context) differs from the query', actual });
  if (out.error !== undefined) return d.error !== undefined ? { status: 'pass' } : fail(`no error: ${d.value === undefined ? 'undefined' : toJSONText(d.value)}`);
  if (d.error !== undefined) return fail(`error: ${describe(d.error)}`);
  const x = out.rows?.[0]?.bindings.x;
  if (x === undefined || d.value === undefined) return x === d.value ? { status: 'pass' } : fail(d.value === undefined ? 'undefined' : toJSONText(d.value));
  return compare(x, d.value) === 0 ? { status: 'pass' } : fail(toJSONText(d.value));
}

/** Use the compiler's own converter when it exports one, else ours. */
function termValue(t: Term): Value {
  const exported = (regent as Record<string, unknown>).termToValue;
  return typeof exported === 'function' ? (exported as (t: Term) => Value)(t) : localTermToValue(t);
}

function judge(c: LoadedCase, out: Outcome): Omit<CaseResult, 'id' | 'folder' | 'file' | 'ms'> {
  const err = out.error;
  const wantsError = c.want_error !== undefined || c.want_error_code !== undefined;
  if (err !== undefined) {
    const info = regoErrorInfo(err);
    const actual = info ? `${out.stage} error: ${info.text}` : `${out.stage} crash: ${describe(err)}`;
    if (!wantsError) {
      const timeout = info?.codes.includes('eval_cancel_error') ? 'timeout: ' : '';
      return { status: 'fail', reason: `${timeout}unexpected ${actual}`, expected: expectedText(c), actual };
    }
    if (!info) return { status: 'fail', reason: `engine crashed instead of raising a Rego error`, expected: expectedText(c), actual };
    if (c.want_error !== undefined && !info.text.includes(c.want_error))
      return { status: 'fail', reason: `error text does not contain ${JSON.stringify(c.want_error)}`, expected: expectedText(c), actual };
    if (c.want_error_code !== undefined && !info.codes.includes(c.want_error_code))
      return { status: 'fail', reason: `error code is not ${c.want_error_code}`, expected: expectedText(c), actual };
  } else if (wantsError) {
    return { status: 'fail', reason: 'expected an error, got a result', expected: expectedText(c), actual: rowsText(gotRows(c, out.rows ?? []), !c.sort_bindings) };
  }
  if (c.want_result !== undefined || !wantsError) {
    const ordered = !c.sort_bindings;
    const want = canonicalRows(wantRows(c), ordered);
    const got = canonicalRows(gotRows(c, out.rows ?? []), ordered);
    if (want.join('\n') !== got.join('\n'))
      return { status: 'fail', reason: 'unexpected result', expected: '[' + want.join(', ') + ']', actual: '[' + got.join(', ') + ']' };
  }
  return { status: 'pass' };
}

// ---------------------------------------------------------------- errors

interface ErrorInfo {
  codes: string[];
  /** All error texts, one per line, as OPA's err.Error() would contain them. */
  text: string;
}

/** Duck-typed: RegoErrors (`errors` list), RegoError or EvalError (`code`). */
export function regoErrorInfo(e: unknown): ErrorInfo | undefined {
  if (e === null || typeof e !== 'object') return undefined;
  const o = e as { errors?: unknown; code?: unknown; message?: unknown };
  if (Array.isArray(o.errors)) {
    const errs = o.errors.map(regoErrorInfo);
    if (errs.length === 0 || errs.some((x) => x === undefined)) return undefined;
    const list = errs as ErrorInfo[];
    const header = list.length === 1 ? '1 error occurred: ' : `${list.length} errors occurred:\n`;
    return { codes: list.flatMap((x) => x.codes), text: header + list.map((x) => x.text).join('\n') };
  }
  if (typeof o.code === 'string' && /^(rego|eval)_/.test(o.code) && typeof o.message === 'string') return { codes: [o.code], text: String(e) };
  return undefined;
}

function describe(e: unknown): string {
  if (e instanceof Error) {
    const frame = e.stack?.split('\n').find((l) => l.trim().startsWith('at '))?.trim();
    return `${e.name}: ${e.message}${frame ? ` (${frame})` : ''}`;
  }
  return String(e);
}

// ---------------------------------------------------------------- results

type Row = Record<string, JSONValue>;

function wantRows(c: LoadedCase): Row[] {
  return (c.want_result ?? []).map((r) => {
    const row: Row = {};
    for (const [k, v] of Object.entries(r ?? {})) row[k] = sortIf(c, toJS(fromJS(v)));
    return row;
  });
}

function gotRows(c: LoadedCase, rows: ResultRow[]): Row[] {
  return rows.map((r) => {
    const row: Row = {};
    for (const [k, v] of Object.entries(r.bindings)) {
      if (c.ignore_generated_vars && isGeneratedName(k)) continue;
      row[k] = sortIf(c, toJS(v));
    }
    return row;
  });
}

/** Names the compiler invents (OPA: `__localq…`; anything not a plain identifier). */
function isGeneratedName(name: string): boolean {
  return name.startsWith('__local') || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}

function sortIf(c: LoadedCase, v: JSONValue): JSONValue {
  if (!c.sort_bindings || !Array.isArray(v)) return v;
  return [...v].sort((a, b) => compare(fromJS(a), fromJS(b)));
}

/** Canonical JSON text of each row; sorted unless `ordered`. */
export function canonicalRows(rows: Row[], ordered = false): string[] {
  const texts = rows.map((r) => toJSONText(fromJS(r)));
  return ordered ? texts : texts.sort();
}

function rowsText(rows: Row[], ordered = true): string {
  return '[' + canonicalRows(rows, ordered).join(', ') + ']';
}

function expectedText(c: LoadedCase): string {
  const parts: string[] = [];
  if (c.want_error_code !== undefined) parts.push(`error code ${c.want_error_code}`);
  if (c.want_error !== undefined) parts.push(`error containing ${JSON.stringify(c.want_error)}`);
  if (c.want_result !== undefined || parts.length === 0) parts.push(`rows ${rowsText(wantRows(c), !c.sort_bindings)}`);
  return parts.join('; ');
}
