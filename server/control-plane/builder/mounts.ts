// Requirement mounts (`path` selects a subtree of a source, `prefix` re-mounts it).
// For Rego, modules whose package is outside `path` are dropped; the rest have
// their package and every `data.<path>…` reference (imports, heads, bodies,
// comprehensions, `with` targets) rewritten to `data.<prefix>…`, then are
// re-rendered with OPA's formatter as the reference does (refactor.Move +
// format.Ast): compiler/ast/fmt-module.ts, in the module's Rego version, with the
// original text for comments and one-line rules (`allow := true`, `p if x` stay
// one line; a file already formatted by `opa fmt` keeps its bytes but for the
// rewritten refs).
// For data files, the directory `path` is selected and moved under `prefix`;
// data outside `path` is discarded. Mounts of a chain apply in order.
import { formatModuleSource, mapBody, mapTerm, parseTerm, type Module, type Rule, type Term } from '../../../compiler/index.js';
import { BuildError } from './errors.js';
import { parseForBundle } from './rego-version.js';
import { bytesText, hasDir, isRegoFile, mountTree, subTree, textBytes, type FileTree } from './files.js';

/** A mount with both refs as path segments below `data` ([] = the whole tree). */
export interface Mount {
  path: string[];
  prefix: string[];
}

/** `a.b` → `data.a.b`; strings starting with `data` are taken verbatim (as OCP does). */
export function toRefString(s: string | undefined): string {
  if (!s) return 'data';
  return s.startsWith('data') ? s : `data.${s}`;
}

/** Parse a requirement `path`/`prefix` into segments below `data`. Throws BuildError. */
export function parseMountRef(s: string | undefined): string[] {
  const text = toRefString(s);
  if (text === 'data') return [];
  let t: Term;
  try {
    t = parseTerm(text);
  } catch (e) {
    throw new BuildError(`invalid ref ${JSON.stringify(s)}: ${(e as Error).message}`);
  }
  if (t.kind === 'var' && t.name === 'data') return [];
  if (t.kind !== 'ref' || t.head.kind !== 'var' || t.head.name !== 'data') {
    throw new BuildError(`ref ${text} needs to start with "data"`);
  }
  return t.path.map((p) => {
    if (p.kind !== 'string') throw new BuildError(`ref ${text} must contain only string keys`);
    return p.value;
  });
}

export function toMount(path: string | undefined, prefix: string | undefined): Mount {
  return { path: parseMountRef(path), prefix: parseMountRef(prefix) };
}

export function hasPrefix(ref: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= ref.length && prefix.every((s, i) => ref[i] === s);
}

/** Render segments as a Rego ref below data (`a.b["c-d"]`; [] → `data`). */
export function refText(segs: readonly string[]): string {
  if (segs.length === 0) return 'data';
  return segs.map((s, i) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? (i === 0 ? s : `.${s}`) : `[${JSON.stringify(s)}]`)).join('');
}

/** Package path segments of a module (without `data`). */
export function packageSegments(m: Module): string[] {
  return m.package.path.slice(1).map((t) => (t.kind === 'string' ? t.value : t.kind === 'var' ? t.name : ''));
}

/** Apply a mount chain to the Rego files of a tree; returns re-rendered modules. */
export function mountRego(tree: FileTree, mounts: Mount[], v0: boolean, label = ''): FileTree {
  let modules = new Map<string, Module>();
  const texts = new Map<string, string>();
  for (const [p, b] of tree) {
    if (!isRegoFile(p)) continue;
    texts.set(p, bytesText(b));
    modules.set(p, parseForBundle(texts.get(p)!, label + p, v0));
  }
  for (const m of mounts) {
    const next = new Map<string, Module>();
    for (const [p, mod] of modules) {
      if (hasPrefix(packageSegments(mod), m.path)) next.set(p, moveModule(mod, m.path, m.prefix));
    }
    modules = next;
  }
  const out: FileTree = new Map();
  for (const [p, mod] of modules) out.set(p, textBytes(formatAsOPA(mod, texts.get(p)!, v0)));
  return out;
}

/** Apply a mount chain to the data (non-Rego) files of a tree. */
export function mountData(tree: FileTree, mounts: Mount[]): FileTree {
  let data: FileTree = new Map([...tree].filter(([p]) => !isRegoFile(p)));
  for (const m of mounts) {
    const sub = m.path.join('/');
    if (!hasDir(data, sub)) return new Map();
    data = mountTree(subTree(data, sub), m.prefix.join('/'));
  }
  return data;
}

/**
 * The root an empty source claims through its mount chain: a `path` selecting a
 * subtree of nothing collapses the chain; a chain that ends at `data` claims none.
 */
export function mountRoot(mounts: Mount[]): string[] | undefined {
  let cur: string[] = [];
  for (const m of mounts) {
    if (!hasPrefix(cur, m.path)) return undefined;
    cur = [...m.prefix, ...cur.slice(m.path.length)];
  }
  return cur.length === 0 ? undefined : cur;
}

function str(value: string, like: Term): Term {
  return { kind: 'string', value, loc: like.loc };
}

/** Move a module from `from` to `to`: its package and every matching data reference. */
export function moveModule(mod: Module, from: string[], to: string[]): Module {
  const rewrite = (t: Term): Term | undefined => {
    if (t.kind === 'var' && t.name === 'data' && from.length === 0 && to.length > 0) {
      return { kind: 'ref', head: t, path: to.map((s) => str(s, t)), loc: t.loc };
    }
    if (t.kind !== 'ref' || t.head.kind !== 'var' || t.head.name !== 'data') return undefined;
    const n = from.length;
    if (t.path.length < n || !from.every((s, i) => t.path[i]!.kind === 'string' && (t.path[i] as { value: string }).value === s)) {
      return undefined;
    }
    const rest = t.path.slice(n).map((x) => mapTerm(x, rewrite));
    const path = [...to.map((s) => str(s, t)), ...rest];
    return path.length === 0 ? t.head : { ...t, path };
  };
  const pkg = packageSegments(mod);
  const newPkg = [...to, ...pkg.slice(from.length)];
  const head = mod.package.path[0]!;
  return {
    ...mod,
    package: { ...mod.package, path: [head, ...newPkg.map((s) => str(s, head))] },
    imports: mod.imports.map((imp) => {
      const p = mapTerm(imp.path, rewrite);
      return { ...imp, path: p.kind === 'ref' || p.kind === 'var' ? p : imp.path };
    }),
    rules: mod.rules.map((r) => moveRule(r, rewrite)),
  };
}

function moveRule(r: Rule, fn: (t: Term) => Term | undefined): Rule {
  const h = r.head;
  return {
    ...r,
    head: {
      ...h,
      args: h.args?.map((a) => mapTerm(a, fn)),
      key: h.key && mapTerm(h.key, fn),
      value: h.value && mapTerm(h.value, fn),
    },
    body: mapBody(r.body, fn),
    else: r.else && moveRule(r.else, fn),
  };
}

/**
 * A module as OPA's formatter prints it for a bundle: a v0 module that imports
 * rego.v1 in v1 style (`allow if true` becomes `allow := true`), other v0
 * modules in v0 style, v1 modules in v1; always ending with a newline.
 */
export function formatAsOPA(mod: Module, text: string, v0: boolean): string {
  const mode = !v0 ? 'v1' : importsRegoV1(mod) ? 'v0-v1' : 'v0';
  const out = formatModuleSource(mod, text, { mode });
  return out.endsWith('\n') ? out : out + '\n';
}

function importsRegoV1(mod: Module): boolean {
  return mod.imports.some((i) => i.path.kind === 'ref' && i.path.head.kind === 'var' && i.path.head.name === 'rego' &&
    i.path.path.length === 1 && i.path.path[0]!.kind === 'string' && i.path.path[0]!.value === 'v1');
}
