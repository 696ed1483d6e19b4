// `regent inspect [-a] [--format pretty|json] [--v0-compatible] <bundle dir | .tar.gz |
// file.rego>`: summarise a bundle as `opa inspect` does (OPA's internal/bundle/inspect
// Info): the manifest as written, `.signatures.json` (signatures_config), Wasm
// modules (each policy.wasm with the manifest entrypoints it serves), namespaces (package → the files contributing to it: modules in load
// order, then data.json/data.yaml files by their directory, then Wasm entrypoints
// from the manifest), with -a the flattened annotation set (annotations of packages
// and rules, sorted by path then position), and the capabilities the policies need
// (builtins they call, future keywords imported, `rego_v1` for v1 modules). Names are
// as OPA's loader reports them: a directory bundle's files joined to the directory
// given, an archive's by their path inside it. JSON is OPA's Info; pretty output
// (inspect-pretty.ts) is the MANIFEST/NAMESPACES tables and the ANNOTATIONS list.
// Errors print `error: …` on stderr, exit 1.
import { readFileSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import type { Annotation, Module, Term } from '../compiler/ast/nodes.js';
import { walkTerms } from '../compiler/ast/walk.js';
import { formatTerm } from '../compiler/ast/print.js';
import { parseModule } from '../compiler/parser/index.js';
import { annotationValue, rulePath } from '../compiler/passes/annotation-set.js';
import { capabilities } from '../runtime/builtins/catalog.js';
import { directoryFiles } from '../runtime/bundles/read-dir.js';
import { parseManifest, regoVersionForFile } from '../runtime/bundles/manifest.js';
import type { BundleManifest } from '../runtime/bundles/types.js';
import { parseSignatures } from '../runtime/bundles/verify.js';
import { UsageError, bool, formatHelp, parseArgs, str, type FlagSpec } from './args.js';
import { usageFailed } from './usage.js';
import { toJSON, toOutputErrors, errorsText, type IO } from './output.js';
import { packageRef } from './test-runner.js';
import { inspectPretty } from './inspect-pretty.js';

export const INSPECT_FLAGS: FlagSpec[] = [
  { name: 'format', short: 'f', type: 'string', choices: ['pretty', 'json'], default: 'pretty', description: 'set output format' },
  { name: 'annotations', short: 'a', type: 'boolean', description: 'list annotations' },
  { name: 'v0-compatible', type: 'boolean', description: 'opt-in to OPA features and behaviors prior to the OPA v1.0 release' },
  { name: 'v1-compatible', type: 'boolean', description: 'opt-in to OPA features and behaviors that are enabled by default in OPA v1.0' },
  { name: 'help', short: 'h', type: 'boolean', description: 'help for inspect' },
];

const USAGE = 'regent inspect <path> [<path> [...]] [flags]';
const DESCRIPTION = `Inspect OPA bundle(s).

The 'inspect' command provides a summary of the contents in an OPA bundle or a single
Rego file: the packages contributed by .rego files, the data locations defined by
data.json and data.yaml files, manifest data, signature data, the Wasm module files,
and (with -a) package and rule annotations. Give exactly one bundle (.tar.gz), bundle
directory, or Rego file.`;

/** One flattened annotation (OPA's AnnotationsRef). */
export interface AnnotationsRef {
  /** Target path with `data` first: ['data', 'test', 'p']. */
  path: string[];
  /** The package or rule the block annotates. */
  location: { file: string; row: number; col: number };
  annotation: Annotation;
  /** `Rule:` line of the pretty output (the rule's head ref), when a rule is annotated. */
  rule?: string;
  /** The package path with `data` first. */
  pkg: string[];
}

export interface InspectInfo {
  manifest: BundleManifest & { revision: string; roots: string[] };
  /** Whether the bundle has a .manifest (pretty output prints the table only then). */
  hasManifestFile: boolean;
  signatures: Record<string, unknown>;
  /** `policy.wasm` files: url (as loaded), bundle path, and the manifest entrypoints served by each. */
  wasmModules: { entrypoints: string[] | null; path: string; url: string }[];
  namespaces: Map<string, string[]>;
  annotations: AnnotationsRef[];
  capabilities: { builtins?: unknown[]; future_keywords?: string[]; features?: string[] };
}

interface RawFile {
  /** Name as reported (directory-joined, or the archive path). */
  name: string;
  /** Path inside the bundle, `/`-rooted. */
  path: string;
  bytes: Uint8Array;
}

function clean(p: string): string {
  const n = normalize(p).replace(/\\/g, '/');
  return n.length > 1 ? n.replace(/\/+$/, '') : n;
}

async function bundleFiles(path: string): Promise<RawFile[]> {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new Error(`stat ${path}: no such file or directory`);
  }
  if (st.isDirectory()) return directoryFiles(path).map((f) => ({ name: clean(join(path, f.path)), path: f.path, bytes: f.bytes }));
  if (path.endsWith('.rego')) return [{ name: clean(path), path: '/' + clean(path).replace(/^\/+/, ''), bytes: readFileSync(path) }];
  const { extractTarGz } = await import('../runtime/bundles/read.js');
  return (await extractTarGz(readFileSync(path))).map((f) => {
    const p = clean('/' + f.path.replace(/^(\.?\/)+/, ''));
    return { name: p, path: p, bytes: f.bytes };
  });
}

const base = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/** Sort key comparison of two paths as OPA's Ref.Compare orders string segments. */
function comparePaths(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

function flattenAnnotations(modules: Module[]): AnnotationsRef[] {
  const refs: AnnotationsRef[] = [];
  for (const m of modules) {
    const pkg = rulePathPackage(m);
    for (const a of m.annotations) refs.push({ path: ['data', ...pkg], location: m.package.loc, annotation: a, pkg: ['data', ...pkg] });
    for (const r of m.rules) {
      const rule = formatTerm({ kind: 'ref', head: r.head.ref[0]!, path: r.head.ref.slice(1), loc: r.loc });
      for (const a of r.annotations ?? []) refs.push({ path: ['data', ...rulePath(pkg, r)], location: r.loc, annotation: a, rule, pkg: ['data', ...pkg] });
    }
  }
  const at = (x: AnnotationsRef) => x.annotation.loc;
  return refs
    .map((r, i) => ({ r, i }))
    .sort((x, y) => comparePaths(x.r.path, y.r.path) || (at(x.r).file < at(y.r).file ? -1 : at(x.r).file > at(y.r).file ? 1 : 0) || at(x.r).row - at(y.r).row || at(x.r).col - at(y.r).col || x.i - y.i)
    .map(({ r }) => ({ ...r, location: { file: r.location.file, row: r.location.row, col: r.location.col } }));
}

function rulePathPackage(m: Module): string[] {
  const ref = packageRef(m);
  return ref.path.map((t) => (t.kind === 'string' ? t.value : formatTerm(t)));
}

/** Builtins called, future keywords imported and features used (OPA's compiler.Required). */
function requiredCapabilities(modules: Module[]): InspectInfo['capabilities'] {
  const called = new Set<string>();
  const keywords = new Set<string>();
  for (const m of modules) {
    for (const imp of m.imports) {
      const t = imp.path;
      if (t.kind === 'ref' && t.head.kind === 'var' && t.head.name === 'future' && t.path[0]?.kind === 'string' && t.path[0].value === 'keywords') {
        const kw = t.path[1];
        if (kw?.kind === 'string') keywords.add(kw.value);
        else for (const k of ['contains', 'every', 'if', 'in']) keywords.add(k);
      }
    }
    for (const r of m.rules) {
      walkTerms(r, (t: Term) => {
        if (t.kind === 'call') called.add(formatTerm(t.op));
      });
    }
  }
  const builtins = capabilities().builtins.filter((b) => called.has(b.name) || (b.infix !== undefined && called.has(b.infix)));
  const out: InspectInfo['capabilities'] = {};
  if (builtins.length > 0) out.builtins = builtins;
  if (keywords.size > 0) out.future_keywords = [...keywords].sort();
  if (modules.some((m) => m.regoVersion === 1)) out.features = ['rego_v1'];
  return out;
}

/** Read and summarise one bundle, directory or Rego file (OPA's inspect.File). */
export async function inspectPath(path: string, opts: { annotations?: boolean; v0Compatible?: boolean } = {}): Promise<InspectInfo> {
  const files = await bundleFiles(path);
  const manifestFile = files.find((f) => f.path === '/.manifest');
  const manifest = manifestFile ? parseManifest(Buffer.from(manifestFile.bytes).toString('utf8')) : {};
  const def: 0 | 1 = manifest.rego_version !== undefined ? (manifest.rego_version === 0 ? 0 : 1) : opts.v0Compatible ? 0 : 1;
  const modules: Module[] = [];
  const namespaces = new Map<string, string[]>();
  const add = (ns: string, file: string) => namespaces.set(ns, [...(namespaces.get(ns) ?? []), file]);
  for (const f of files.filter((x) => x.path.endsWith('.rego'))) {
    const text = Buffer.from(f.bytes).toString('utf8');
    const m = parseModule(text, f.name, { v0Compatible: regoVersionForFile(manifest, f.path, def) === 0 });
    modules.push(m);
    add(formatTerm(packageRef(m)), f.name);
  }
  let signatures: Record<string, unknown> = {};
  for (const f of files) {
    if (f.path.endsWith('.signatures.json')) {
      signatures = { ...parseSignatures(Buffer.from(f.bytes).toString('utf8')) };
    }
  }
  for (const f of files.filter((x) => base(x.path) === 'data.json' || base(x.path) === 'data.yaml')) {
    const key = f.path.replace(/^\/+/, '').split('/').slice(0, -1);
    add(key.length > 0 ? `data.${key.join('.')}` : 'data', f.name);
  }
  for (const w of (manifest.wasm ?? []) as { entrypoint?: string; module?: string }[]) {
    add(`data.${(w.entrypoint ?? '').replace(/^\/+/, '').split('/').join('.')}`, w.module ?? '');
  }
  const resolvers = (manifest.wasm ?? []) as { entrypoint?: string; module?: string }[];
  const wasmModules = files
    .filter((f) => f.path.endsWith('/policy.wasm'))
    .map((f) => {
      const eps = resolvers.filter((w) => w.module === f.path).map((w) => `data.${(w.entrypoint ?? '').replace(/^\/+/, '').split('/').join('.')}`);
      return { entrypoints: eps.length > 0 ? eps : null, path: f.path, url: f.name };
    });
  return {
    manifest: { ...manifest, revision: manifest.revision ?? '', roots: manifest.roots ?? [''] },
    hasManifestFile: manifestFile !== undefined,
    signatures,
    wasmModules,
    namespaces,
    annotations: opts.annotations ? flattenAnnotations(modules) : [],
    capabilities: requiredCapabilities(modules),
  };
}

/** A schema/ref path (`input.x`) as OPA's JSON ref terms. */
function refTerms(parts: unknown): unknown {
  if (!Array.isArray(parts)) return parts;
  return parts.map((p, i) => ({ type: i === 0 ? 'var' : 'string', value: p }));
}

/** One annotation as OPA's JSON writes it (keys sorted, schema paths as ref terms). */
export function annotationJSON(a: Annotation): Record<string, unknown> {
  const v = annotationValue(a) as Record<string, unknown>;
  if (Array.isArray(v.schemas)) {
    v.schemas = (v.schemas as Record<string, unknown>[]).map((s) => ({
      ...(s.path !== undefined ? { path: refTerms(s.path) } : {}),
      ...(s.schema !== undefined ? { schema: refTerms(s.schema) } : {}),
      ...(s.definition !== undefined ? { definition: s.definition } : {}),
    }));
  }
  if (Array.isArray(v.related_resources)) {
    v.related_resources = (v.related_resources as { ref: string; description?: string }[]).map((r) => ({ ...(r.description ? { description: r.description } : {}), ref: r.ref }));
  }
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]));
}

/** The Info JSON document, in OPA's field order. */
export function inspectJSON(info: InspectInfo): Record<string, unknown> {
  const m = info.manifest;
  const manifest: Record<string, unknown> = { revision: m.revision, roots: m.roots };
  if (m.wasm?.length) manifest.wasm = m.wasm;
  if (m.rego_version !== undefined) manifest.rego_version = m.rego_version;
  if (m.file_rego_versions && Object.keys(m.file_rego_versions).length > 0) manifest.file_rego_versions = m.file_rego_versions;
  if (m.metadata && Object.keys(m.metadata).length > 0) manifest.metadata = m.metadata;
  const out: Record<string, unknown> = { manifest, signatures_config: info.signatures };
  if (info.wasmModules.length > 0) out.wasm_modules = info.wasmModules;
  if (info.namespaces.size > 0) out.namespaces = Object.fromEntries([...info.namespaces.keys()].sort().map((k) => [k, info.namespaces.get(k)]));
  if (info.annotations.length > 0) {
    out.annotations = info.annotations.map((r) => ({
      annotations: annotationJSON(r.annotation),
      location: r.location,
      path: r.path.map((p, i) => ({ type: i === 0 ? 'var' : 'string', value: p })),
    }));
  }
  if (Object.keys(info.capabilities).length > 0) out.capabilities = info.capabilities;
  return out;
}

/** The `inspect` command. */
export async function inspectCommand(argv: string[], io: IO): Promise<number> {
  let args;
  try {
    args = parseArgs(argv, INSPECT_FLAGS);
    if (bool(args, 'help')) {
      io.out(formatHelp(USAGE, DESCRIPTION, INSPECT_FLAGS) + '\n');
      return 0;
    }
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailed(io, e.message, formatHelp(USAGE, DESCRIPTION, INSPECT_FLAGS));
  }
  if (args.positionals.length !== 1) {
    io.err('Error: specify exactly one OPA bundle or path\n');
    return 1;
  }
  const annotations = bool(args, 'annotations');
  try {
    const info = await inspectPath(args.positionals[0]!, { annotations, v0Compatible: bool(args, 'v0-compatible') });
    io.out(str(args, 'format') === 'json' ? toJSON(inspectJSON(info)) + '\n' : inspectPretty(info, annotations));
    return 0;
  } catch (e) {
    const errs = toOutputErrors(e);
    io.err(`error: ${errs.length === 1 && !errs[0]!.code ? errs[0]!.message : errorsText(errs)}\n`);
    return 1;
  }
}
