// Bundle optimization as `opa build -O=1|2` (OPA's compile/compile.go optimizer),
// shared by `regent build -O` and the control plane's `options.optimization.level`.
//
// For each entrypoint, in order, the bundle's current modules are compiled and
// the query `__result__ = data.<entrypoint>` is partially evaluated (Regent's
// compiler/partial) with `input` and every data ref outside the bundle roots
// unknown, and the bundle's data known. Level 1 is OPA's shallow inlining: every
// rule the entrypoint reaches is written as a support rule (at its own path, as
// OPA's SkipPartialNamespace does) rather than inlined; level 2 inlines them.
// Then, as OPA:
//   - when the residual queries do not refer to the entrypoint itself, they become
//     the entrypoint's rules `name = __result__ { query }` in its package;
//   - every support module is written to `/optimized/<package path>.rego`
//     (`.1.rego`, `.2.rego`… when a package comes again; `/optimized/partial/<i>/<j>.rego`
//     when the package path is not a plain file name);
//   - rules of the other modules whose path overlaps a written rule are pruned,
//     a module left without rules is dropped, and the modules kept are re-printed
//     from their syntax tree (comments and METADATA are not carried over);
//   - the modules are sorted by path and `partial` is added to the roots unless a
//     root covers it (the namespace of negation support rules, `data.partial.__not…`).
//     `namespace` (`opa build --partial-namespace`) puts those rules, the references
//     to them, their files (`/optimized/<ns>.rego`, `/optimized/<ns>/<i>/<j>.rego`)
//     and the root added in another namespace.
// Modules are printed with the OPA-compatible formatter; in a rego_version 0
// bundle the generated modules are v1 text with `import rego.v1`.
import {
  compile,
  formatModuleSource,
  mapBody,
  mapTerm,
  parseModule,
  partialEval,
  type Body,
  type Module,
  type Rule,
  type Term,
} from '../../../compiler/index.js';
import type { Value } from '../../../runtime/index.js';
import { ensureNewline, printGenerated } from './optimize-print.js';

export interface OptimizeModule {
  /** Bundle path, `/a/b.rego`. */
  path: string;
  text: string;
}

export interface OptimizeOptions {
  modules: OptimizeModule[];
  data: Value;
  roots: string[];
  regoVersion: 0 | 1;
  /** Slash-separated entrypoint paths (`pkg/allow`), in the order they are optimized. */
  entrypoints: string[];
  level: number;
  /** The namespace of generated support rules (default `partial`); a plain name. */
  namespace?: string;
}

/** An optimization failure (no entrypoint, an undefined entrypoint, a compile error of the output). */
export class OptimizeError extends Error {
  override name = 'OptimizeError';
}

const NAMESPACE = 'partial';
const OUTPUT_DIR = 'optimized';
const RESULT_VAR = '__result__';
const SAFE_PATH = /^[\w\-/]+$/;

/** The optimized modules (sorted by path) and the roots with `partial` added. */
export function optimizeBundle(o: OptimizeOptions): { modules: OptimizeModule[]; roots: string[] } {
  if (o.entrypoints.length === 0) throw new OptimizeError('bundle optimizations require at least one entrypoint');
  const v0 = o.regoVersion === 0;
  const ns = o.namespace ?? NAMESPACE;
  const moved = ns === NAMESPACE ? undefined : intoNamespace(ns);
  let modules = o.modules.slice();
  const used = new Map<string, number>();
  let unknowns: string[] | undefined;
  o.entrypoints.forEach((ep, i) => {
    const policy = compileModules(modules, v0);
    const parsed = modules.map((m) => ({ file: m, mod: parseModule(m.text, m.path, { v0Compatible: v0 }) }));
    unknowns ??= findUnknowns(parsed.map((p) => p.mod), o.roots);
    const path = ep.split('/').filter((s) => s !== '');
    const query = `${RESULT_VAR} = ${dataRef(path)}`;
    const result = partialEval(policy, query, {
      unknowns,
      data: o.data,
      disableInlining: o.level <= 1 ? ['data'] : withTargets(parsed.map((p) => p.mod)),
    });
    if (result.queries.length === 0) throw new OptimizeError(`undefined entrypoint ${dataRef(path)}`);
    const support = result.support.map((m) => (moved ? moveNegationSupport(skipNamespace(m), ns, moved) : skipNamespace(m)));
    const queries = result.queries.map((q) => (moved ? mapBody(mapBody(q, unprefix), moved) : mapBody(q, unprefix)));
    const entry = entryModule(queries, path);
    if (entry) support.push(entry);
    const order = sourceOrder(parsed.map((p) => p.mod));
    const written = support.map((m, j) => {
      const sorted = { ...m, rules: stableSortBy(m.rules, (r) => order.get(ruleDocPath(m, r).join('\u0000')) ?? Infinity) };
      return { path: supportFileName(used, m, i, j, ns), text: printGenerated(sorted, v0, v0 && m === entry), mod: sorted };
    });
    modules = merge(parsed, written, v0);
  });
  modules.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  compileModules(modules, v0); // the output must compile, as OPA's next step would
  // OPA's Manifest.AddRoot: only when no root already contains it (`""` contains everything)
  const covered = o.roots.some((r) => r === '' || r === ns || ns.startsWith(r + '/'));
  const roots = covered ? o.roots.slice() : [...o.roots, ns];
  return { modules, roots };
}

function compileModules(modules: OptimizeModule[], v0: boolean): ReturnType<typeof compile> {
  return compile(modules.map((m) => ({ file: m.path, text: m.text })), { v0Compatible: v0 });
}

/**
 * The entrypoints in OPA's order: those given (`-e`), then the METADATA ones
 * sorted by path (as OPA's flattened annotation set), without duplicates.
 */
export function optimizationEntrypoints(given: string[], annotated: string[]): string[] {
  const key = (p: string): string[] => p.split('/');
  const sorted = annotated.slice().sort((x, y) => {
    const a = key(x);
    const b = key(y);
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return a.length - b.length;
  });
  return [...new Set([...given, ...sorted])];
}

/** `data.a.b` with each segment written as OPA prints a ref (`data.a["x-y"]`). */
export function dataRef(path: string[]): string {
  return 'data' + path.map((s) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`)).join('');
}

// ---------------------------------------------------------------- refs

type Seg = string | number | boolean | null;

function isData(t: Term): t is Term & { kind: 'ref' } {
  return t.kind === 'ref' && t.head.kind === 'var' && t.head.name === 'data';
}

/** The constant segments of a ref after its head (OPA's ConstantPrefix). */
function constantPrefix(path: Term[]): Seg[] {
  const out: Seg[] = [];
  for (const p of path) {
    if (p.kind === 'string' || p.kind === 'boolean') out.push(p.value);
    else if (p.kind === 'null') out.push(null);
    else if (p.kind === 'number') out.push(Number(p.value));
    else break;
  }
  return out;
}

function hasPrefix(a: Seg[], prefix: Seg[]): boolean {
  return prefix.length <= a.length && prefix.every((s, i) => s === a[i]);
}

/** Every node of a syntax tree (plain objects and arrays) that `pick` selects. */
function walk(node: unknown, pick: (x: Record<string, unknown>) => boolean): void {
  if (Array.isArray(node)) {
    for (const x of node) walk(x, pick);
  } else if (typeof node === 'object' && node !== null) {
    if (pick(node as Record<string, unknown>)) return;
    for (const [k, v] of Object.entries(node)) if (k !== 'loc' && k !== 'annotations') walk(v, pick);
  }
}

/** OPA's findUnknowns: `input`, and every data ref whose constant prefix is under no root. */
function findUnknowns(mods: Module[], roots: string[]): string[] {
  const rootPaths: Seg[][] = roots.map((r) => r.split('/').filter((s) => s !== ''));
  const set: Seg[][] = [];
  const add = (p: Seg[]): void => {
    if (set.some((s) => hasPrefix(p, s))) return;
    for (let i = set.length - 1; i >= 0; i--) if (hasPrefix(set[i]!, p)) set.splice(i, 1);
    set.push(p);
  };
  for (const m of mods) {
    walk([m.imports, m.rules], (x) => {
      const t = x as unknown as Term;
      if (t.kind !== 'ref' || !isData(t)) return false;
      const prefix = constantPrefix(t.path);
      if (!rootPaths.some((r) => hasPrefix(prefix, r))) add(prefix);
      return true;
    });
  }
  return ['input', ...set.map((p) => dataRef(p.map(String))).sort()];
}

/** Data targets of `with` (OPA's findRequiredDocuments): never inlined. */
function withTargets(mods: Module[]): string[] {
  const out = new Set<string>();
  walk(mods.map((m) => m.rules), (x) => {
    if (x.kind !== 'with') return false;
    const t = x.target as Term;
    if (isData(t)) out.add(dataRef(constantPrefix(t.path).map(String)));
    return false;
  });
  return [...out].sort();
}

/**
 * The output rewrite: `data.partial.a.b` → `data.a.b` (support rules live at their
 * own paths, OPA's SkipPartialNamespace); `data.partial.__not…` stays. Generated
 * vars that are not Rego names (`$not03`, from wildcards) get a name Rego parses.
 */
function unprefix(t: Term): Term | undefined {
  if (t.kind === 'var' && t.name.startsWith('$')) return { ...t, name: `__${t.name.slice(1)}__` };
  if (!isData(t) || t.path.length < 2) return undefined;
  const [first, second] = t.path;
  if (first!.kind !== 'string' || first!.value !== NAMESPACE) return undefined;
  if (second!.kind === 'string' && second!.value.startsWith('__')) return undefined;
  return { ...t, path: t.path.slice(1).map((p) => mapTerm(p, unprefix)) };
}

function mapRule(r: Rule, f: (t: Term) => Term | undefined = unprefix): Rule {
  const term = (t: Term | undefined): Term | undefined => (t === undefined ? undefined : mapTerm(t, f));
  return {
    ...r,
    head: { ...r.head, ref: r.head.ref.map((t) => mapTerm(t, f)), args: r.head.args?.map((t) => mapTerm(t, f)), key: term(r.head.key), value: term(r.head.value) },
    body: mapBody(r.body, f),
    ...(r.else ? { else: mapRule(r.else, f) } : {}),
  };
}

/** The rewrite of `data.partial.__…` (negation support rules) into `data.<ns>.__…`. */
function intoNamespace(ns: string): (t: Term) => Term | undefined {
  const f = (t: Term): Term | undefined => {
    if (!isData(t) || t.path.length < 2) return undefined;
    const [first, second] = t.path;
    if (first!.kind !== 'string' || first!.value !== NAMESPACE || second!.kind !== 'string' || !second!.value.startsWith('__')) return undefined;
    return { ...t, path: [{ ...first!, value: ns }, ...t.path.slice(1).map((p) => mapTerm(p, f))] };
  };
  return f;
}

/**
 * A support module after skipNamespace, its references moved by `moved`; the module of
 * negation support rules (package `partial` itself: other support modules keep their
 * own package under it, so theirs is longer) moves to package `ns`.
 */
function moveNegationSupport(m: Module, ns: string, moved: (t: Term) => Term | undefined): Module {
  const path = m.package.path;
  const own = path.length === 2 && path[1]!.kind === 'string' && path[1]!.value === NAMESPACE;
  const pkg = own ? [path[0]!, { ...path[1]!, value: ns } as Term] : path;
  return { ...m, package: { ...m.package, path: pkg }, rules: m.rules.map((r) => mapRule(r, moved)) };
}

function skipNamespace(m: Module): Module {
  const path = m.package.path;
  const second = path[2];
  const keep = second !== undefined && second.kind === 'string' && second.value.startsWith('__');
  const pkg = path.length > 2 && !keep ? [path[0]!, ...path.slice(2)] : path;
  return { ...m, package: { ...m.package, path: pkg }, rules: m.rules.map((r) => mapRule(r)) };
}

// ---------------------------------------------------------------- modules

function pkgSegs(m: Module): string[] {
  return m.package.path.slice(1).map((t) => (t.kind === 'string' ? t.value : ''));
}

/** OPA's getSupportForEntrypoint: `name = __result__ { q }` per query, unless a query refers to the entrypoint. */
function entryModule(queries: Body[], path: string[]): Module | undefined {
  const self = (b: Body): boolean => {
    let found = false;
    walk(b, (x) => {
      const t = x as unknown as Term;
      if (t.kind === 'ref' && isData(t) && hasPrefix(constantPrefix(t.path), path)) found = true;
      return found;
    });
    return found;
  };
  if (queries.some(self) || path.length === 0) return undefined;
  const loc = { file: '', row: 1, col: 1, offset: 0 };
  const str = (value: string): Term => ({ kind: 'string', value, loc });
  const rules: Rule[] = queries.map((body) => ({
    kind: 'rule',
    default: false,
    head: { ref: [{ kind: 'var', name: path[path.length - 1]!, loc }], value: { kind: 'var', name: RESULT_VAR, loc }, assign: false, contains: false, loc },
    body,
    loc,
  }));
  return {
    kind: 'module',
    file: '',
    package: { kind: 'package', path: [{ kind: 'var', name: 'data', loc }, ...path.slice(0, -1).map(str)], loc },
    imports: [],
    rules,
    annotations: [],
    comments: [],
    regoVersion: 1,
  };
}

/** OPA's getSupportModuleFilename. */
function supportFileName(used: Map<string, number>, m: Module, i: number, j: number, ns: string): string {
  const segs = pkgSegs(m);
  const ptr = segs.join('/');
  if (segs.length > 0 && segs.every((s) => s !== '') && SAFE_PATH.test(ptr)) {
    const name = `/${OUTPUT_DIR}/${ptr}`;
    const n = used.get(name);
    used.set(name, (n ?? 0) + 1);
    return `${name}${n === undefined ? '' : `.${n}`}.rego`;
  }
  return `/${OUTPUT_DIR}/${ns}/${i}/${j}.rego`;
}

/** Where each rule document is first defined, in module order (support rules are written in that order). */
function sourceOrder(mods: Module[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of mods) for (const r of m.rules) {
    const k = ruleDocPath(m, r).join('\u0000');
    if (!out.has(k)) out.set(k, out.size);
  }
  return out;
}

function stableSortBy<T>(xs: T[], key: (x: T) => number): T[] {
  return xs.map((x, i) => ({ x, i, k: key(x) })).sort((a, b) => a.k - b.k || a.i - b.i).map((e) => e.x);
}

function importsRegoV1(mod: Module): boolean {
  return mod.imports.some((i) => i.path.kind === 'ref' && i.path.head.kind === 'var' && i.path.head.name === 'rego' &&
    i.path.path.length === 1 && i.path.path[0]!.kind === 'string' && i.path.path[0]!.value === 'v1');
}

/** The path of a rule's document: package + the constant part of its head. */
function ruleDocPath(m: Module, r: Rule): Seg[] {
  const [name, ...rest] = r.head.ref;
  const first: Seg[] = name && name.kind === 'var' ? [name.name] : name ? constantPrefix([name]) : [];
  return [...pkgSegs(m), ...first, ...(first.length > 0 ? constantPrefix(rest) : [])];
}

/** OPA's optimizer merge: written modules first, then the others without the rules they override. */
function merge(existing: { file: OptimizeModule; mod: Module }[], written: { path: string; text: string; mod: Module }[], v0: boolean): OptimizeModule[] {
  const prefixes: Seg[][] = [];
  for (const w of written) for (const r of w.mod.rules) prefixes.push(ruleDocPath(w.mod, r));
  const out: OptimizeModule[] = written.map((w) => ({ path: w.path, text: w.text }));
  for (const { file, mod } of existing) {
    const keep = mod.rules.filter((r) => {
      const p = ruleDocPath(mod, r);
      return !prefixes.some((x) => hasPrefix(x, p) || hasPrefix(p, x));
    });
    if (keep.length === 0) continue;
    if (keep.length === mod.rules.length && file.path.startsWith(`/${OUTPUT_DIR}/`)) {
      out.push(file); // a module written by an earlier entrypoint, untouched
      continue;
    }
    const pruned: Module = { ...mod, rules: keep, comments: [], annotations: [] };
    for (const r of pruned.rules) delete r.annotations;
    const mode = !v0 ? 'v1' : importsRegoV1(mod) ? 'v0-v1' : 'v0';
    out.push({ path: file.path, text: ensureNewline(formatModuleSource(pruned, file.text, { mode })) });
  }
  return out;
}
