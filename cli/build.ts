// `regent build [-b] [-o bundle.tar.gz] [-r REV] [--signing-key KEY
// [--signing-alg ALG] [--claims-file F]] [--v0-compatible] PATH...`: package
// policies and data into an OPA bundle, as `opa build` does. Without -b, paths
// are loaded like `-d` (every .rego file, JSON/YAML data merged at its
// directory); with -b each path is a bundle directory or tarball (several are
// merged, roots concatenated). Every module is compiled first; failures print
// `file:row:col: code: message` lines and exit 1. The manifest always records
// roots and the Rego version, the archive is deterministic, and with a signing
// key `.signatures.json` is added. `-O 1|2` with entrypoints (`-e pkg/rule` or
// METADATA `entrypoint: true`) optimizes the bundle as `opa build -O` does
// (server/control-plane/builder/optimize.ts: /optimized modules, pruned rules, the
// `partial` root); `-t wasm` adds /policy.wasm and the manifest's wasm entries.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { annotatedEntrypoints, compile } from '../compiler/index.js';
import { OptimizeError, optimizationEntrypoints, optimizeBundle } from '../server/control-plane/builder/optimize.js';
import {
  BundleError,
  checkManifestRoots,
  readBundle,
  readBundleDir,
  signBundle,
  validateManifest,
  writeBundle,
  type Bundle,
  type BundleModule,
} from '../runtime/bundles/index.js';
import { RObject } from '../runtime/value/index.js';
import { UsageError, bool, formatHelp, list, parseArgs, str, type FlagSpec } from './args.js';
import { LoadError, loadPaths, mergeAt } from './loader.js';
import { toOutputErrors, type IO, type OutputError } from './output.js';

export const BUILD_FLAGS: FlagSpec[] = [
  { name: 'bundle', short: 'b', type: 'boolean', description: 'load paths as bundle files or root directories' },
  { name: 'output', short: 'o', type: 'string', default: 'bundle.tar.gz', metavar: 'FILE', description: 'set the output filename' },
  { name: 'revision', short: 'r', type: 'string', metavar: 'REV', description: 'set output bundle revision' },
  { name: 'signing-key', type: 'string', metavar: 'KEY', description: 'set the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)' },
  { name: 'signing-alg', type: 'string', default: 'RS256', metavar: 'ALG', description: 'name of the signing algorithm' },
  { name: 'claims-file', type: 'string', metavar: 'FILE', description: 'set path of JSON file containing optional claims (see: https://openpolicyagent.org/docs/management-bundles/#signature-format)' },
  { name: 'v0-compatible', type: 'boolean', description: 'opt-in to OPA features and behaviors prior to the OPA v1.0 release' },
  { name: 'target', short: 't', type: 'string', default: 'rego', metavar: 'TARGET', description: 'set the output bundle target type (rego or wasm)' },
  { name: 'entrypoint', short: 'e', type: 'string', repeatable: true, metavar: 'PATH', description: 'set slash separated entrypoint path' },
  { name: 'optimize', short: 'O', type: 'string', default: '0', metavar: 'LEVEL', description: 'set optimization level (0: none, 1: partial evaluation keeping rules as support rules, 2: partial evaluation inlining them)' },
  { name: 'wasm-opt', type: 'string', default: '1', metavar: 'LEVEL', description: 'set binaryen optimization level for -t wasm (0-3)' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for build' },
];

const USAGE = 'regent build <path> [<path> [...]]';
const DESCRIPTION = 'Build an OPA bundle.\n\nThe build command packages OPA policy and data files into bundles. Bundles are\ngzipped tarballs containing policies and data. Paths referring to directories are\nloaded recursively.';

/** A path as a bundle path: `/`-separated, leading `/`, no `.`/`..` segments. */
function bundlePath(file: string): string {
  return '/' + file.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.' && s !== '..').join('/');
}

/** Load plain paths (`opa build x.rego dir/`) into one bundle. */
function loadFiles(paths: string[]): { bundle: Bundle; fileNames: Map<string, string> } {
  const loaded = loadPaths(paths);
  const fileNames = new Map<string, string>();
  const modules: BundleModule[] = loaded.modules.map((m) => {
    const path = bundlePath(m.file);
    fileNames.set(path, m.file);
    return { path, text: m.text };
  });
  return { bundle: { manifest: {}, modules, data: loaded.data }, fileNames };
}

/** Read `-b` paths (directories or tarballs) and merge them as OPA's bundle.Merge. */
async function loadBundles(paths: string[], v0: boolean): Promise<{ bundle: Bundle; fileNames: Map<string, string> }> {
  const fileNames = new Map<string, string>();
  const bundles: Bundle[] = [];
  for (const p of paths) {
    if (!existsSync(p)) throw new LoadError(`stat ${p}: no such file or directory`);
    const opts = { skipVerify: true, defaultRegoVersion: (v0 ? 0 : 1) as 0 | 1 };
    const b = statSync(p).isDirectory() ? await readBundleDir(p, opts) : await readBundle(readFileSync(p), opts);
    for (const m of b.modules) fileNames.set(m.path, statSync(p).isDirectory() ? join(p, m.path) : `${p}${m.path}`);
    bundles.push(b);
  }
  if (bundles.length === 1) return { bundle: bundles[0]!, fileNames };
  const roots: string[] = [];
  const data = new RObject();
  const modules: BundleModule[] = [];
  const seen = new Set<string>();
  for (const b of bundles) {
    const broots = b.manifest.roots ?? [''];
    roots.push(...broots);
    for (const m of b.modules) {
      if (seen.has(m.path)) throw new BundleError('path', `bundle merge failed: module ${m.path} exists in more than one bundle`);
      seen.add(m.path);
      modules.push(m);
    }
    for (const root of broots) {
      const key = root === '' ? [] : root.split('/');
      let node: unknown = b.data;
      for (const k of key) node = node instanceof RObject ? node.get(k) : undefined;
      if (node !== undefined) mergeAt(data, key, node as RObject, `bundle root ${root}`);
    }
  }
  checkManifestRoots(roots);
  return { bundle: { manifest: { roots }, modules, data }, fileNames };
}

/** Compile every module; returns the errors with file names as the user knows them. */
function compileModules(modules: BundleModule[], fileNames: Map<string, string>, v0: boolean): OutputError[] {
  if (modules.length === 0) return [];
  try {
    compile(
      modules.map((m) => ({ file: fileNames.get(m.path) ?? m.path, text: m.text, v0Compatible: m.regoVersion === undefined ? v0 : m.regoVersion === 0 })),
      { v0Compatible: v0 },
    );
    return [];
  } catch (e) {
    return toOutputErrors(e);
  }
}

function errorLines(errs: OutputError[]): string {
  const line = (e: OutputError): string => {
    const l = e.location;
    return `${l ? `${l.file}:${l.row}:${l.col}: ` : ''}${e.code ? e.code + ': ' : ''}${e.message}`;
  };
  return (errs.length === 1 ? '1 error occurred:\n' : `${errs.length} errors occurred:\n`) + errs.map(line).join('\n');
}

/** Build the bundle in memory (exported for tests and other commands). */
export async function buildBundle(paths: string[], opts: { bundleMode?: boolean; revision?: string; v0Compatible?: boolean } = {}): Promise<{ bundle?: Bundle; errors: OutputError[] }> {
  const v0 = opts.v0Compatible === true;
  const { bundle, fileNames } = opts.bundleMode ? await loadBundles(paths, v0) : loadFiles(paths);
  const m = bundle.manifest;
  if (opts.revision !== undefined) m.revision = opts.revision;
  if (m.roots === undefined) m.roots = [''];
  if (m.rego_version === undefined) m.rego_version = v0 ? 0 : 1;
  for (const mod of bundle.modules) {
    if (mod.regoVersion === undefined) mod.regoVersion = m.rego_version === 0 ? 0 : 1;
    if (mod.regoVersion !== m.rego_version) (m.file_rego_versions ??= {})[mod.path] = mod.regoVersion;
  }
  const errors = compileModules(bundle.modules, fileNames, v0);
  if (errors.length > 0) return { errors };
  if (!opts.bundleMode) {
    // Packages and data must sit under the roots (only relevant when roots were given).
    validateManifest(m, bundle.modules, [], [], bundle.data);
  }
  return { bundle, errors: [] };
}

/**
 * `-O 1|2`: partially evaluate the entrypoints (given, then METADATA ones) into
 * /optimized modules, as opa build's optimizer; the revision is reset unless -r.
 * Returns the entrypoints it used.
 */
function optimize(bundle: Bundle, given: string[], level: number, revision: string | undefined): string[] {
  const v0 = bundle.manifest.rego_version === 0;
  const policy = compile(bundle.modules.map((m) => ({ file: m.path, text: m.text, v0Compatible: m.regoVersion === undefined ? v0 : m.regoVersion === 0 })), { v0Compatible: v0 });
  const entrypoints = optimizationEntrypoints(given, annotatedEntrypoints(policy));
  const out = optimizeBundle({ modules: bundle.modules, data: bundle.data, roots: bundle.manifest.roots ?? [''], regoVersion: v0 ? 0 : 1, entrypoints, level });
  bundle.modules = out.modules.map((m) => ({ ...m, regoVersion: v0 ? 0 : 1 }));
  bundle.manifest.roots = out.roots;
  bundle.manifest.revision = revision ?? '';
  delete bundle.manifest.file_rego_versions;
  return entrypoints;
}

/** The `build` command. */
export async function buildCommand(argv: string[], io: IO): Promise<number> {
  let args;
  try {
    args = parseArgs(argv, BUILD_FLAGS);
    if (bool(args, 'help')) {
      io.out(formatHelp(USAGE, DESCRIPTION, BUILD_FLAGS) + '\n');
      return 0;
    }
    if (args.positionals.length === 0) throw new UsageError('expected at least one path');
    if (str(args, 'claims-file') !== undefined && str(args, 'signing-key') === undefined) throw new UsageError('specify the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`error: ${e.message}\n\n${formatHelp(USAGE, DESCRIPTION, BUILD_FLAGS)}\n`);
    return 2;
  }
  try {
    const revision = str(args, 'revision');
    const { bundle, errors } = await buildBundle(args.positionals, {
      bundleMode: bool(args, 'bundle'),
      v0Compatible: bool(args, 'v0-compatible'),
      ...(revision !== undefined ? { revision } : {}),
    });
    if (!bundle) {
      io.err(`error: ${errorLines(errors)}\n`);
      return 1;
    }
    const target = str(args, 'target') ?? 'rego';
    if (target !== 'rego' && target !== 'wasm') throw new UsageError(`invalid target ${JSON.stringify(target)}: use rego or wasm`);
    const level = Number(str(args, 'optimize') ?? '0');
    if (!Number.isInteger(level) || level < 0) throw new UsageError(`invalid optimization level ${JSON.stringify(str(args, 'optimize'))}: use 0, 1 or 2`);
    const cliEntrypoints = list(args, 'entrypoint').map((e) => e.replace(/^data[./]/, '').replace(/\./g, '/'));
    // with -O the entrypoints are fixed before optimizing (it drops the METADATA they come from)
    const entrypoints = level > 0 ? optimize(bundle, cliEntrypoints, level, revision) : cliEntrypoints;
    if (target === 'wasm') {
      // policy.wasm (OPA Wasm ABI) for the entrypoints, with the manifest's wasm entries
      const { addWasmModule } = await import('../compiler/codegen/wasm/bundle.js');
      const report = await addWasmModule(bundle, entrypoints, Number(str(args, 'wasm-opt') ?? '1'));
      io.err(report + '\n');
    }
    let out = bundle;
    const key = str(args, 'signing-key');
    if (key !== undefined) {
      const claimsFile = str(args, 'claims-file');
      const claims = claimsFile !== undefined ? (JSON.parse(readFileSync(claimsFile, 'utf8')) as Record<string, unknown>) : undefined;
      out = await signBundle(bundle, { key, algorithm: str(args, 'signing-alg') ?? 'RS256', ...(claims ? { claims } : {}) });
    }
    writeFileSync(str(args, 'output') ?? 'bundle.tar.gz', await writeBundle(out));
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}\n`);
      return 1;
    }
    const msg = e instanceof LoadError || e instanceof BundleError || e instanceof SyntaxError || e instanceof OptimizeError ? e.message : errorLines(toOutputErrors(e));
    io.err(`error: ${msg}\n`);
    return 1;
  }
}
