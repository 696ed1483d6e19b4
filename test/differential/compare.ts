// Differential testing (architecture habit 8): every conformance case runs through
// the generated-JS back end, the closure back end and the reference interpreter, each
// chosen through `createJSBackend` over the same compiled policy (and the interpreter
// traced, through `prepareInterpreted`), and the outcomes must be identical: the same rows in the same order
// (values and bindings as canonical JSON), or errors with the same codes.
// Cases whose outcomes legitimately differ are listed in allow.json with a reason.
import { readFileSync } from 'node:fs';
import * as regent from '../../compiler/index.js';
import type { ResultRow } from '../../compiler/api.js';
import { prepareInterpreted } from '../../compiler/interp/index.js';
import { fromJS, toJSONText, type Value } from '../../runtime/value/index.js';
import type { LoadedCase } from '../conformance/load.js';
import { termToValue } from '../conformance/term-value.js';
import { withEnv, restoreEnv } from '../conformance/env.js';

/** What one back end produced, as comparable text. */
export interface Outcome {
  /** `rows: […]` or `error: <code>` (or `crash: <name>` for non-Rego throws). */
  text: string;
  /** Extra detail for reports (the error message). */
  detail?: string;
}

export interface Difference {
  id: string;
  closures: Outcome;
  interpreter: Outcome;
  /** What disagreed with the generated-JS back end: the closure back end, or the interpreter (plain or traced). */
  mode: 'closures-backend' | 'plain' | 'traced';
}

export interface CompareResult {
  compared: number;
  /** Cases that stopped before evaluation (input, compile or prepare errors): same for both. */
  notEvaluated: number;
  differences: Difference[];
}

const DEADLINE_MS = 5_000;

/** Compare one case; undefined when the outcomes agree or evaluation was never reached. */
export function compareCase(c: LoadedCase): Difference[] | 'not-evaluated' {
  const saved = withEnv(c.env);
  try {
    let prepared: regent.BackendQuery;
    let closurePrepared: regent.BackendQuery;
    let interpPrepared: regent.BackendQuery;
    let traced: ReturnType<typeof prepareInterpreted>;
    let input: Value | undefined;
    try {
      input = c.input_term !== undefined ? termToValue(regent.parseTerm(c.input_term)) : c.input !== undefined ? fromJS(c.input) : undefined;
      const files = (c.modules ?? []).map((text, i) => ({ file: `test-${i}.rego`, text }));
      const v0 = c.v0_compatible === true ? { v0Compatible: true } : {};
      // The evaluators are chosen through the Backend interface (compiler/backend.ts);
      // the traced run stays on the interpreter, which the interface has no mode for.
      const js = regent.createJSBackend('js', files, { compile: v0 });
      const backends = [js, regent.createJSBackend('closures', js.policy), regent.createJSBackend('interp', js.policy)];
      for (const b of backends) b.setData(fromJS(c.data ?? {}));
      [prepared, closurePrepared, interpPrepared] = backends.map((b) => b.prepare(c.query)) as [regent.BackendQuery, regent.BackendQuery, regent.BackendQuery];
      traced = prepareInterpreted(js.policy, c.query);
    } catch {
      return 'not-evaluated';
    }
    const opts = () => ({
      ...(input !== undefined ? { input } : {}),
      strictBuiltinErrors: c.strict_error === true,
      deadline: Date.now() + DEADLINE_MS,
    });
    const a = outcome(() => prepared.eval(opts()));
    const b = outcome(() => interpPrepared.eval(opts()));
    const t = outcome(() => {
      const r = traced.evalWithTrace({ ...opts(), data: fromJS(c.data ?? {}) });
      if (r.error !== undefined) throw r.error;
      return r.rows;
    });
    const cl = outcome(() => closurePrepared.eval(opts()));
    const out: Difference[] = [];
    if (a.text !== cl.text) out.push({ id: c.id, closures: a, interpreter: cl, mode: 'closures-backend' });
    if (a.text !== b.text) out.push({ id: c.id, closures: a, interpreter: b, mode: 'plain' });
    if (a.text !== t.text) out.push({ id: c.id, closures: a, interpreter: t, mode: 'traced' });
    return out;
  } finally {
    restoreEnv(saved);
  }
}

export function compareAll(cases: LoadedCase[], allow: Record<string, string>): CompareResult & { allowedButAgreeing: string[] } {
  const result: CompareResult & { allowedButAgreeing: string[] } = { compared: 0, notEvaluated: 0, differences: [], allowedButAgreeing: [] };
  for (const c of cases) {
    const r = compareCase(c);
    if (r === 'not-evaluated') {
      result.notEvaluated++;
      continue;
    }
    result.compared++;
    if (c.id in allow) {
      if (r.length === 0) result.allowedButAgreeing.push(c.id);
      continue;
    }
    result.differences.push(...r);
  }
  return result;
}

function outcome(fn: () => ResultRow[]): Outcome {
  try {
    const rows = fn();
    return { text: 'rows: ' + rows.map(rowText).join(', ') };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return { text: `error: ${code}`, detail: String((e as Error).message) };
    return { text: `crash: ${e instanceof Error ? e.name : typeof e}`, detail: e instanceof Error ? e.message : String(e) };
  }
}

function rowText(r: ResultRow): string {
  const exprs = r.expressions.map((x) => (x.value === undefined ? 'undefined' : toJSONText(x.value)));
  const binds = Object.keys(r.bindings)
    .sort()
    .map((k) => `${k}=${toJSONText(r.bindings[k]!)}`);
  return `{${exprs.join(' ')} | ${binds.join(' ')}}`;
}

/** allow.json: case id → reason. */
export function readAllow(path: string): Record<string, string> {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as { id: string; reason: string }[];
  const out: Record<string, string> = {};
  for (const { id, reason } of raw) {
    if (!reason) throw new Error(`allow.json: entry ${id} has no reason`);
    out[id] = reason;
  }
  return out;
}
