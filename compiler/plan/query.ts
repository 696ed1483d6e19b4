// Query planning: a query body becomes a QueryPlan whose statements also capture
// each top-level expression's value, and whose user variables become the result
// bindings (wildcards and generated variables are left out).
import type { Body } from '../ast/nodes.js';
import type { QueryPlan, Stmt } from '../ir/ir.js';
import { FrameLayout, Scope } from './scope.js';
import { BodyPlanner } from './body.js';
import type { PlanContext } from './context.js';
import { queryTemplateErrors } from './template-check.js';
import { throwErrors } from '../source/diagnostics.js';
import { namesIn, exprTerms } from './analyze.js';

function iterates(block: Stmt[]): boolean {
  return block.some((s) => s.k === 'scan' || s.k === 'relation' || (s.k === 'with' && iterates(s.body)));
}

export function planQuery(ctx: PlanContext, body: Body, texts: string[]): QueryPlan {
  throwErrors(queryTemplateErrors(body, (n) => ctx.builtinDecl(n)?.relation === true));
  const layout = new FrameLayout();
  const scope = new Scope(layout);
  const planner = new BodyPlanner(ctx, true);
  // As OPA's rego package does, each term or call expression's value is captured
  // instead of tested, so `data.x.allow` yields `false` rather than undefined. The
  // truthiness tests come after the whole body, and only when the query iterates
  // or has several expressions.
  const exprSlots = body.map(() => layout.alloc('$expr'));
  const captured: number[] = [];
  // An expression with `with` modifiers is planned as a `with` block around its test:
  // the value is captured inside it (`input.a with input as {"a": 5}` is 5, as in OPA,
  // not true). The block shares the query's frame, so the slot keeps the value after it.
  const block = planner.planBody(body, scope, new Set(), (i, _e, out) => {
    let target = out;
    let last = out[out.length - 1];
    while (last && last.k === 'with') {
      target = last.body;
      last = target[target.length - 1];
    }
    const slot = exprSlots[i]!;
    if (last && last.k === 'test') {
      target.pop();
      target.push({ k: 'let', slot, expr: last.expr, ...(last.src ? { src: last.src } : {}) });
      captured.push(slot);
    } else out.push({ k: 'let', slot, expr: { k: 'const', value: true } } as Stmt);
  });
  if (body.length > 1 || iterates(block)) for (const slot of captured) block.push({ k: 'test', expr: { k: 'local', slot } });
  const vars = queryVars(body, scope);
  return {
    body: block,
    frameSize: layout.size,
    vars,
    exprs: body.map((e, i) => ({ slot: exprSlots[i]!, text: texts[i] ?? '', loc: e.loc })),
  };
}

/** The user variables of a query (its result bindings), in order of appearance: not wildcards, generated vars, `input` or `data`. */
export function queryVars(body: Body, scope: Scope): { name: string; slot: number }[] {
  const vars: { name: string; slot: number }[] = [];
  const seen = new Set<string>();
  for (const e of body) {
    for (const t of exprTerms(e)) {
      for (const n of namesIn(t)) {
        if (seen.has(n) || n.startsWith('$') || n === 'input' || n === 'data') continue;
        const slot = scope.vars.get(n);
        if (slot === undefined) continue;
        seen.add(n);
        vars.push({ name: n, slot });
      }
    }
  }
  return vars;
}
