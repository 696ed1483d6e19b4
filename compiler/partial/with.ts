// Partial evaluation of `with`. Replacements by known values derive a World: input
// or data replaced (the interpreter's EvalContext too, so known rules see them),
// functions mocked; the body runs in it and the rest of the query in the outer one.
//
// An expression whose `with` replaces part of an unknown
// document (`foo with input.fruits.colour as "red"`, `input.fruits` unknown) is
// kept whole in the residual, as OPA does (evalWith disables inlining for the refs
// of the expression and saves it with its `with` modifiers): the replacement must
// apply when the residual runs, to the unknown parts.
//
// The source expression (the statement's `src`) is written with its variables
// replaced by their current bindings, and its references to rules by references to
// their support rules (`data.filters.foo` → `data.partial.filters.foo`, functions
// likewise), so the residual needs nothing but the support modules. Known parts of
// input and data inside those support rules were resolved in the query's World,
// which the `with` does not change (it only replaces paths under unknowns).
import type { Expr as AstExpr, Term, With } from '../ast/nodes.js';
import type { Block, Expr, WithMod } from '../ir/ir.js';
import type { FunctionOverride } from '../../runtime/eval/context.js';
import { RUNTIME } from '../../runtime/scope.js';
import type { Value } from '../../runtime/value/value.js';
import { mapExpr, mapTerm } from '../ast/transform.js';
import type { PartialEvaluator } from './eval.js';
import type { Frame, K } from './exprs.js';
import { LOC, mkRef, PartialUnsupported, Sym, toTerm, type PVal } from './terms.js';
import { bindsOf, isPrefix, World } from './world.js';

/** Whether a `with` target lies strictly inside an unknown document. */
export function insideUnknown(pe: PartialEvaluator, mods: WithMod[]): boolean {
  return mods.some((m) => m.k !== 'function' && pe.world.unknowns[m.k].some((u) => u.length < m.path.length && isPrefix(u, m.path)));
}

/** The residual expression: `src` plugged, with the modifiers' known values. */
export function keptWithExpr(pe: PartialEvaluator, src: AstExpr | undefined, mods: WithMod[], values: PVal[], f: Frame): AstExpr {
  if (!src || src.negated || src.notBody || src.body.type !== 'term') throw new PartialUnsupported("this form of 'with' over an unknown document");
  const withs: With[] = mods.map((m, i) => {
    if (m.k === 'function') throw new PartialUnsupported("'with' replacing functions and part of an unknown document");
    const target = m.path.length === 0 ? { kind: 'var' as const, name: m.k, loc: LOC } : mkRef(m.k, m.path);
    return { kind: 'with', target, value: toTerm(values[i]!), loc: src.loc };
  });
  const plugged = mapExpr({ ...src, with: [] }, (t) => plugTerm(pe, t, f));
  return { ...plugged, with: withs };
}

/** The binding of a source var: the slot of that name that holds a value. */
function varTerm(name: string, f: Frame): Term {
  for (let s = f.names.length - 1; s >= 0; s--) {
    if (f.names[s] !== name) continue;
    const v = f.get(s);
    if (v !== undefined) return toTerm(v);
  }
  throw new PartialUnsupported(`'with' over an unknown document in an expression that binds ${name}`);
}

function plugTerm(pe: PartialEvaluator, t: Term, f: Frame): Term | undefined {
  if (t.kind === 'var') return t.name === 'input' || t.name === 'data' ? undefined : varTerm(t.name, f);
  if (t.kind === 'call') {
    const op = t.op.kind === 'ref' ? supportRef(pe, t.op, true) : undefined;
    return op ? { ...t, op, args: t.args.map((a) => mapTerm(a, (x) => plugTerm(pe, x, f))) } : undefined;
  }
  if (t.kind !== 'ref' || t.head.kind !== 'var' || t.head.name !== 'data') return undefined;
  const r = supportRef(pe, t, false);
  if (!r) throw new PartialUnsupported(`'with' over an unknown document with a reference to base data (${t.path.length} segments)`);
  return { ...r, path: r.path.map((p) => mapTerm(p, (x) => plugTerm(pe, x, f))) };
}

/** `data.a.b…` → `data.partial.a.b…` with support rules written for the rules it reaches. */
function supportRef(pe: PartialEvaluator, t: Term & { kind: 'ref' }, fn: boolean): (Term & { kind: 'ref' }) | undefined {
  if (t.head.kind !== 'var' || t.head.name !== 'data') return undefined;
  const ir = pe.ip.ir;
  let node = ir.nodes[0]!;
  let used = 0;
  while (used < t.path.length) {
    const p = t.path[used]!;
    const child = p.kind === 'string' ? node.children.get(p.value) : undefined;
    if (child === undefined) break;
    node = ir.nodes[child]!;
    used++;
  }
  if (used === 0) return undefined;
  const groups = node.groups.map((g) => ir.groups[g]!).filter((g) => (fn ? g.kind === 'function' : g.kind !== 'function'));
  if (groups.length === 0 && used < t.path.length) return undefined;
  const all = (id: number): void => {
    const x = ir.nodes[id]!;
    for (const g of x.groups) if (ir.groups[g]!.kind !== 'function' || fn) pe.rules.support(ir.groups[g]!);
    if (!fn) for (const c of x.children.values()) all(c);
  };
  all(node.id);
  return { ...t, path: [{ kind: 'string', value: 'partial', loc: t.loc }, ...t.path] };
}

export function evalWith(pe: PartialEvaluator, mods: WithMod[], body: Block, f: Frame, k: K, src: AstExpr | undefined): boolean {
  const values: Expr[] = [];
  for (const m of mods) if (m.k !== 'function' || !('k' in m.value) || m.value.k !== 'fnref') values.push(m.value as Expr);
  return pe.exs(values, f, (vals) => {
    if (vals.some((v) => v instanceof Sym)) {
      // OPA saves the expression when a value is unknown. That is right only where the
      // support rules keep refs to what the `with` replaces: targets at or under unknowns.
      const atUnknown = mods.every((m) => m.k !== 'function' && pe.world.unknowns[m.k].some((u) => isPrefix(u, m.path)));
      if (!atUnknown || !pe.world.base || bindsOf({ k: 'with', mods, body, loc: LOC }).some((slot) => !(f.names[slot] ?? '$').startsWith('$'))) {
        throw new PartialUnsupported("'with' values that depend on unknowns");
      }
      return pe.save(keptWithExpr(pe, src, mods, vals, f), k);
    }
    // OPA keeps the expression, `with` and all; where that cannot be written (nested
    // `with`, an expression binding variables…) the overlay below is just as sound.
    if (insideUnknown(pe, mods) && pe.world.base && !bindsOf({ k: 'with', mods, body, loc: LOC }).some((slot) => !(f.names[slot] ?? '$').startsWith('$'))) {
      let kept: AstExpr | undefined;
      try {
        kept = keptWithExpr(pe, src, mods, vals, f);
      } catch (e) {
        if (!(e instanceof PartialUnsupported)) throw e;
      }
      if (kept) return pe.save(kept, k);
    }
    const outerWorld = pe.world;
    const ctx = outerWorld.ctx.derive();
    let world = outerWorld;
    let i = 0;
    for (const m of mods) {
      if (m.k === 'function') {
        const map = new Map<string, FunctionOverride>(ctx.fnOverrides ?? []);
        const v = m.value;
        if ('k' in v && v.k === 'fnref') map.set(m.name, v.group !== undefined ? { kind: 'group', group: v.group } : { kind: 'builtin', name: v.name });
        else map.set(m.name, { kind: 'value', value: vals[i++] as Value });
        ctx.fnOverrides = map;
        continue;
      }
      const v = vals[i++] as Value;
      if (m.k === 'input') ctx.input = m.path.length === 0 ? v : RUNTIME.setPath(ctx.input, m.path, v);
      else {
        ctx.data = RUNTIME.setPath(ctx.data, m.path, v);
        ctx.dataOverrides = [...(ctx.dataOverrides ?? []), { path: m.path, value: v }];
      }
      world = world.withDoc(m.k, m.path, ctx);
    }
    const inner = world === outerWorld ? new World(world.unknowns, ctx, world.deps, false, world.overlays) : world;
    pe.world = inner;
    try {
      return pe.block(body, 0, f, () => {
        pe.world = outerWorld;
        try {
          return k();
        } finally {
          pe.world = inner;
        }
      });
    } finally {
      pe.world = outerWorld;
    }
  });
}
