// The builtin-argument part of OPA's type checker (v1/ast/check.go checkExprBuiltin,
// unify1, unifies), over the IR: it walks a body in its planned (safety) order, as
// OPA checks its reordered body, gives each local the type of what bound it, and
// reports a builtin call whose argument cannot have the declared type:
//
//   plus: invalid argument(s)
//   	have: (string, any, ???)
//   	want: (x: number, y: number, z: number)
//
// As in OPA, `want` names the parameters (runtime/builtins/arg-names.ts) and ends
// with the result type, and `have` ends with `???` (the untyped output variable)
// when the call is nested in another expression (OPA's RewriteExprTerms gives it
// an output variable). Types come from constants, builtin
// results, composite literals, comprehensions, selections of typed values and
// complete rules whose values are constants; everything else (input, base data,
// other rules, function results) is `any`, so where this checker knows less than
// OPA's it reports nothing rather than something OPA would not.
import type { Block, Expr, Pattern, PolicyIR, RuleDef, Stmt } from '../ir/ir.js';
import { RegoError } from '../source/diagnostics.js';
import { refName } from '../ast/transform.js';
import { getBuiltin } from '../../runtime/builtins/catalog.js';
import type { TypeSpec } from '../../runtime/builtins/types.js';
import { ArgErrDetail, orType, typeOfValue, typeString } from './type-text.js';
import { keysOf, selectType, unifies, valuesOf } from './type-unify.js';
import { missingKey, undefinedRefError } from './type-refs.js';
import { originOf } from '../plan/origins.js';
import type { Expr as AstExpr, RefTerm } from '../ast/nodes.js';
import { UnificationErrDetail } from '../source/ref-detail.js';

const ANY: TypeSpec = { type: 'any' };

export class TypeChecker {
  readonly errors: RegoError[] = [];
  private slots = new Map<number, TypeSpec>();
  private readonly ruleTypes = new Map<number, TypeSpec>();

  constructor(private readonly ir?: PolicyIR) {}

  checkDef(d: RuleDef): void {
    this.slots = new Map();
    this.block(d.body);
    for (const k of d.keys) this.expr(k, true);
    this.expr(d.value, true);
    if (d.else) this.checkDef(d.else);
  }

  checkQuery(b: Block): void {
    this.slots = new Map();
    this.block(b);
  }

  private block(b: Block): void {
    for (const s of b) this.stmt(s);
  }

  private stmt(s: Stmt): void {
    switch (s.k) {
      case 'let':
        this.slots.set(s.slot, this.expr(s.expr, nestedIn(s, s.expr)));
        return;
      case 'test':
        this.expr(s.expr, nestedIn(s, s.expr));
        return;
      case 'capture':
        this.expr(s.expr, true);
        return;
      case 'equal': {
        const a = this.expr(s.a, true);
        const b = this.expr(s.b, true);
        // OPA's checkExprEq: `x := 1; x = "a"` is a `match error`.
        if (s.src && isUnification(s.src) && !unifies(a, b)) {
          this.errors.push(new RegoError('rego_type_error', 'match error', s.src.loc, new UnificationErrDetail(a, b, typeString(a), typeString(b))));
        }
        return;
      }
      case 'match':
        this.bind(s.pattern, this.expr(s.expr, nestedIn(s, s.expr)));
        return;
      case 'scan': {
        const t = this.expr(s.source, true);
        this.bind(s.key, keysOf(t));
        this.bind(s.value, valuesOf(t));
        return;
      }
      case 'relation':
        for (const a of s.args) this.expr(a, true);
        this.bind(s.out, ANY);
        return;
      case 'not':
        this.block(s.body);
        return;
      case 'every': {
        const t = this.expr(s.domain, true);
        this.bind(s.key, keysOf(t));
        this.bind(s.value, valuesOf(t));
        this.block(s.body);
        return;
      }
      case 'with':
        for (const m of s.mods) if (!('k' in m.value && m.value.k === 'fnref')) this.expr(m.value as Expr, true);
        this.block(s.body);
        return;
      case 'print':
        for (const a of s.args) this.expr(a, true);
        return;
    }
  }

  /** Bind a pattern's slots to the parts of a value of type `t`. */
  private bind(p: Pattern, t: TypeSpec): void {
    switch (p.k) {
      case 'bind':
        this.slots.set(p.slot, t);
        return;
      case 'value':
        this.expr(p.expr, true);
        return;
      case 'array':
        p.items.forEach((x, i) => this.bind(x, selectType(t, { k: 'const', value: i }) ?? ANY));
        return;
      case 'object':
        for (const [k, v] of p.entries) {
          this.expr(k, true);
          this.bind(v, selectType(t, k) ?? ANY);
        }
        return;
    }
  }

  /** The type of `e`, checking the builtin calls in it; `nested`: `e` is an operand of another expression. */
  private expr(e: Expr, nested: boolean): TypeSpec {
    switch (e.k) {
      case 'const':
        return typeOfValue(e.value);
      case 'local':
        return this.slots.get(e.slot) ?? ANY;
      case 'rule':
        return this.ruleType(e.group);
      case 'vdocdot':
        this.expr(e.key, true);
        return ANY;
      case 'dot': {
        const origin = originOf(e);
        if (origin?.kind === 'ref') return this.refChain(e, origin);
        const base = this.expr(e.base, true);
        this.expr(e.key, true);
        return selectType(base, e.key) ?? ANY;
      }
      case 'call':
        return this.call(e, e.args.map((a) => this.expr(a, true)), nested);
      case 'callfn':
        for (const a of e.args) this.expr(a, true);
        return ANY;
      case 'array':
        return { type: 'array', static: e.items.map((x) => this.expr(x, true)) };
      case 'set': {
        let of: TypeSpec | undefined;
        for (const x of e.items) of = orType(of, this.expr(x, true));
        return { type: 'set', of: of ?? ANY };
      }
      case 'object': {
        const entries = e.entries.map(([k, v]) => [k, this.expr(k, true), this.expr(v, true)] as const);
        if (!entries.every(([k]) => k.k === 'const' && typeof k.value === 'string')) return ANY;
        const props = entries.map(([k, , v]) => ({ key: (k as { value: string }).value, value: v }));
        props.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        return { type: 'object', static: props };
      }
      case 'compr': {
        this.block(e.body);
        const head = this.expr(e.head, true);
        if (e.kind === 'array') return { type: 'array', dynamic: head };
        if (e.kind === 'set') return { type: 'set', of: head };
        return { type: 'object', dynamic: { key: this.expr(e.key!, true), value: head } };
      }
      case 'template':
        for (const p of e.parts) if (typeof p !== 'string') this.expr(p, true);
        return { type: 'string' };
      default:
        return ANY;
    }
  }

  private call(e: Expr & { k: 'call' }, args: TypeSpec[], nested: boolean): TypeSpec {
    const decl = getBuiltin(e.name)?.decl;
    if (!decl) return ANY;
    const bad = args.some((t, i) => {
      const want = decl.args[i] ?? decl.variadic;
      return want !== undefined && !unifies(t, want);
    });
    if (!bad) return decl.result ?? ANY;
    const have = [...args, ...(nested && decl.result ? [undefined] : [])];
    this.errors.push(new RegoError('rego_type_error', `${e.name}: invalid argument(s)`, e.loc, new ArgErrDetail(have, decl, true)));
    // OPA leaves the output of a failed call untyped: nothing downstream reports again.
    return ANY;
  }

  /**
   * A source ref planned as a chain of lookups (`x.a.b`, `data.p.q.c`): each step's
   * type, and OPA's `undefined ref` (checkRefLeaf) when a constant key is not among
   * the static keys of an object type without dynamic keys (refErrors.ts).
   */
  private refChain(e: Expr & { k: 'dot' }, ref: RefTerm): TypeSpec {
    const keys: Expr[] = [];
    let b: Expr = e;
    while (b.k === 'dot' && (b === e || originOf(b) === undefined)) {
      keys.unshift(b.key);
      b = b.base;
    }
    let t = this.expr(b, true);
    for (const [i, k] of keys.entries()) {
      this.expr(k, true);
      const miss = missingKey(t, k);
      if (miss) {
        const err = undefinedRefError(ref, ref.path.length - keys.length + i + 1, miss);
        if (err) this.errors.push(err);
        return ANY;
      }
      t = selectType(t, k) ?? ANY;
    }
    return t;
  }

  /** A complete rule whose every value is a constant has their union; other rules are `any`. */
  private ruleType(id: number): TypeSpec {
    const known = this.ruleTypes.get(id);
    if (known) return known;
    const g = this.ir?.groups[id];
    let t: TypeSpec | undefined = g?.kind === 'complete' && g.default !== undefined ? typeOfValue(g.default) : undefined;
    const defs: RuleDef[] = [];
    for (const d of g?.kind === 'complete' ? g.defs : []) for (let x: RuleDef | undefined = d; x; x = x.else) defs.push(x);
    const constant = g?.kind === 'complete' && defs.every((d) => d.value.k === 'const');
    if (constant) for (const d of defs) t = orType(t, typeOfValue((d.value as Expr & { k: 'const' }).value));
    const out = constant && t ? t : ANY;
    this.ruleTypes.set(id, out);
    return out;
  }
}

/**
 * True unless `e` is the call a statement's source expression makes at its top, with
 * no output argument (`upper(x)` as a body expression): OPA gives every other call an
 * output variable, and its `have:` line ends with that variable's type.
 */
function nestedIn(s: Stmt, e: Expr): boolean {
  if (e.k !== 'call' || s.src === undefined || s.src.body.type !== 'term') return true;
  const t = s.src.body.term;
  return !(t.kind === 'call' && t.args.length === e.args.length && refName(t.op) === e.name);
}

/** A body expression `a = b` or `a := b` (OPA type checks both as Equality). */
function isUnification(e: AstExpr): boolean {
  if (e.body.type !== 'term' || e.body.term.kind !== 'call') return false;
  const name = refName(e.body.term.op);
  return name === 'eq' || name === 'assign';
}
