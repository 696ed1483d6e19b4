// Rule planning: each group of rules (see passes/rule-tree.ts) becomes an IR
// RuleGroup whose definitions hold parameter patterns, a planned body, and the
// head's keys and value planned after the body.
import type { Rule, Term } from '../ast/nodes.js';
import type { Block, Pattern, RuleDef, RuleGroup } from '../ir/ir.js';
import { RegoError } from '../source/diagnostics.js';
import type { GroupInfo, GroupRule } from '../passes/rule-tree.js';
import { FrameLayout, Scope, directVars } from './scope.js';
import { BodyPlanner } from './body.js';
import { TermPlanner } from './terms.js';
import type { PlanContext } from './context.js';
import type { Value } from '../../runtime/value/value.js';

export function planGroup(ctx: PlanContext, g: GroupInfo): RuleGroup {
  const planner = new BodyPlanner(ctx);
  const defs = g.rules.map((r) => planDef(planner, g, r.rule, r.keys, r.rule.head.args ?? []));
  // Every field present from the start, undefined or not: all groups then share one
  // hidden class in V8, so the back ends' reads of `g.kind`, `g.default`, … stay monomorphic.
  const out: RuleGroup = { id: g.id, kind: g.kind, path: g.path, defs, node: g.node, arity: g.arity, leafSet: g.leafSet, default: undefined, defaultLoc: undefined, index: undefined };
  if (g.defaultRule) {
    out.default = constValue(planner, g.defaultRule);
    out.defaultLoc = g.defaultRule.rule.loc;
  }
  return out;
}

function planDef(planner: BodyPlanner, g: GroupInfo, rule: Rule, keys: Term[], args: Term[]): RuleDef {
  const layout = new FrameLayout();
  const scope = new Scope(layout);
  const bound = new Set<number>();
  for (const a of args) for (const v of directVars(a)) if (!scope.vars.has(v.name)) scope.declare(v.name);
  const pre: Block = [];
  const tp = new TermPlanner(planner, scope, bound);
  // Plain patterns bind at entry; other parameters (templates, refs, calls) are
  // captured and compared with the argument after the body has run.
  const late: [Term, number][] = [];
  const params: Pattern[] = args.map((a) => {
    if (isPlainPattern(a)) return tp.pattern(a, pre);
    const slot = scope.temp();
    bound.add(slot);
    late.push([a, slot]);
    return { k: 'bind', slot };
  });
  const body = [...pre, ...planner.planBody(rule.body, scope, bound)];
  for (const [t, slot] of late) new TermPlanner(planner, scope, bound).unifyWithExpr(t, { k: 'local', slot }, body);
  // Head terms may mention vars the body does not (wildcards in `q := xs[_]`):
  // declare them so ref keys become generators and anything else is unsafe.
  for (const t of [...keys, rule.head.key, rule.head.value]) if (t) for (const v of directVars(t)) if (scope.lookup(v.name) === undefined) scope.declare(v.name);
  const head = new TermPlanner(planner, scope, bound);
  const keyExprs = keys.map((k) => head.value(k, body));
  const h = rule.head;
  let valueTerm: Term | undefined;
  if (g.kind === 'set' || (g.kind === 'object' && g.leafSet)) valueTerm = h.key ?? h.value;
  else valueTerm = h.value;
  const value = valueTerm ? head.value(valueTerm, body) : { k: 'const' as const, value: true };
  const def: RuleDef = { params, body, keys: keyExprs, value, frameSize: 0, loc: rule.loc, src: rule };
  if (rule.else) def.else = planDef(planner, g, rule.else, keys, rule.else.head.args ?? args);
  def.frameSize = layout.size;
  def.names = layout.names;
  return def;
}

function isPlainPattern(t: Term): boolean {
  switch (t.kind) {
    case 'var':
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      return true;
    case 'array':
      return t.items.every(isPlainPattern);
    case 'object':
      return t.entries.every(([k, v]) => isPlainPattern(k) && isPlainPattern(v));
    default:
      return false;
  }
}

function constValue(planner: BodyPlanner, gr: GroupRule): Value {
  const t = gr.rule.head.value;
  if (!t) return true;
  const tp = new TermPlanner(planner, new Scope(new FrameLayout()), new Set());
  const pre: Block = [];
  let e;
  try {
    e = tp.value(t, pre);
  } catch {
    throw new RegoError('rego_type_error', 'default rule value cannot contain variables', t.loc);
  }
  if (e.k !== 'const' || pre.length > 0) throw new RegoError('rego_type_error', 'default rule value must be a constant', t.loc);
  return e.value;
}
