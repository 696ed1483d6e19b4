// compile(): source files → AST → checked AST → IR → JS closures, as a Policy.
// prepare() plans a query against the compiled rules; eval() runs it.
import type { CompileOptions, EvalOptions, Policy, PrepareOptions, PreparedQuery, ResultRow, SourceFile } from './api.js';
import type { Body, Module } from './ast/nodes.js';
import { RegoError, RegoErrors } from './source/diagnostics.js';
import { parseModule, parseQuery } from './parser/index.js';
import { compileStageMetric, PASSES, runPasses } from './passes/index.js';
import { deepestRuleLocation, stackOverflowError } from './parser/depth.js';
import { resolveRefs } from './passes/resolve-refs.js';
import type { CompileState } from './passes/pass.js';
import { PlanContext } from './plan/context.js';
import { planQuery } from './plan/query.js';
import { checkBlockTypes } from './passes/check-types.js';
import { hoistQuery } from './passes/hoist-invariants.js';
import { Program } from './codegen/js/program.js';
import type { PolicyIR, QueryPlan } from './ir/ir.js';
import { RUNTIME } from '../runtime/scope.js';
import './builtin-parser.js'; // provides rego.parse_module's parser to the runtime
import { EvalContext } from '../runtime/eval/context.js';
import { EvalError } from '../runtime/eval/errors.js';
import { BUILTIN_ERRORS } from '../runtime/eval/rules.js';
import { TEST_CASES } from '../runtime/builtins/rego.js';
import { RObject } from '../runtime/value/collections.js';
import type { Value } from '../runtime/value/value.js';

export function compile(files: SourceFile[], opts: CompileOptions = {}): CompiledPolicy {
  const state: CompileState = { opts, modules: [], errors: [] };
  for (const f of files) parseInto(state, f);
  if (state.errors.length > 0) throw new RegoErrors(state.errors);
  return compileModules(state);
}

/** Parse one file into `state.modules`, or record its parse errors in `state.errors`. */
export function parseInto(state: CompileState, f: SourceFile): void {
  try {
    state.modules.push(parseModule(f.text, f.file, { v0Compatible: f.v0Compatible ?? state.opts.v0Compatible }));
  } catch (e) {
    if (e instanceof RegoErrors) state.errors.push(...e.errors);
    else if (e instanceof RegoError) state.errors.push(e);
    else throw e;
  }
}

/** Compile already-parsed modules (used by compile() and by tools that parse themselves). */
export function compileModules(state: CompileState): CompiledPolicy {
  // Last line of defence: a stack overflow in any pass or back end becomes a located
  // rego_compile_error naming the stage (the parser's depth limits should prevent it).
  let stage = PASSES[0]!.name;
  try {
    runPasses(state, (pass) => {
      stage = PASSES[PASSES.indexOf(pass) + 1]?.name ?? 'codegen';
    });
    stage = 'codegen';
    return new CompiledPolicy(state);
  } catch (e) {
    throw stackOverflowError(e, stage, () => deepestRuleLocation(state.modules));
  }
}

export class CompiledPolicy implements Policy {
  readonly program: Program;
  readonly ir: PolicyIR;
  private readonly planContext: PlanContext;

  constructor(readonly state: CompileState) {
    this.ir = state.ir!;
    const t = state.opts.stageTimers ? process.hrtime.bigint() : 0n;
    this.program = new Program(this.ir, RUNTIME, state.opts.backend ?? 'js');
    if (state.opts.stageTimers) state.opts.stageTimers[compileStageMetric('codegen')] = Number(process.hrtime.bigint() - t);
    this.planContext = new PlanContext(state.tree!, { v0Compatible: state.opts.v0Compatible });
  }

  get modules(): Module[] {
    return this.state.modules;
  }

  /** Plan a query without compiling it to closures (for IR dumps). */
  planQuery(query: string, timers?: Record<string, number>): QueryPlan {
    const stage = stageTimer(timers);
    const body = stage('parse', () => parseQuery(query, '', { v0Compatible: this.state.opts.v0Compatible }));
    return this.planBody(body, query, stage);
  }

  private planBody(body: Body, text: string, stage: StageTimer): QueryPlan {
    try {
      const resolved = stage('resolve_refs', () => resolveQuery(body));
      const plan = stage('plan', () => planQuery(this.planContext, resolved, exprTexts(body, text)));
      const typeErrors = stage('check_types', () => checkBlockTypes(plan.body, this.state.ir));
      if (typeErrors.length > 0) throw new RegoErrors(typeErrors);
      return stage('hoist_invariants', () => hoistQuery(plan));
    } catch (e) {
      if (e instanceof RegoError) throw new RegoErrors([e]);
      throw stackOverflowError(e, 'query', () => body[0]?.loc);
    }
  }

  /**
   * A decision: the document at `path` under data (`['rbac', 'allow']`), evaluated
   * directly, as the Data API serves `GET /v1/data/rbac/allow`. Skips query
   * planning and result rows; returns the value or undefined.
   */
  prepareDecision(path: string[]): (opts?: EvalOptions) => Value | undefined {
    const program = this.program;
    const nodes = this.ir.nodes;
    let node = nodes[0]!;
    let used = 0;
    while (used < path.length) {
      const child = node.children.get(path[used]!);
      if (child === undefined) break;
      node = nodes[child]!;
      used++;
    }
    const groups = node.groups.filter((g) => this.ir.groups[g]!.kind !== 'function');
    const nodeId = node.id;
    let rest = path.slice(used);
    let top: (c: EvalContext) => Value | undefined;
    const plainRule = node.children.size === 0 && groups.length === 1 && this.ir.groups[groups[0]!]!.kind !== 'object';
    if (plainRule && rest.length === 0) {
      // The common decision (`data.rbac.allow`): the rule's value, through its generated
      // all-definitions test when it has one (Program.decisionTest, made on first use).
      const id = groups[0]!;
      let run: ((c: EvalContext) => Value | undefined) | undefined;
      const contexts = new ContextKeeper();
      return (opts: EvalOptions = {}) => {
        const ctx = contexts.take(opts);
        try {
          return (run ??= program.decisionTest(id) ?? ((c) => program.decide(id, c)))(ctx);
        } catch (e) {
          throw recursionError(e);
        } finally {
          contexts.give(ctx);
        }
      };
    }
    if (rest.length > 0 && groups.length === 0) {
      // The path leaves the rule tree: only base data lives there.
      top = (c) => c.data;
      rest = path;
    } else if (plainRule) {
      // A complete or set rule: its value, then the rest of the path into it.
      top = (c) => program.decide(groups[0]!, c);
    } else if (rest.length > 0) {
      // An object rule at this node may hold the next key: evaluate just that key.
      const key = rest[0]!;
      rest = rest.slice(1);
      top = (c) => program.vdocKey(nodeId, key, c);
    } else top = (c) => program.vdoc(nodeId, c);
    const contexts = new ContextKeeper();
    return (opts: EvalOptions = {}) => {
      const ctx = contexts.take(opts);
      try {
        const v = top(ctx);
        return rest.length === 0 ? v : RUNTIME.dig(v, rest);
      } catch (e) {
        throw recursionError(e);
      } finally {
        contexts.give(ctx);
      }
    };
  }

  prepare(query: string, opts: PrepareOptions = {}): PreparedQuery {
    const plan = this.planQuery(query, opts.stageTimers);
    let run: ReturnType<Program['query']>;
    try {
      run = stageTimer(opts.stageTimers)('codegen', () => this.program.query(plan));
    } catch (e) {
      throw stackOverflowError(e, 'codegen', () => plan.exprs[0]?.loc);
    }
    const exprMeta = plan.exprs.map((x) => ({ slot: x.slot, text: x.text, location: { row: x.loc.row, col: x.loc.col } }));
    return {
      vars: plan.vars.map((v) => v.name),
      eval: (opts: EvalOptions = {}): ResultRow[] => {
        // A fresh context per query (no ContextKeeper): a query's rule memos are stored
        // into the context, and into a long-lived one that costs more than it saves.
        const ctx = ContextKeeper.fresh(opts);
        if (opts.builtinErrors) ctx.extras[BUILTIN_ERRORS] = opts.builtinErrors;
        if (opts.testCases) ctx.extras[TEST_CASES] = (path: Value) => void opts.testCases!.push({ path, at: 0 });
        let frames;
        try {
          frames = run(ctx);
        } catch (e) {
          throw recursionError(e);
        }
        return frames.map((f) => {
          const bindings: Record<string, Value> = {};
          for (const v of plan.vars) if (f[v.slot] !== undefined) bindings[v.name] = f[v.slot] as Value;
          const expressions = exprMeta.map((x) => ({ value: f[x.slot] as Value, text: x.text, location: x.location }));
          return { expressions, bindings };
        });
      },
    };
  }
}

type StageTimer = <T>(name: string, fn: () => T) => T;

/** Runs a compile stage, recording its time in `timers` when given (OPA's instrument metrics). */
function stageTimer(timers: Record<string, number> | undefined): StageTimer {
  if (!timers) return (_name, fn) => fn();
  return (name, fn) => {
    const t = process.hrtime.bigint();
    try {
      return fn();
    } finally {
      timers[`timer_query_compile_stage_${name}_ns`] = Number(process.hrtime.bigint() - t);
    }
  };
}

const NO_DATA = new RObject();

/** A stack overflow during evaluation as OPA's eval_recursion_error; other errors as they are. */
function recursionError(e: unknown): unknown {
  return e instanceof RangeError ? new EvalError('eval_recursion_error', 'evaluation exceeded the maximum stack depth') : e;
}

/**
 * The evaluation context of a prepared decision, kept between its decisions: take()
 * gives the one the last decision released (EvalContext.release, restart) or a new
 * one, give() releases it for the next. Making a fresh context per decision was about
 * a tenth of a small decision's time (bench/README, "stop 22"). A decision started
 * while another runs (a print or builtin calling back) gets its own.
 */
class ContextKeeper {
  private spare: EvalContext | undefined = undefined;

  static fresh(opts: EvalOptions): EvalContext {
    return EvalContext.forQuery(opts.input, opts.data ?? NO_DATA, opts.strictBuiltinErrors === true, opts.print, opts.deadline);
  }

  take(opts: EvalOptions): EvalContext {
    const c = this.spare;
    if (c === undefined) return ContextKeeper.fresh(opts);
    this.spare = undefined;
    c.restart(opts.input, opts.data ?? NO_DATA, opts.strictBuiltinErrors === true, opts.print, opts.deadline);
    return c;
  }

  give(c: EvalContext): void {
    c.release();
    this.spare = c;
  }
}

/** Queries have no package: only imports-free resolution applies. */
export function resolveQuery(body: Body): Body {
  const state: CompileState = {
    opts: {},
    errors: [],
    modules: [
      {
        kind: 'module',
        file: '',
        package: { kind: 'package', path: [], loc: { file: '', row: 1, col: 1, offset: 0 } },
        imports: [],
        rules: [{ kind: 'rule', default: false, head: { ref: [], assign: false, contains: false, loc: { file: '', row: 1, col: 1, offset: 0 } }, body, loc: { file: '', row: 1, col: 1, offset: 0 } }],
        annotations: [],
        comments: [],
        regoVersion: 1,
      },
    ],
  };
  resolveRefs.run(state);
  return state.modules[0]!.rules[0]!.body;
}

/** The source text of each top-level query expression. */
function exprTexts(body: Body, text: string): string[] {
  return body.map((e, i) => {
    const start = e.loc.offset;
    const end = i + 1 < body.length ? body[i + 1]!.loc.offset : text.length;
    return text.slice(start, end).trim().replace(/;$/, '').trim();
  });
}
