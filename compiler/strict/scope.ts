// The declared-variable stack of OPA's RewriteLocalVars stage (`localDeclaredVars`
// in OPA's compile.go), as strict mode needs it: one scope per rule body,
// comprehension body and `every` body; each name records how it first occurred
// in its scope (argument, plain use, `:=`, `some`/`every`) and how often it was
// seen since. A variable is "used" when it was seen more than once (its own
// declaration counts as the first sighting). Helpers over terms live here too.
import type { Body, Location, Term } from '../ast/nodes.js';
import { forEachTerm } from '../ast/transform.js';

/** How a name first occurred in a scope (OPA's varOccurrence). */
export type Occurrence = 'arg' | 'seen' | 'assigned' | 'declared';

export interface LocalVar {
  name: string;
  occ: Occurrence;
  /** Times seen, the declaration included. */
  count: number;
  wildcard: boolean;
  /** The location of the expression that declared it (for `assigned var x unused`). */
  exprLoc?: Location;
}

type Scope = Map<string, LocalVar>;

export class VarStack {
  private scopes: Scope[];

  constructor(scopes: Scope[] = [new Map()]) {
    this.scopes = scopes;
  }

  /** A copy whose single scope holds every variable of this stack (OPA's Copy()). */
  copy(): VarStack {
    const merged: Scope = new Map();
    for (const s of this.scopes) for (const [k, v] of s) merged.set(k, { ...v });
    return new VarStack([merged]);
  }

  push(): void {
    this.scopes.push(new Map());
  }

  pop(): void {
    this.scopes.pop();
  }

  /** The variable a name refers to, innermost scope first. */
  declared(name: string): LocalVar | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const v = this.scopes[i]!.get(name);
      if (v) return v;
    }
    return undefined;
  }

  /** How the name occurred in the current (innermost) scope, if at all. */
  occurrence(name: string): Occurrence | undefined {
    return this.current().get(name)?.occ;
  }

  insert(name: string, occ: Occurrence, wildcard: boolean, exprLoc?: Location): LocalVar {
    const v: LocalVar = { name, occ, count: 1, wildcard, exprLoc };
    this.current().set(name, v);
    return v;
  }

  /** Mark a sighting of a name that is already known. */
  seen(name: string): void {
    const v = this.declared(name);
    if (v) v.count++;
  }

  /** How many times the name has been seen (0 when unknown). */
  count(name: string): number {
    return this.declared(name)?.count ?? 0;
  }

  /** The variables of the current scope, in declaration order. */
  current(): Scope {
    return this.scopes[this.scopes.length - 1]!;
  }
}

export function isScalar(t: Term | undefined): boolean {
  return t === undefined || t.kind === 'null' || t.kind === 'boolean' || t.kind === 'number' || t.kind === 'string';
}

/** `input` or `data` alone (the parser gives them as refs with an empty path). */
export function rootDocName(t: Term): string | undefined {
  if (t.kind === 'ref' && t.path.length === 0 && t.head.kind === 'var' && (t.head.name === 'input' || t.head.name === 'data')) return t.head.name;
  if (t.kind === 'var' && (t.name === 'input' || t.name === 'data')) return t.name;
  return undefined;
}

/** Every variable name in a term, nested bodies included (OPA's Term.Vars()). */
export function termVarNames(t: Term | undefined, out: Set<string> = new Set()): Set<string> {
  if (t) {
    forEachTerm(t, (x) => {
      if (x.kind === 'var') out.add(x.name);
    });
  }
  return out;
}

/** The call term of `x := y` (op `assign`, two operands), if the term is one. */
export function assignCall(t: Term): { lhs: Term; rhs: Term } | undefined {
  if (t.kind === 'call' && t.op.kind === 'var' && t.op.name === 'assign' && t.args.length === 2) return { lhs: t.args[0]!, rhs: t.args[1]! };
  return undefined;
}

/** OPA's declaredVars(body), shared with reference resolution. */
export { declaredVars } from '../passes/resolve-refs.js';
