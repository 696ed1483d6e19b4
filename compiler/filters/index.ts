// Data filters: partial evaluation results → SQL WHERE clauses and UCAST trees
// (OPA's rego/compile package). The pipeline for one request:
//   0. residual.ts: variables bound to a column are replaced by the column;
//   1. prepareFilter(): everything that does not depend on the input, cached by
//      the caller (path, targets, unknowns, mask rule): the constraint set of all
//      requested targets, the short names the mappings allow, the planned mask rule;
//   2. runFilter(): evaluate the mask rule with the input (an object, or no
//      masks); partially evaluate `data.<path>` with the unknowns
//      (non-deterministic builtins always evaluated); check the residual against
//      the constraints (checks.ts, every error reported: FilterASTErrors); then per
//      target: no queries → unconditional NO (no filter), otherwise the UCAST tree
//      (ucast.ts), rendered as SQL for sql targets (sql.ts), with that target's
//      mappings.
// The partial evaluator is passed in (`PartialEvalFn`, the signature of
// compiler/partial's partialEval), so this module only translates.
import type { Body, Module } from '../ast/nodes.js';
import type { CompiledPolicy } from '../policy.js';
import type { Value } from '../../runtime/value/value.js';
import { RObject } from '../../runtime/value/value.js';
import { checkResidual } from './checks.js';
import { ConstraintSet, FilterASTError, FilterASTErrors, FilterError, type SqlDialect, type TargetDialect } from './constraints.js';
import { RegoError, RegoErrors } from '../source/diagnostics.js';
import { dataRefText } from './annotations.js';
import { ucastToSql } from './sql.js';
import { locateResidual, locationIndex, normalizeResidual, type LocationIndex } from './residual.js';
import { lookupMappings, queriesToUcast, shortsFromMappings, type TableMappings, type UcastNode } from './ucast.js';

export * from './constraints.js';
export { checkResidual, isColumnRef, type CheckContext } from './checks.js';
export { queriesToUcast, translateField, lookupMappings, shortsFromMappings, ucastToJS, refToField, FieldRef, type UcastNode, type UcastField, type UcastCompound, type TableMappings, type UcastOptions } from './ucast.js';
export { ucastToSql, type SqlOptions } from './sql.js';
export { filterAnnotations, ruleAt, dataPath, dataRefText, parseUnknowns, type FilterAnnotations } from './annotations.js';
export { termText, exprText } from './term-text.js';
export { typoHints, hintSites, type Hint, type HintSite } from './hints.js';
export { locateResidual, locationIndex, normalizeResidual, type LocationIndex } from './residual.js';

/** compiler/partial's partialEval, as this module calls it. */
export type PartialEvalFn = (
  policy: CompiledPolicy,
  query: string,
  opts: { unknowns: string[]; input?: Value; data?: Value; disableInlining?: string[]; nondeterministicBuiltins?: boolean; deadline?: number; stageTimers?: Record<string, number> },
) => { queries: Body[]; support: Module[] };

export interface FilterSpec {
  /** The document's path under data: `['filters', 'include']`. */
  path: string[];
  targets: TargetDialect[];
  /** Unknown refs (`input.fruits`); empty means nothing is unknown. */
  unknowns: string[];
  /** The mask rule's data path, if any. */
  maskRule?: string[];
  mappings?: TableMappings | null;
  disableInlining?: string[];
  /** Mirror comparisons correctly when the unknown is on the right (OPA negates them; default false). */
  mirrorComparisons?: boolean;
}

/** A filter query ready to run with inputs (cache it per policy/data generation). */
export interface PreparedFilter {
  readonly spec: FilterSpec;
  readonly query: string;
  readonly constraints: ConstraintSet;
  readonly shorts: ReadonlySet<string>;
  readonly mask?: (input: Value | undefined, data: Value | undefined, deadline?: number) => Value | undefined;
  /** Built on the first fragment error: where the policy's expressions are. */
  locations?: LocationIndex;
}

/** One target's outcome: `query` undefined is unconditional NO (no filter). */
export interface TargetFilter {
  target: string;
  dialect: string;
  /** SQL text (`''` for YES) or a UCAST tree (`undefined` tree → `{}` for YES). */
  query?: { sql: string } | { ucast: UcastNode | undefined };
  masks?: Value;
}

export interface FilterRun {
  filters: TargetFilter[];
  /** Timers in ns (OPA's names). */
  timers: Record<string, number>;
}

export function prepareFilter(policy: CompiledPolicy, spec: FilterSpec): PreparedFilter {
  const constraints = ConstraintSet.of(spec.targets); // throws FilterError for unknown targets
  const shorts = shortsFromMappings(spec.mappings);
  let mask: PreparedFilter['mask'];
  if (spec.maskRule) {
    const decide = policy.prepareDecision(spec.maskRule);
    mask = (input, data, deadline) => decide({ input, data: data ?? new RObject(), ...(deadline !== undefined ? { deadline } : {}) });
  }
  return { spec, query: dataRefText(spec.path), constraints, shorts, ...(mask ? { mask } : {}) };
}

export interface RunOptions {
  input?: Value;
  data?: Value;
  deadline?: number;
  partialEval: PartialEvalFn;
  /** `instrument`: the partial-evaluation query's compile stage timers, when it is planned. */
  stageTimers?: Record<string, number>;
}

const now = () => process.hrtime.bigint();

export function runFilter(policy: CompiledPolicy, prepared: PreparedFilter, opts: RunOptions): FilterRun {
  const timers: Record<string, number> = {};
  const { spec } = prepared;
  let masks: Value | undefined;
  if (prepared.mask) {
    const t = now();
    const v = prepared.mask(opts.input, opts.data, opts.deadline);
    if (v !== undefined && !(v instanceof RObject)) throw new FilterError(`convert masks: mask rule value is not an object`);
    if (v instanceof RObject && v.size > 0) masks = v;
    timers.timer_compile_eval_mask_rule_ns = Number(now() - t);
  }
  let t = now();
  const pq = asFilterErrors(() => opts.partialEval(policy, prepared.query, {
    unknowns: spec.unknowns,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    ...(opts.data !== undefined ? { data: opts.data } : {}),
    ...(spec.disableInlining ? { disableInlining: spec.disableInlining } : {}),
    nondeterministicBuiltins: true,
    ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
    ...(opts.stageTimers ? { stageTimers: opts.stageTimers } : {}),
  }));
  timers.timer_rego_partial_eval_ns = Number(now() - t);
  const ctx = { constraints: prepared.constraints, shorts: prepared.shorts };
  const queries = normalizeResidual(pq.queries);
  if (checkResidual(queries, pq.support, ctx).length > 0) {
    // Report with the policy's locations where the residual has none (residual.ts).
    const index = (prepared.locations ??= locationIndex(policy.modules, spec.path));
    throw new FilterASTErrors(checkResidual(locateResidual(queries, index), pq.support, ctx));
  }
  t = now();
  const filters = translate(queries, spec, masks);
  timers.timer_compile_translate_queries_ns = Number(now() - t);
  return { filters, timers };
}

/** Compile errors of partial evaluation are reported like the fragment errors (OPA: 400 evaluation_error). */
function asFilterErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof RegoErrors || e instanceof RegoError) {
      const errs = e instanceof RegoErrors ? e.errors : [e];
      throw new FilterASTErrors(errs.map((x) => new FilterASTError(x.code, x.message, x.location)));
    }
    throw e;
  }
}

/** Residual bodies → one filter per requested target (the translation step alone). */
export function translate(queries: Body[], spec: Pick<FilterSpec, 'targets' | 'mappings' | 'mirrorComparisons'>, masks?: Value): TargetFilter[] {
  const out: TargetFilter[] = [];
  for (const { target, dialect } of spec.targets) {
    if (queries.length === 0) {
      out.push({ target, dialect });
      continue;
    }
    const mappings = lookupMappings(spec.mappings, target, dialect);
    const tree = queriesToUcast(queries, { ...(mappings ? { mappings } : {}), ...(spec.mirrorComparisons ? { mirrorComparisons: true } : {}) });
    let query: TargetFilter['query'];
    if (target === 'sql') query = { sql: ucastToSql(tree, dialect as SqlDialect) };
    else if (target === 'ucast') query = { ucast: tree };
    else throw new FilterError(`unknown target/dialect combination: ${target}/${dialect}`);
    out.push({ target, dialect, query, ...(masks !== undefined ? { masks } : {}) });
  }
  return out;
}
