// compile(): source files → AST → checked AST → IR → JS closures, as a Policy.
// prepare() plans a query against the compiled rules; eval() runs it.
import type { CompileOptions, EvalOptions, Policy, PreparedQuery, ResultRow, SourceFile } from './api.js';
import type { Body, Module } from './ast/nodes.js';
import { RegoError, RegoErrors } from './source/diagnostics.js';
import { parseModule, parseQuery } from './parser/index.js';
import { runPasses } from './passes/index.js';
import { resolveRefs } from './passes/resolve-refs.js';
import type { CompileState } from './passes/pass.js';
import { PlanContext } from './plan/context.js';
import { planQuery } from './plan/query.js';
import { checkBlockTypes } from './passes/check-types.js';
import { Program } from './codegen/js/program.js';
import type { PolicyIR, QueryPlan } from './ir/ir.js';
import { RUNTIME } from '../runtime/scope.js';
import { EvalContext, QueryBuiltinContext } from '../runtime/eval/context.js';
import { EvalError } from '../runtime/eval/errors.js';
import { RObject } from '../runtime/value/collections.js';
import type { Value } from '../runtime/value/value.js';

export function compile(files: SourceFile[], opts: CompileOptions = {}): CompiledPolicy {
  const state: CompileState = { opts, modules: [], errors: [] };
  for (const f of files) {
    try {
      state.modules.push(parseModule(f.text, f.file, { v0Compatible: f.v0Compatible ?? opts.v0Compatible }));
    } catch (e) {
      if (e instanceof RegoErrors) state.errors.push(...e.errors);
      else if (e instanceof RegoError) state.errors.push(e);
      else throw e;
    }
  }
  if (state.errors.length > 0) throw new RegoErrors(state.errors);
  return compileModules(state);
}

/** Compile already-parsed modules (used by compile() and by tools that parse themselves). */
export function compileModules(state: CompileState): CompiledPolicy {
  runPasses(state);
  return new CompiledPolicy(state);
}

export class CompiledPolicy implements Policy {
  readonly program: Program;
  readonly ir: PolicyIR;
  private readonly planContext: PlanContext;

  constructor(readonly state: CompileState) {
    this.ir = state.ir!;
    this.program = new Program(this.ir, RUNTIME);
    this.planContext = new PlanContext(state.tree!, { v0Compatible: state.opts.v0Compatible });
  }

  get modules(): Module[] {
    return this.state.modules;
  }

  /** Plan a query without compiling it to closures (for IR dumps). */
  planQuery(query: string): QueryPlan {
    const body = parseQuery(query, '', { v0Compatible: this.state.opts.v0Compatible });
    return this.planBody(body, query);
  }

  private planBody(body: Body, text: string): QueryPlan {
    const resolved = resolveQuery(body);
    try {
      const plan = planQuery(this.planContext, resolved, exprTexts(body, text));
      const typeErrors = checkBlockTypes(plan.body);
      if (typeErrors.length > 0) throw new RegoErrors(typeErrors);
      return plan;
    } catch (e) {
      if (e instanceof RegoError) throw new RegoErrors([e]);
      throw e;
    }
  }

  prepare(query: string): PreparedQuery {
    const plan = this.planQuery(query);
    const run = this.program.query(plan);
    return {
      vars: plan.vars.map((v) => v.name),
      eval: (opts: EvalOptions = {}): ResultRow[] => {
        const ctx = newContext(opts);
        let frames;
        try {
          frames = run(ctx);
        } catch (e) {
          if (e instanceof RangeError) throw new EvalError('eval_recursion_error', 'evaluation exceeded the maximum stack depth');
          throw e;
        }
        return frames.map((f) => {
          const bindings: Record<string, Value> = {};
          for (const v of plan.vars) if (f[v.slot] !== undefined) bindings[v.name] = f[v.slot] as Value;
          const expressions = plan.exprs.map((x) => ({ value: f[x.slot] as Value, text: x.text, location: { row: x.loc.row, col: x.loc.col } }));
          return { expressions, bindings };
        });
      },
    };
  }
}

const NO_DATA = new RObject();
const discard = (): void => {};

function newContext(opts: EvalOptions): EvalContext {
  const builtins = new QueryBuiltinContext(opts.strictBuiltinErrors === true, opts.print ?? discard, opts.deadline);
  return new EvalContext(opts.input, opts.data ?? NO_DATA, builtins, opts.deadline);
}

/** Queries have no package: only imports-free resolution applies. */
function resolveQuery(body: Body): Body {
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
