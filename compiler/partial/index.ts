// Partial evaluation (OPA's `rego.Partial`, `opa eval --partial`, `POST /v1/compile`).
//
// partialEval(policy, query, opts) plans the query like an ordinary one (without
// the result-capturing rewrite of plan/query.ts, so `1 < 0` fails instead of
// yielding false), then searches it with the unknowns symbolic (eval.ts): every
// solution is one residual query, a conjunction of AST expressions; the queries
// are alternatives. Known parts run in the reference interpreter; rules that
// depend on unknowns are inlined or written as support modules (rules.ts).
// The result is AST (ast/nodes.ts): `ast/opa-json.ts` gives OPA's JSON for it.
// preparePartial() does the planning once (cachedPartial keeps it per policy,
// query, unknowns and options; partialEval goes through it); its eval() searches
// with an input and data, optionally recording OPA-style trace events.
import type { Body, Module } from '../ast/nodes.js';
import type { Value } from '../../runtime/value/value.js';
import type { CompiledPolicy } from '../policy.js';
import { resolveQuery } from '../policy.js';
import { parseQuery, parseTerm } from '../parser/index.js';
import { RegoError, RegoErrors } from '../source/diagnostics.js';
import { BodyPlanner } from '../plan/body.js';
import { FrameLayout, Scope } from '../plan/scope.js';
import { queryVars } from '../plan/query.js';
import { checkBlockTypes } from '../passes/check-types.js';
import { Interpreter } from '../interp/interpreter.js';
import { Recorder } from '../interp/frames.js';
import type { TraceEvent } from '../interp/trace.js';
import type { Block, QueryPlan } from '../ir/ir.js';
import { RUNTIME } from '../../runtime/scope.js';
import { EvalContext } from '../../runtime/eval/context.js';
import { EvalError } from '../../runtime/eval/errors.js';
import { RObject } from '../../runtime/value/collections.js';
import type { PlanContext } from '../plan/context.js';
import { PartialEvaluator } from './eval.js';
import { Deps, World, type Path, type Root } from './world.js';
import { eqExpr, groundRootPath, mkVar, toTerm } from './terms.js';
import { bodyKey, copyPropagate } from './residual.js';

export { PartialUnsupported } from './terms.js';

export interface PartialEvalOptions {
  /** Refs treated as unknown: `input`, `input.x`, `data.reports`. */
  unknowns: string[];
  input?: Value;
  data?: Value;
  /** Refs of rules never inlined (written as support rules instead). */
  disableInlining?: string[];
  /** Evaluate non-deterministic builtins (http.send, time.now_ns …) when their arguments are known. */
  nondeterministicBuiltins?: boolean;
  /** Wall-clock deadline in ms since the epoch. */
  deadline?: number;
  /** Record trace events (`PartialResult.events`). */
  trace?: boolean;
  /** Receives `timer_query_compile_stage_*_ns` when the query is planned (not when it comes from the cache). */
  stageTimers?: Record<string, number>;
}

export interface PartialResult {
  /** Alternatives (OR) of conjunctions of residual expressions; none means never true. */
  queries: Body[];
  /** Modules of support rules under `data.partial…` that the queries refer to. */
  support: Module[];
  /** Trace events, when asked for (filter with interp's `explain`). */
  events?: TraceEvent[];
}

/** An unknown or disableInlining ref that is not `input…`/`data…` (or does not parse). */
export class PartialRefError extends Error {
  /** Which option held it. */
  field: 'unknowns' | 'disableInlining' = 'unknowns';
}

/** `data.a.b` / `input["x"]` → its root and constant path. */
export function parseRootRef(text: string): { root: Root; path: Path } {
  let t;
  try {
    t = parseTerm(text);
  } catch (e) {
    throw new PartialRefError(e instanceof Error ? e.message : String(e));
  }
  const g = groundRootPath(t);
  if (!g) throw new PartialRefError(`${text}: unknowns must be ground refs prefixed with input or data`);
  return g;
}

/** What a prepared partial query needs per run. */
export interface PartialRunOptions {
  input?: Value;
  data?: Value;
  /** Wall-clock deadline in ms since the epoch. */
  deadline?: number;
  /** Record OPA-style trace events (Enter/Eval/Save/Exit/Redo/Fail) in `PartialResult.events`. */
  trace?: boolean;
}

/** The planned query, unknowns and rule dependencies of one (policy, query, unknowns, options). */
export interface PreparedPartial {
  eval(opts?: PartialRunOptions): PartialResult;
}

/** Options fixed at preparation; `stageTimers` receives OPA's `timer_query_compile_stage_*_ns`. */
export type PartialPrepareOptions = Pick<PartialEvalOptions, 'unknowns' | 'disableInlining' | 'nondeterministicBuiltins'> & { stageTimers?: Record<string, number> };

function timed<T>(timers: Record<string, number> | undefined, stage: string, fn: () => T): T {
  if (!timers) return fn();
  const t = process.hrtime.bigint();
  try {
    return fn();
  } finally {
    timers[`timer_query_compile_stage_${stage}_ns`] = Number(process.hrtime.bigint() - t);
  }
}

/**
 * Plan `query` for partial evaluation once: parse, resolve, plan (without result
 * capture), type-check, parse the unknown and disableInlining refs, and build the
 * dependency analysis. Throws RegoErrors / PartialRefError as partialEval does.
 */
export function preparePartial(policy: CompiledPolicy, query: string, opts: PartialPrepareOptions): PreparedPartial {
  const v0 = policy.state.opts.v0Compatible;
  const timers = opts.stageTimers;
  const parsed = timed(timers, 'parse', () => parseQuery(query, '', { v0Compatible: v0 }));
  const layout = new FrameLayout();
  const scope = new Scope(layout);
  let block: Block;
  try {
    const resolved = timed(timers, 'resolve_refs', () => resolveQuery(parsed));
    block = timed(timers, 'plan', () => new BodyPlanner((policy as unknown as { planContext: PlanContext }).planContext, true).planBody(resolved, scope, new Set()));
  } catch (e) {
    if (e instanceof RegoError) throw new RegoErrors([e]);
    throw e;
  }
  const typeErrors = timed(timers, 'check_types', () => checkBlockTypes(block));
  if (typeErrors.length > 0) throw new RegoErrors(typeErrors);

  const unknowns: Record<Root, Path[]> = { input: [], data: [] };
  for (const u of opts.unknowns) {
    const r = parseRootRef(u);
    unknowns[r.root].push(r.path);
  }
  const disabled = (opts.disableInlining ?? [])
    .map((d) => {
      try {
        const r = parseRootRef(d);
        return r.root === 'data' ? (r.path as string[]) : undefined; // `data` alone disables every rule
      } catch (e) {
        if (e instanceof PartialRefError) e.field = 'disableInlining';
        throw e;
      }
    })
    .filter((p): p is string[] => p !== undefined);
  const deps = new Deps(policy.ir, unknowns, opts.nondeterministicBuiltins === true);
  // User variables of the query keep their names and are reported as bindings.
  const vars = queryVars(parsed, scope);
  return { eval: (run: PartialRunOptions = {}) => search(policy, { block, parsed, layout, vars, unknowns, disabled, deps }, run) };
}

interface Plan {
  block: Block;
  parsed: Body;
  layout: FrameLayout;
  vars: { name: string; slot: number }[];
  unknowns: Record<Root, Path[]>;
  disabled: string[][];
  deps: Deps;
}

function search(policy: CompiledPolicy, plan: Plan, opts: PartialRunOptions): PartialResult {
  const { block, layout, vars } = plan;
  const ctx = EvalContext.forQuery(opts.input, opts.data ?? new RObject(), false, undefined, opts.deadline);
  const world = new World(plan.unknowns, ctx, plan.deps, true);
  const rec = opts.trace ? new Recorder() : undefined;
  const ip = new Interpreter(policy.ir, RUNTIME, rec);
  if (rec) ctx.extras.trace = (note: string) => rec.emit('Note', ip.q, undefined, undefined, ip.cur?.loc, note);
  const pe = new PartialEvaluator(world, ip);
  pe.rules.disabled = plan.disabled;
  for (const v of vars) pe.reserve(v.name);
  // The residual of a user var is its own name; let fresh vars for it use it.
  for (const v of vars) pe.varSeq.set(v.name, -1);

  const f = pe.frame(layout.size, layout.names, true);
  const raw: Body[] = [];
  const solution = (): boolean => {
    const body = pe.saved.slice();
    for (const v of vars) {
      const x = f.get(v.slot);
      if (x === undefined) continue;
      const t = toTerm(x);
      if (t.kind === 'var' && t.name === v.name) continue;
      body.push(eqExpr(mkVar(v.name), t));
    }
    raw.push(body);
    return false;
  };
  try {
    if (!rec) pe.block(block, 0, f, solution);
    else {
      // The query as a traced root (query id 0), as interp's traceQuery does.
      const body = rec.exprIndex.addQuery({ body: block, exprs: plan.parsed } as unknown as QueryPlan);
      const q = { id: 0, parent: 0, names: vars };
      ip.q = q;
      const node = { type: 'body', node: body } as const;
      const loc = body[0]?.loc;
      rec.emit('Enter', q, f.vals, node, loc);
      pe.block(block, 0, f, () => {
        rec.emit('Exit', q, f.vals, node, loc);
        solution();
        rec.emit('Redo', q, f.vals, node, loc);
        return false;
      });
    }
  } catch (e) {
    if (e instanceof RangeError) throw new EvalError('eval_recursion_error', 'evaluation exceeded the maximum stack depth');
    throw e;
  }
  const live = new Set(vars.map((v) => v.name));
  const queries: Body[] = [];
  const keys = new Set<string>();
  for (const b of raw) {
    const q = copyPropagate(b, live);
    if (raw.length === 1) {
      queries.push(q);
      break;
    }
    const key = bodyKey(q);
    if (keys.has(key)) continue;
    keys.add(key);
    queries.push(q);
  }
  return { queries, support: pe.rules.modules(), ...(rec ? { events: rec.events } : {}) };
}

/** Prepared queries per policy, keyed by query text and preparation options (bounded, oldest dropped). */
const PREPARED = new WeakMap<CompiledPolicy, Map<string, PreparedPartial>>();
const PREPARED_LIMIT = 200;

/** A prepared partial query from the per-policy cache (prepared on a miss). */
export function cachedPartial(policy: CompiledPolicy, query: string, opts: PartialPrepareOptions): { prepared: PreparedPartial; hit: boolean } {
  let cache = PREPARED.get(policy);
  if (!cache) PREPARED.set(policy, (cache = new Map()));
  const key = JSON.stringify([query, opts.unknowns, opts.disableInlining ?? null, opts.nondeterministicBuiltins === true]);
  const found = cache.get(key);
  if (found) return { prepared: found, hit: true };
  const prepared = preparePartial(policy, query, opts);
  if (cache.size >= PREPARED_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, prepared);
  return { prepared, hit: false };
}

/**
 * Partially evaluate `query`. The planned query is cached per policy, query,
 * unknowns, disableInlining and nondeterministicBuiltins, so repeated calls only
 * search (the policy is immutable; a new policy is a new cache).
 */
export function partialEval(policy: CompiledPolicy, query: string, opts: PartialEvalOptions): PartialResult {
  const { prepared } = cachedPartial(policy, query, opts);
  return prepared.eval({ ...(opts.input !== undefined ? { input: opts.input } : {}), ...(opts.data !== undefined ? { data: opts.data } : {}), ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}), ...(opts.trace ? { trace: true } : {}) });
}
