// Compiling a candidate module set (a policy PUT or DELETE, a bundle activation)
// without holding the main thread. With the worker pool, every worker compiles the
// candidate in turn before the write commits (PoolEvaluator.compilePolicy; the pool
// sends no decisions to the worker that is compiling while another one is free), and
// reports its errors or the facts the main thread needs to validate and commit: the
// package paths and every rule's data path. The main thread keeps the candidate as a
// lazy policy, compiled only when something there needs it (authorization and health
// policies, data filters, decision-log masks). compileCandidate runs on any thread;
// the report crosses threads as plain data and becomes a PolicyCompileError again.
import { RegoError, RegoErrors, parseModule, type CompiledPolicy, type SourceFile } from '../../compiler/index.js';
import { regoErrorFromWire, regoErrorToWire } from './wire-errors.js';
import { compileSteps, runSteps, runStepsYielding } from '../../compiler/index.js';
import { PolicyCompileError } from './errors.js';
import { packagePath, rulePaths, type RulePath } from './policies.js';
import type { CompileReport, WireRegoError } from './protocol.js';

/** A compiled candidate, validated and ready to be installed (Engine.installPolicies). */
export interface PolicyCandidate {
  /** The policy on this thread, or how to compile it here on first use. */
  policy: CompiledPolicy | (() => CompiledPolicy);
  rules: RulePath[];
  /** Package path of each module parsed on its own (`parseFirst`). */
  packages: Record<string, string[]>;
  timers: Record<string, number>;
  /** The workers' prepared copy (StateUpdate.policyId), when they compiled it. */
  policyId?: number;
}

function nowNs(): bigint {
  return process.hrtime.bigint();
}

function regoErrorList(e: unknown): RegoError[] | undefined {
  if (e instanceof RegoErrors) return e.errors;
  if (e instanceof RegoError) return [e];
  return undefined;
}

type CandidateResult = { policy?: CompiledPolicy; report: CompileReport };

/**
 * Parse `parseFirst` on its own (its syntax errors are reported as such), then
 * compile the whole set. Never throws a Rego error: they are in the report.
 */
export function compileCandidate(modules: SourceFile[], v0Compatible: boolean, parseFirst: string | undefined, instrument: boolean): CandidateResult {
  return runSteps(candidateSteps(modules, v0Compatible, parseFirst, instrument));
}

/**
 * compileCandidate with `yieldNow()` awaited between the compiler's steps (each
 * module's parse, each pass, code generation: compiler/compile-steps.ts), so an
 * evaluation worker keeps answering decisions while it compiles. Undefined when
 * `yieldNow` returned false (the candidate was abandoned). The compile timer counts
 * the steps only, not the time given away between them.
 */
export function compileCandidateYielding(
  modules: SourceFile[],
  v0Compatible: boolean,
  parseFirst: string | undefined,
  instrument: boolean,
  yieldNow: () => Promise<boolean>,
): Promise<CandidateResult | undefined> {
  return runStepsYielding(candidateSteps(modules, v0Compatible, parseFirst, instrument), yieldNow);
}

function* candidateSteps(modules: SourceFile[], v0Compatible: boolean, parseFirst: string | undefined, instrument: boolean): Generator<unknown, CandidateResult, void> {
  const timers: Record<string, number> = {};
  const packages: Record<string, string[]> = {};
  if (parseFirst !== undefined) {
    const file = modules.find((m) => m.file === parseFirst);
    if (file) {
      const t = nowNs();
      try {
        const module = parseModule(file.text, file.file, { v0Compatible: file.v0Compatible ?? v0Compatible });
        packages[file.file] = packagePath(module);
      } catch (e) {
        const errors = regoErrorList(e);
        if (!errors) throw e;
        return { report: { failed: { phase: 'parse', errors: errors.map(regoErrorToWire) }, timers } };
      }
      timers.timer_rego_module_parse_ns = Number(nowNs() - t);
      yield;
    }
  }
  const stages: Record<string, number> | undefined = instrument ? {} : undefined;
  let policy: CompiledPolicy;
  let spent = 0n;
  try {
    // compile(modules, …) of compiler/policy.ts, one step at a time (engine/evaluate.ts compileModules' options).
    const steps = compileSteps(modules, stages ? { v0Compatible, stageTimers: stages } : { v0Compatible });
    for (;;) {
      const t = nowNs();
      const r = steps.next();
      spent += nowNs() - t;
      if (r.done) {
        policy = r.value;
        break;
      }
      yield;
    }
  } catch (e) {
    const errors = regoErrorList(e);
    if (!errors) throw e;
    return { report: { failed: { phase: 'compile', errors: errors.map(regoErrorToWire) }, packages, timers } };
  }
  timers.timer_rego_module_compile_ns = Number(spent);
  Object.assign(timers, stages);
  const rules = rulePaths(policy).map((r) => ({ path: r.path, location: { file: r.location.file, row: r.location.row, col: r.location.col, offset: r.location.offset } }));
  return { policy, report: { packages, rules, timers } };
}

/**
 * Turn a worker's report into a candidate, or throw what the main-thread compile
 * would have thrown: PolicyCompileError (parse errors of `parseFirst` always as a
 * 'put'), after `afterParse` (the caller's scope check) has seen the package path.
 */
export function candidateFromReport(
  report: CompileReport,
  operation: 'put' | 'delete',
  parseFirst: string | undefined,
  afterParse: ((pkg: string[]) => void) | undefined,
  compileHere: () => CompiledPolicy,
  policyId: number,
): PolicyCandidate {
  if (report.crash !== undefined) throw new Error(report.crash);
  if (report.failed?.phase === 'parse') throw new PolicyCompileError(report.failed.errors.map(regoErrorFromWire), 'put');
  const packages = report.packages ?? {};
  if (parseFirst !== undefined && packages[parseFirst]) afterParse?.(packages[parseFirst]);
  if (report.failed) throw new PolicyCompileError(report.failed.errors.map(regoErrorFromWire), operation);
  let compiled: CompiledPolicy | undefined;
  return { policy: () => (compiled ??= compileHere()), rules: report.rules ?? [], packages, timers: report.timers, policyId };
}

/** The same steps on this thread (in-process evaluation, or no live worker). */
export function compileHere(
  modules: SourceFile[],
  v0Compatible: boolean,
  operation: 'put' | 'delete',
  parseFirst: string | undefined,
  afterParse: ((pkg: string[]) => void) | undefined,
  instrument: boolean,
): PolicyCandidate {
  const { policy, report } = compileCandidate(modules, v0Compatible, parseFirst, instrument);
  const candidate = candidateFromReport(report, operation, parseFirst, afterParse, () => policy!, -1);
  return { policy: policy!, rules: candidate.rules, packages: candidate.packages, timers: candidate.timers };
}
