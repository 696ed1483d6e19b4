// Partial evaluation: what is known and what is not.
//
// A World holds the known input and data, the unknown refs (`input`, `input.x`,
// `data.reports`), and the EvalContext the reference interpreter uses for
// everything that does not depend on unknowns. `with` derives a new World.
// `Deps` answers, statically over the IR, whether an expression, statement or
// rule group may read an unknown (or call a non-deterministic builtin that must
// stay in the residual); what does not is handed to the interpreter whole, so
// known rules keep exactly the semantics of the other back ends.
import type { Block, Expr, Pattern, PolicyIR, Stmt } from '../ir/ir.js';
import type { Value } from '../../runtime/value/value.js';
import type { EvalContext } from '../../runtime/eval/context.js';
import { RUNTIME } from '../../runtime/scope.js';

export type Root = 'input' | 'data';
export type Path = Value[];

/** `a` is a prefix of (or equal to) `b`. */
export function isPrefix(a: readonly Value[], b: readonly Value[]): boolean {
  if (a.length > b.length) return false;
  for (let i = 0; i < a.length; i++) if (!RUNTIME.equal(a[i]!, b[i]!)) return false;
  return true;
}

export class World {
  constructor(
    readonly unknowns: Record<Root, Path[]>,
    readonly ctx: EvalContext,
    /** Shared by worlds with the same unknowns (dependency answers depend only on them). */
    readonly deps: Deps,
    /** True for the world the query started in (support rules are generated only there). */
    readonly base: boolean,
    /** Paths inside an unknown document made known by `with` (`with input.role as "admin"`). */
    readonly overlays: Record<Root, Path[]> = { input: [], data: [] },
  ) {}

  /** Whether the document at `root.path` is known: 'sym' when it must stay residual. */
  resolve(root: Root, path: Path): Value | undefined | 'sym' | 'opaque' {
    const os = this.overlays[root];
    if (os.length > 0) {
      if (os.some((o) => isPrefix(o, path))) return this.doc(root, path);
      if (os.some((o) => isPrefix(path, o)) && this.unknowns[root].some((u) => isPrefix(u, path))) return 'opaque';
    }
    for (const u of this.unknowns[root]) if (isPrefix(u, path) || isPrefix(path, u)) return 'sym';
    return this.doc(root, path);
  }

  private doc(root: Root, path: Path): Value | undefined {
    const doc = root === 'input' ? this.ctx.input : this.ctx.data;
    return doc === undefined ? undefined : RUNTIME.dig(doc, path as (string | number)[]);
  }

  /** A world under a `with` replacement of input or data at `path` (the value is in `ctx`). */
  withDoc(root: Root, path: string[], ctx: EvalContext): World {
    const us = this.unknowns[root];
    const kept = us.filter((u) => !isPrefix(path, u));
    const unknowns = { ...this.unknowns, [root]: kept };
    const deps = kept.length === us.length ? this.deps : new Deps(this.deps.ir, unknowns, this.deps.ndb);
    const overlays = { ...this.overlays, [root]: this.overlays[root].filter((o) => !isPrefix(path, o)) };
    if (kept.some((u) => isPrefix(u, path))) overlays[root] = [...overlays[root], path];
    return new World(unknowns, ctx, deps, false, overlays);
  }
}

/** Static dependency of IR nodes on unknowns, memoized per node. */
export class Deps {
  private readonly exprs = new WeakMap<object, boolean>();
  private readonly groups = new Map<number, boolean>();
  private readonly nodes = new Map<number, boolean>();
  private readonly inputUnknown: boolean;

  constructor(
    readonly ir: PolicyIR,
    readonly unknowns: Record<Root, Path[]>,
    /** Non-deterministic builtins may be evaluated. */
    readonly ndb: boolean,
  ) {
    this.inputUnknown = unknowns.input.length > 0;
  }

  private dataPath(path: readonly Value[]): boolean {
    return this.unknowns.data.some((u) => isPrefix(u, path) || isPrefix(path, u));
  }

  group(id: number): boolean {
    const m = this.groups.get(id);
    if (m !== undefined) return m;
    this.groups.set(id, false); // a cycle adds nothing
    const g = this.ir.groups[id]!;
    let d = this.dataPath(g.path);
    for (const first of g.defs) {
      for (let def: typeof first | undefined = first; def && !d; def = def.else) {
        d = def.params.some((p) => this.pattern(p)) || this.block(def.body) || def.keys.some((k) => this.expr(k)) || this.expr(def.value);
      }
    }
    this.groups.set(id, d);
    return d;
  }

  node(id: number): boolean {
    const m = this.nodes.get(id);
    if (m !== undefined) return m;
    const n = this.ir.nodes[id]!;
    const d = this.dataPath(n.path) || n.groups.some((g) => this.group(g)) || [...n.children.values()].some((c) => this.node(c));
    this.nodes.set(id, d);
    return d;
  }

  block(b: Block): boolean {
    return b.some((s) => this.stmt(s));
  }

  stmt(s: Stmt): boolean {
    const m = this.exprs.get(s);
    if (m !== undefined) return m;
    const d = this.stmtUncached(s);
    this.exprs.set(s, d);
    return d;
  }

  private stmtUncached(s: Stmt): boolean {
    switch (s.k) {
      case 'let':
      case 'test':
      case 'capture':
        return this.expr(s.expr);
      case 'equal':
        return this.expr(s.a) || this.expr(s.b);
      case 'match':
        return this.pattern(s.pattern) || this.expr(s.expr);
      case 'scan':
        return this.expr(s.source) || this.pattern(s.key) || this.pattern(s.value);
      case 'relation':
        return this.builtin(s.name) || s.args.some((a) => this.expr(a)) || this.pattern(s.out);
      case 'not':
        return this.block(s.body);
      case 'every':
        return this.expr(s.domain) || this.pattern(s.key) || this.pattern(s.value) || this.block(s.body);
      case 'with':
        return s.mods.some((m) => ('k' in m.value && m.value.k !== 'fnref' ? this.expr(m.value as Expr) : false)) || this.block(s.body);
      case 'print':
        return false;
    }
  }

  pattern(p: Pattern): boolean {
    switch (p.k) {
      case 'value':
        return this.expr(p.expr);
      case 'array':
        return p.items.some((x) => this.pattern(x));
      case 'object':
        return p.entries.some(([k, v]) => this.expr(k) || this.pattern(v));
      default:
        return false;
    }
  }

  private builtin(name: string): boolean {
    return !this.ndb && RUNTIME.getBuiltin(name)?.decl.nondeterministic === true;
  }

  expr(e: Expr): boolean {
    switch (e.k) {
      case 'const':
      case 'local':
        return false;
      case 'input':
        return this.inputUnknown;
      case 'base':
        return this.dataPath(e.path);
      case 'rule':
        return this.group(e.group);
      case 'vdoc':
        return this.node(e.node);
      case 'vdocdot':
        return this.node(e.node) || this.expr(e.key);
      default:
        break;
    }
    const m = this.exprs.get(e);
    if (m !== undefined) return m;
    let d: boolean;
    switch (e.k) {
      case 'dot':
        d = this.expr(e.base) || this.expr(e.key);
        break;
      case 'call':
        d = this.builtin(e.name) || e.args.some((a) => this.expr(a));
        break;
      case 'callfn':
        d = this.group(e.group) || e.args.some((a) => this.expr(a));
        break;
      case 'array':
      case 'set':
        d = e.items.some((a) => this.expr(a));
        break;
      case 'object':
        d = e.entries.some(([k, v]) => this.expr(k) || this.expr(v));
        break;
      case 'compr':
        d = this.block(e.body) || this.expr(e.head) || (e.key !== undefined && this.expr(e.key));
        break;
      case 'template':
        d = e.parts.some((p) => typeof p !== 'string' && this.expr(p));
        break;
    }
    this.exprs.set(e, d);
    return d;
  }
}

/** The frame slots an IR node reads (including nested bodies), memoized per node. */
const LOCALS = new WeakMap<object, number[]>();

export function localsOf(n: Expr | Stmt): number[] {
  const m = LOCALS.get(n);
  if (m) return m;
  const out = new Set<number>();
  const expr = (e: Expr): void => {
    switch (e.k) {
      case 'local': out.add(e.slot); break;
      case 'vdocdot': expr(e.key); break;
      case 'dot': expr(e.base); expr(e.key); break;
      case 'call': case 'callfn': e.args.forEach(expr); break;
      case 'array': case 'set': e.items.forEach(expr); break;
      case 'object': e.entries.forEach(([k, v]) => { expr(k); expr(v); }); break;
      case 'compr': block(e.body); expr(e.head); if (e.key) expr(e.key); break;
      case 'template': e.parts.forEach((p) => typeof p !== 'string' && expr(p)); break;
      default: break;
    }
  };
  const pattern = (p: Pattern): void => {
    if (p.k === 'value') expr(p.expr);
    else if (p.k === 'array') p.items.forEach(pattern);
    else if (p.k === 'object') p.entries.forEach(([k, v]) => { expr(k); pattern(v); });
  };
  const stmt = (s: Stmt): void => {
    switch (s.k) {
      case 'let': case 'test': case 'capture': expr(s.expr); break;
      case 'equal': expr(s.a); expr(s.b); break;
      case 'match': pattern(s.pattern); expr(s.expr); break;
      case 'scan': expr(s.source); pattern(s.key); pattern(s.value); break;
      case 'relation': s.args.forEach(expr); pattern(s.out); break;
      case 'not': block(s.body); break;
      case 'every': expr(s.domain); pattern(s.key); pattern(s.value); block(s.body); break;
      case 'with': s.mods.forEach((m) => { if (!('k' in m.value) || m.value.k !== 'fnref') expr(m.value as Expr); }); block(s.body); break;
      case 'print': s.args.forEach(expr); break;
    }
  };
  const block = (b: Block): void => b.forEach(stmt);
  if (isStmt(n)) stmt(n);
  else expr(n);
  const r = [...out];
  LOCALS.set(n, r);
  return r;
}

const STMT_KINDS = new Set(['let', 'test', 'capture', 'equal', 'match', 'scan', 'relation', 'not', 'every', 'with', 'print']);
function isStmt(n: Expr | Stmt): n is Stmt {
  return STMT_KINDS.has(n.k);
}

/** Slots a statement may bind (its patterns and nested bodies). */
export function bindsOf(s: Stmt, out: number[] = []): number[] {
  const pattern = (p: Pattern): void => {
    if (p.k === 'bind') out.push(p.slot);
    else if (p.k === 'array') p.items.forEach(pattern);
    else if (p.k === 'object') p.entries.forEach(([, v]) => pattern(v));
  };
  switch (s.k) {
    case 'let': case 'capture': out.push(s.slot); break;
    case 'match': pattern(s.pattern); break;
    case 'scan': pattern(s.key); pattern(s.value); break;
    case 'relation': pattern(s.out); break;
    case 'not': case 'with': s.body.forEach((x) => bindsOf(x, out)); break;
    case 'every': pattern(s.key); pattern(s.value); s.body.forEach((x) => bindsOf(x, out)); break;
    default: break;
  }
  return out;
}
