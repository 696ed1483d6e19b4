// Public surface of the reference interpreter: evaluate a query against a compiled
// policy by walking its IR (no closures), optionally recording OPA-style trace
// events, plus the explanation helpers (filters, JSON and text forms).
//
//   const { rows, events } = traceQuery(policy, 'data.app.allow', { input });
//   prettyTrace(explain(events, 'fails'), { locations: true });
import type { EvalOptions, Policy, ResultRow } from '../api.js';
import type { QueryPlan } from '../ir/ir.js';
import type { Body, Term } from '../ast/nodes.js';
import { parseQuery } from '../parser/index.js';
import type { CompiledPolicy } from '../policy.js';
import type { Value } from '../../runtime/value/value.js';
import { RUNTIME } from '../../runtime/scope.js';
import { EvalContext } from '../../runtime/eval/context.js';
import { currentRuntimeInfo } from '../../runtime/eval/runtime-info.js';
import { EvalError } from '../../runtime/eval/errors.js';
import { BUILTIN_ERRORS } from '../../runtime/eval/rules.js';
import { TEST_CASES } from '../../runtime/builtins/rego.js';
import { RObject } from '../../runtime/value/collections.js';
import { Interpreter } from './interpreter.js';
import { Recorder, type Slots } from './frames.js';
import type { TraceEvent } from './trace.js';

export { explain, lineage, eventJSON, evalEventJSON, prettyTrace, EXPLAIN_MODES } from './trace.js';
export type { TraceEvent, TraceOp, TraceNode, ExplainMode, PrettyOptions } from './trace.js';

export interface TracedResult {
  rows: ResultRow[];
  /** Every event, in order (filter with `explain`). */
  events: TraceEvent[];
  /** The error evaluation stopped with, if any (events up to it are kept). */
  error?: unknown;
}

export interface InterpretedQuery {
  readonly vars: string[];
  /** Evaluate by walking the IR; same results and errors as the closure back end. */
  eval(opts?: EvalOptions): ResultRow[];
  /** Evaluate and record trace events; errors are returned, not thrown. */
  evalWithTrace(opts?: EvalOptions): TracedResult;
}

/** Plan `query` against `policy` for the interpreter. Throws RegoErrors like prepare(). */
export function prepareInterpreted(policy: Policy, query: string): InterpretedQuery {
  const cp = policy as CompiledPolicy;
  const plan = captureTerms(restoreSources(cp.planQuery(query), () => parseQuery(query, '', { v0Compatible: cp.state.opts.v0Compatible })));
  return {
    vars: plan.vars.map((v) => v.name),
    eval: (opts = {}) => rowsOf(plan, run(cp, plan, opts, undefined)),
    evalWithTrace: (opts = {}) => {
      const rec = new Recorder();
      try {
        return { rows: rowsOf(plan, run(cp, plan, opts, rec)), events: rec.events };
      } catch (error) {
        return { rows: [], events: rec.events, error };
      }
    },
  };
}

/** One-shot: plan, evaluate with tracing, return rows and events. */
export function traceQuery(policy: Policy, query: string, opts: EvalOptions = {}): TracedResult {
  return prepareInterpreted(policy, query).evalWithTrace(opts);
}

function run(policy: CompiledPolicy, plan: QueryPlan, opts: EvalOptions, rec: Recorder | undefined): Slots[] {
  const ip = new Interpreter(policy.ir, RUNTIME, rec);
  const ctx = newContext(opts, ip);
  const frames: Slots[] = [];
  const f: Slots = new Array(plan.frameSize);
  try {
    if (!rec) {
      ip.block(plan.body, 0, f, ctx, (f2) => (frames.push(f2.slice()) > RUNTIME.limits.maxCollectionSize && RUNTIME.collectionTooLarge(), false));
      return frames;
    }
    const body = rec.exprIndex.addQuery(plan);
    const q = { id: 0, parent: 0, names: plan.vars };
    ip.q = q;
    const node = { type: 'body', node: body } as const;
    const loc = body[0]?.loc;
    rec.emit('Enter', q, f, node, loc);
    ip.block(plan.body, 0, f, ctx, (f2) => {
      rec.emit('Exit', q, f2, node, loc);
      frames.push(f2.slice());
      rec.emit('Redo', q, f2, node, loc);
      return false;
    });
    return frames;
  } catch (e) {
    if (e instanceof RangeError) throw new EvalError('eval_recursion_error', 'evaluation exceeded the maximum stack depth');
    throw e;
  }
}

/** The same context compiler/policy.ts builds, plus the `trace()` hook when recording. */
function newContext(opts: EvalOptions, ip: Interpreter): EvalContext {
  const extras: Record<string, unknown> = {};
  const rec = ip.rec;
  if (rec) extras.trace = (note: string) => rec.emit('Note', ip.q, undefined, undefined, ip.cur?.loc, note);
  if (opts.builtinErrors) extras[BUILTIN_ERRORS] = opts.builtinErrors;
  const cases = opts.testCases;
  if (cases) extras[TEST_CASES] = (path: Value) => void cases.push({ path, at: rec ? rec.events.length : 0 });
  return new EvalContext(
    opts.input,
    opts.data ?? new RObject(),
    {
      strict: opts.strictBuiltinErrors === true,
      cache: new Map(),
      nowNs: BigInt(Date.now()) * 1_000_000n,
      print: opts.print ?? (() => {}),
      runtime: currentRuntimeInfo(),
      deadline: opts.deadline,
      extras,
    },
    opts.deadline,
  );
}

/**
 * The query planner turns a top-level expression planned as a single `test` into
 * `let $expr = …; test $expr` to capture its value, and the `src` marker of the
 * dropped statement is lost. Put the source expression back on that `let` so the
 * expression still gets its Eval/Fail/Redo events.
 */
function restoreSources(plan: QueryPlan, parse: () => Body): QueryPlan {
  const marked = new Set(plan.body.filter((s) => s.src).map((s) => s.src!.loc.offset));
  let parsed: Body | undefined;
  plan.exprs.forEach((x, i) => {
    if (marked.has(x.loc.offset)) return;
    const s = plan.body.find((st) => st.k === 'let' && st.slot === x.slot && st.src === undefined);
    if (!s) return;
    parsed ??= parse();
    const e = parsed[i];
    if (e && e.loc.offset === x.loc.offset) s.src = e;
  });
  return plan;
}

/**
 * OPA's rego package evaluates a query expression that is a single term (a ref such as
 * `data.test.p`, a value) as `term = $termN` (rewriteQueryToCaptureValue, N counting
 * from 1 in query order), and its traces show that form: `Enter data.test.p = _` (a
 * `$`-prefixed variable prints as `_`). The traced source of such a statement becomes
 * that equality; the result rows are unchanged. Calls OPA also captures (`count(x)` as
 * `count(x, _)`) keep their source form.
 */
function captureTerms(plan: QueryPlan): QueryPlan {
  let n = 0;
  for (const s of plan.body) {
    const e = s.src;
    if (!e || e.negated || e.body.type !== 'term' || e.body.term.kind === 'call') continue;
    const term = e.body.term;
    const capture: Term = { kind: 'var', name: `$term${++n}`, wildcard: true, loc: term.loc };
    const eq: Term = { kind: 'call', op: { kind: 'var', name: 'eq', loc: term.loc }, args: [term, capture], loc: term.loc };
    s.src = { ...e, body: { type: 'term', term: eq } };
  }
  return plan;
}

function rowsOf(plan: QueryPlan, frames: Slots[]): ResultRow[] {
  return frames.map((f) => ({
    expressions: plan.exprs.map((x) => ({ value: f[x.slot] as Value, text: x.text, location: { row: x.loc.row, col: x.loc.col } })),
    bindings: Object.fromEntries(plan.vars.filter((v) => f[v.slot] !== undefined).map((v) => [v.name, f[v.slot] as Value])),
  }));
}
