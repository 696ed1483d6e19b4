// Saving a whole comprehension in the residual, as OPA's partial evaluator does for
// a comprehension that depends on unknowns (topdown eval.go,
// biunifyComprehensionPartial / amendComprehension): the comprehension's source
// term is copied with its variables renamed apart (OPA namespaces them), and each
// variable it reads from the enclosing body that is bound there gets `v = T`
// appended to its body, T being the binding's value or residual term. Its body is
// not partially evaluated, so an array or object comprehension keeps its order
// and duplicates even when its body would split into several residual
// alternatives (which cannot be recombined into one array).
//
// The source term is found in the AST expression the statement came from (by the
// comprehension's location). Refs into `data` whose documents do not depend on
// unknowns are replaced by their values (`data.t.nums[i]` → `[3, 1, 2][i]`); a body
// that still refers to `data` (calls of policy functions, documents over unknowns)
// is not saved: the residual would then depend on the original policy and data,
// which partial evaluation must not assume.
import type { Body, Expr as AstExpr, Node, Term, VarTerm } from '../ast/nodes.js';
import type { Location } from '../source/location.js';
import { mapTerm } from '../ast/transform.js';
import { walk } from '../ast/walk.js';
import type { Block, Expr, PolicyIR, RuleDef } from '../ir/ir.js';
import { visitBlock } from '../ir/visit.js';
import { PartialUnsupported, eqExpr, mkVar } from './terms.js';
import { bindsOf } from './world.js';

type Comprehension = Extract<Term, { kind: 'arraycomp' | 'setcomp' | 'objectcomp' }>;

/** The comprehension term at `loc` inside an AST node. */
function findIn(node: Node, loc: Location): Comprehension | undefined {
  let found: Comprehension | undefined;
  walk(node, (n) => {
    if (found) return false;
    if ('kind' in n && (n.kind === 'arraycomp' || n.kind === 'setcomp' || n.kind === 'objectcomp') && n.loc.offset === loc.offset && n.loc.row === loc.row && n.loc.file === loc.file) {
      found = n as Comprehension;
      return false;
    }
    return undefined;
  });
  return found;
}

/**
 * The comprehension term at `loc`: in the statement's source expression, else in
 * the rules of the policy (a comprehension in a rule head is evaluated outside
 * any statement).
 */
export function findComprehension(src: AstExpr | undefined, loc: Location, ir: PolicyIR): Comprehension | undefined {
  const inSrc = src && findIn(src, loc);
  if (inSrc) return inSrc;
  for (const g of ir.groups) {
    for (const first of g.defs) {
      for (let d: RuleDef | undefined = first; d; d = d.else) {
        if (d.src?.loc.file !== loc.file) continue;
        const c = findIn(d.src, loc);
        if (c) return c;
      }
    }
  }
  return undefined;
}

/** The frame slots a comprehension binds itself (its body and nested comprehensions): not outer bindings. */
export function boundInside(e: Expr & { k: 'compr' }): Set<number> {
  const out = new Set<number>();
  const add = (b: Block): void => b.forEach((s) => bindsOf(s).forEach((x) => out.add(x)));
  add(e.body);
  visitBlock(e.body, (x) => {
    if (x.k === 'compr') add(x.body);
  });
  return out;
}

/** True when the term reads `data` anywhere (refs, function calls, nested bodies). */
function readsData(t: Term): boolean {
  let yes = false;
  walk(t, (n) => {
    if ('kind' in n && n.kind === 'ref' && n.head.kind === 'var' && n.head.name === 'data') yes = true;
    if ('kind' in n && n.kind === 'var' && n.name === 'data') yes = true;
    return yes ? false : undefined;
  });
  return yes;
}

/** The value of a ground `data` path when it is known (no unknown under it), as a term. */
export type KnownData = (path: string[]) => Term | undefined;

/**
 * Refs into `data` replaced by the value of their longest constant prefix
 * (`data.t.nums[i]` → `[3, 1, 2][i]`), when `known` has it. Calls of functions
 * under `data` are left alone (and then refused).
 */
function plugData(t: Term, known: KnownData): Term {
  return mapTerm(t, (x) => {
    if (x.kind === 'call') return { ...x, args: x.args.map((a) => plugData(a, known)) };
    if (x.kind !== 'ref' || x.head.kind !== 'var' || x.head.name !== 'data') return undefined;
    let n = 0;
    while (n < x.path.length && x.path[n]!.kind === 'string') n++;
    const value = known(x.path.slice(0, n).map((p) => (p as { value: string }).value));
    if (value === undefined) return undefined;
    const rest = x.path.slice(n).map((p) => plugData(p, known));
    return rest.length === 0 ? value : { ...x, head: value, path: rest };
  });
}

/** Rename every variable of a term (nested bodies, `some` declarations and `every` vars included). */
function renameTerm(t: Term, name: (n: VarTerm) => string): Term {
  return mapTerm(t, (x) => {
    if (x.kind === 'var') return { ...x, name: name(x) };
    if (x.kind === 'call') return { ...x, args: x.args.map((a) => renameTerm(a, name)) }; // operators are builtin names
    if (x.kind === 'arraycomp' || x.kind === 'setcomp') return { ...x, head: renameTerm(x.head, name), body: renameBody(x.body, name) };
    if (x.kind === 'objectcomp') return { ...x, key: renameTerm(x.key, name), value: renameTerm(x.value, name), body: renameBody(x.body, name) };
    return undefined;
  });
}

function renameBody(body: Body, name: (n: VarTerm) => string): Body {
  return body.map((e): AstExpr => {
    const r = (t: Term) => renameTerm(t, name);
    const v = (x: VarTerm): VarTerm => ({ ...x, name: name(x) });
    const w = e.with.map((x) => ({ ...x, target: x.target.kind === 'var' ? x.target : (r(x.target) as typeof x.target), value: r(x.value) }));
    const out: AstExpr = { ...e, with: w, ...(e.notBody ? { notBody: renameBody(e.notBody, name) } : {}) };
    const b = e.body;
    switch (b.type) {
      case 'term':
        return { ...out, body: { type: 'term', term: r(b.term) } };
      case 'some':
        return { ...out, body: { type: 'some', vars: b.vars.map(v) } };
      case 'somein':
        return { ...out, body: { type: 'somein', ...(b.key ? { key: r(b.key) } : {}), value: r(b.value), collection: r(b.collection) } };
      case 'every':
        return { ...out, body: { type: 'every', ...(b.key ? { key: v(b.key) } : {}), value: v(b.value), domain: r(b.domain), body: renameBody(b.body, name) } };
    }
  });
}

export interface OuterBinding {
  /** The variable's source name in the enclosing body. */
  name: string;
  /** Its value there, as a term (a known value or a residual term). */
  term: Term;
}

/**
 * The comprehension `c` for the residual: variables renamed by `fresh`, and
 * `v' = T` appended to its body for each outer binding it mentions.
 */
export function saveComprehension(comprehension: Comprehension, outer: OuterBinding[], fresh: (name: string) => string, known: KnownData): Term {
  const c = readsData(comprehension) ? (plugData(comprehension, known) as Comprehension) : comprehension;
  if (readsData(c)) throw new PartialUnsupported('array and object comprehensions over unknowns with several residual alternatives whose body refers to data');
  const names = new Map<string, string>();
  const name = (x: VarTerm): string => {
    if (x.name === 'input') return x.name;
    let n = names.get(x.name);
    if (n === undefined) names.set(x.name, (n = fresh(x.wildcard ? '$' : x.name)));
    return n;
  };
  const copy = renameTerm(c, name) as Comprehension;
  const extra = outer.filter((o) => names.has(o.name)).map((o) => eqExpr(mkVar(names.get(o.name)!), o.term));
  if (extra.length === 0) return copy;
  return { ...copy, body: [...copy.body, ...extra] };
}
