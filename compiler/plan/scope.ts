// Variable scopes for the planner. Every rule body, function, query, comprehension
// and `every` body gets a Scope; all scopes of one rule share a FrameLayout, so a
// variable is one numbered slot in the frame the closures run on.
import type { Term, VarTerm } from '../ast/nodes.js';
import { forEachTerm } from '../ast/transform.js';

export class FrameLayout {
  size = 0;
  names: string[] = [];
  alloc(name: string): number {
    this.names.push(name);
    return this.size++;
  }
}

export class Scope {
  readonly vars = new Map<string, number>();
  /** Index of the expression that declares a var with `:=` or `some`. */
  readonly declaredAt = new Map<string, number>();
  /** Index of the expression being planned; nested bodies see only vars declared up to it. */
  cursor = Number.MAX_SAFE_INTEGER;
  constructor(
    readonly layout: FrameLayout,
    readonly parent?: Scope,
  ) {}

  lookup(name: string): number | undefined {
    return this.vars.get(name) ?? this.parent?.lookupVisible(name);
  }

  /** Lookup from a nested body: a var declared after the current expression is not visible. */
  lookupVisible(name: string): number | undefined {
    const s = this.vars.get(name);
    if (s !== undefined && (this.declaredAt.get(name) ?? -1) <= this.cursor) return s;
    return this.parent?.lookupVisible(name);
  }

  declare(name: string): number {
    const slot = this.layout.alloc(name);
    this.vars.set(name, slot);
    return slot;
  }

  /** The slot for `name`: existing in this scope chain, or new in this scope. */
  ensure(name: string): number {
    return this.lookup(name) ?? this.declare(name);
  }

  child(): Scope {
    return new Scope(this.layout, this);
  }

  /** A fresh anonymous slot for intermediate values. */
  temp(): number {
    return this.layout.alloc('$t');
  }
}

export const ROOT_VARS = new Set(['input', 'data']);

/**
 * Var terms directly in a term: not inside comprehension bodies; with `templates`
 * false, not inside template-string parts either (OPA rewrites those to comprehensions).
 */
export function directVars(t: Term, out: VarTerm[] = [], templates = true): VarTerm[] {
  const walk = (x: Term): void => void directVars(x, out, templates);
  switch (t.kind) {
    case 'var':
      if (!ROOT_VARS.has(t.name)) out.push(t);
      break;
    case 'ref':
      walk(t.head);
      t.path.forEach(walk);
      break;
    case 'array':
    case 'set':
      t.items.forEach(walk);
      break;
    case 'object':
      t.entries.forEach(([k, v]) => {
        walk(k);
        walk(v);
      });
      break;
    case 'call':
      t.args.forEach(walk);
      break;
    case 'template':
      if (templates) t.parts.forEach((p) => typeof p !== 'string' && walk(p));
      break;
    default:
      break;
  }
  return out;
}

/** Nested comprehension terms directly inside a term. */
export function directComprehensions(t: Term, out: Term[] = []): Term[] {
  forEachTermShallow(t, (x) => {
    if (x.kind === 'arraycomp' || x.kind === 'setcomp' || x.kind === 'objectcomp') out.push(x);
  });
  return out;
}

function forEachTermShallow(t: Term, fn: (t: Term) => void): void {
  fn(t);
  switch (t.kind) {
    case 'ref':
      forEachTermShallow(t.head, fn);
      t.path.forEach((p) => forEachTermShallow(p, fn));
      break;
    case 'array':
    case 'set':
      t.items.forEach((x) => forEachTermShallow(x, fn));
      break;
    case 'object':
      t.entries.forEach(([k, v]) => {
        forEachTermShallow(k, fn);
        forEachTermShallow(v, fn);
      });
      break;
    case 'call':
      t.args.forEach((x) => forEachTermShallow(x, fn));
      break;
    case 'template':
      t.parts.forEach((p) => typeof p !== 'string' && forEachTermShallow(p, fn));
      break;
    default:
      break;
  }
}

/** All var names anywhere in a term, including nested bodies. */
export function allVarNames(t: Term): Set<string> {
  const out = new Set<string>();
  forEachTerm(t, (x) => {
    if (x.kind === 'var') out.add(x.name);
  });
  return out;
}
