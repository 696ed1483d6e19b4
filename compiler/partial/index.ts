// Partial evaluation (OPA's `rego.Partial`, `opa eval --partial`, `POST /v1/compile`).
//
// partialEval(policy, query, opts) plans the query like an ordinary one (without
// the result-capturing rewrite of plan/query.ts, so `1 < 0` fails instead of
// yielding false), then searches it with the unknowns symbolic (eval.ts): every
// solution is one residual query, a conjunction of AST expressions; the queries
// are alternatives. Known parts run in the reference interpreter; rules that
// depend on unknowns are inlined or written as support modules (rules.ts).
// The result is AST (ast/nodes.ts): `ast/opa-json.ts` gives OPA's JSON for it.
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
}

export interface PartialResult {
  /** Alternatives (OR) of conjunctions of residual expressions; none means never true. */
  queries: Body[];
  /** Modules of support rules under `data.partial…` that the queries refer to. */
  support: Module[];
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

export function partialEval(policy: CompiledPolicy, query: string, opts: PartialEvalOptions): PartialResult {
  const v0 = policy.state.opts.v0Compatible;
  const parsed = parseQuery(query, '', { v0Compatible: v0 });
  const layout = new FrameLayout();
  const scope = new Scope(layout);
  let block;
  try {
    const resolved = resolveQuery(parsed);
    block = new BodyPlanner((policy as unknown as { planContext: PlanContext }).planContext, true).planBody(resolved, scope, new Set());
  } catch (e) {
    if (e instanceof RegoError) throw new RegoErrors([e]);
    throw e;
  }
  const typeErrors = checkBlockTypes(block);
  if (typeErrors.length > 0) throw new RegoErrors(typeErrors);

  const unknowns: Record<Root, Path[]> = { input: [], data: [] };
  for (const u of opts.unknowns) {
    const r = parseRootRef(u);
    unknowns[r.root].push(r.path);
  }
  const ndb = opts.nondeterministicBuiltins === true;
  const ctx = EvalContext.forQuery(opts.input, opts.data ?? new RObject(), false, undefined, opts.deadline);
  const world = new World(unknowns, ctx, new Deps(policy.ir, unknowns, ndb), true);
  const pe = new PartialEvaluator(world, new Interpreter(policy.ir, RUNTIME));
  pe.rules.disabled = (opts.disableInlining ?? [])
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

  // User variables of the query keep their names and are reported as bindings.
  const vars = queryVars(parsed, scope);
  for (const v of vars) pe.reserve(v.name);
  // The residual of a user var is its own name; let fresh vars for it use it.
  for (const v of vars) pe.varSeq.set(v.name, -1);

  const f = pe.frame(layout.size, layout.names, true);
  const raw: Body[] = [];
  try {
    pe.block(block, 0, f, () => {
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
    });
  } catch (e) {
    if (e instanceof RangeError) throw new EvalError('eval_recursion_error', 'evaluation exceeded the maximum stack depth');
    throw e;
  }
  const live = new Set(vars.map((v) => v.name));
  const queries: Body[] = [];
  const keys = new Set<string>();
  for (const b of raw) {
    const q = copyPropagate(b, live);
    const key = bodyKey(q);
    if (keys.has(key)) continue;
    keys.add(key);
    queries.push(q);
  }
  return { queries, support: pe.rules.modules() };
}
