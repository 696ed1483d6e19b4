// Shared helpers of the codegen tests that run one query through the generated-JS back end,
// the closure back end and the reference interpreter and expect the same answer.
import { expect } from 'vitest';
import type { CompiledPolicy } from '../../../compiler/index.js';
import type { EvalOptions } from '../../../compiler/api.js';
import { prepareInterpreted } from '../../../compiler/interp/index.js';
import { toJS, type Value } from '../../../runtime/index.js';

/** A value (as JS) or the code of the error evaluation raised. */
export type Outcome = { value: unknown } | { error: string };

/** Run `run`, turning its value into JS and a thrown error into its code. */
export function outcome(run: () => Value | undefined): Outcome {
  try {
    const v = run();
    return { value: v === undefined ? undefined : toJS(v) };
  } catch (e) {
    return { error: (e as { code?: string }).code ?? String(e) };
  }
}

/**
 * The first expression's value of every row of `query` on the generated-JS back end, after
 * checking that the closure back end (`closures`, the same policy) and the interpreter agree.
 */
export function agreeingValues(js: CompiledPolicy, closures: CompiledPolicy, query: string, input: Value, data: Value): unknown[] {
  const values = (rows: { expressions: { value: Value }[] }[]) => rows.map((r) => toJS(r.expressions[0]!.value));
  const a = values(js.prepare(query).eval({ input, data }));
  expect(a, query).toEqual(values(closures.prepare(query).eval({ input, data })));
  expect(a, query).toEqual(values(prepareInterpreted(js, query).eval({ input, data })));
  return a;
}

/** Every row's first expression as JS, or the error raised (its message, code and location). */
export type QueryOutcome = { ok: unknown } | { error: string; code?: string; location?: unknown };

/** Run a prepared query's `eval`, keeping its rows' first values or the error it raised. */
export function queryOutcome(run: () => { expressions: { value: unknown }[] }[]): QueryOutcome {
  try {
    return { ok: run().map((r) => toJS(r.expressions[0]!.value as Value)) };
  } catch (e) {
    const err = e as Error & { code?: string; location?: unknown };
    return { error: err.message, code: err.code, location: err.location };
  }
}

/**
 * Expect each query to give the same outcome (rows or error) on the generated-JS back
 * end (`js`), the closure back end (`closures`, the same policy) and the interpreter.
 */
export function expectSameOutcomes(js: CompiledPolicy, closures: CompiledPolicy, queries: string[], opts: EvalOptions): void {
  for (const q of queries) {
    const a = queryOutcome(() => js.prepare(q).eval(opts));
    expect(a, q).toEqual(queryOutcome(() => closures.prepare(q).eval(opts)));
    expect(a, q).toEqual(queryOutcome(() => prepareInterpreted(js, q).eval(opts)));
  }
}
