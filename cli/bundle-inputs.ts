// The inputs of `regent build` and `regent check -b`, loaded as OPA's loader does.
//   - `-b` paths (loadBundles): bundle directories or tarballs, read by
//     runtime/bundles with the bundle rules (manifest, roots, per-file rego
//     versions, `.signatures.json`: skipped by check, verified by build — a signed
//     input without a verification key fails as in opa build), then merged as
//     bundle.Merge does (roots concatenated and checked, a module path in two
//     bundles is an error, each bundle's data taken under its roots). Read errors
//     name the bundle (`bundle <path>: …`); modules keep the names the user knows
//     (`<dir>/<path>`, `<archive>/<path>`). `--follow-symlinks` applies here.
//   - plain paths (loadPlainPaths, build without -b): every .rego file, and
//     .json/.yaml data merged at its directory's path (cli/loader.ts loadPaths);
//     `.tar.gz` files are skipped, as opa build's loader filter does.
//   - `--ignore` globs in both: cli/loader.ts ignoredPath, the test of every command.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  BundleError,
  checkManifestRoots,
  extractTarGz,
  loadBundleFiles,
  readBundleDir,
  regoVersionForFile,
  type Bundle,
  type BundleModule,
  type VerificationConfig,
} from '../runtime/bundles/index.js';
import { RObject } from '../runtime/value/index.js';
import { LoadError, bundlePath, ignoredPath, loadPaths, mergeAt, splitPrefix } from './loader.js';

/** A `-b` input that could not be read (`bundle <path>: <reason>`). */
export class BundleReadError extends LoadError {
  override name = 'BundleReadError';
}

export interface BundleInputOptions {
  v0?: boolean;
  ignore?: string[];
  followSymlinks?: boolean;
  verification?: VerificationConfig;
  skipVerify?: boolean;
}

export interface BundleInput {
  bundle: Bundle;
  /** Bundle path (`/x/p.rego`) → the name errors use (`dir/x/p.rego`). */
  fileNames: Map<string, string>;
  /** Bundle paths of the modules whose Rego version their manifest sets (rego_version / file_rego_versions). */
  versioned: Set<string>;
}

async function readOne(path: string, opts: BundleInputOptions): Promise<Bundle> {
  const ignored = ignoredPath(opts.ignore ?? []);
  const read = {
    skipVerify: opts.skipVerify ?? opts.verification === undefined,
    defaultRegoVersion: (opts.v0 ? 0 : 1) as 0 | 1,
    ...(opts.verification ? { verification: opts.verification } : {}),
  };
  if (statSync(path).isDirectory()) {
    return readBundleDir(path, { ...read, followSymlinks: opts.followSymlinks === true, filter: (rel) => ignored(rel) });
  }
  const files = (await extractTarGz(readFileSync(path), read)).filter((f) => !ignored(f.path));
  return loadBundleFiles(files, read);
}

/** Read the `-b` paths and merge them into one bundle. */
export async function loadBundles(paths: string[], opts: BundleInputOptions = {}): Promise<BundleInput> {
  const fileNames = new Map<string, string>();
  const versioned = new Set<string>();
  const bundles: Bundle[] = [];
  for (const p of paths) {
    if (!existsSync(p)) throw new LoadError(`stat ${p}: no such file or directory`);
    let b: Bundle;
    try {
      b = await readOne(p, opts);
    } catch (e) {
      // OPA's loader names the bundle that failed: `bundle <path>: <reason>`
      if (e instanceof BundleError) throw new BundleReadError(`bundle ${p}: ${e.message}`);
      throw e;
    }
    const dir = statSync(p).isDirectory();
    for (const m of b.modules) {
      fileNames.set(m.path, dir ? join(p, m.path) : `${p}${m.path}`);
      if (regoVersionForFile(b.manifest, m.path, 0) === regoVersionForFile(b.manifest, m.path, 1)) versioned.add(m.path);
    }
    bundles.push(b);
  }
  if (bundles.length === 1) return { bundle: bundles[0]!, fileNames, versioned };
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
  return { bundle: { manifest: { roots }, modules, data }, fileNames, versioned };
}

// ---------------------------------------------------------------- plain paths

/** Load plain paths (`opa build x.rego dir/`) into one bundle; `.tar.gz` files given are skipped, as opa build's loader filter does. */
export function loadPlainPaths(paths: string[], ignore: string[] = []): BundleInput {
  const kept = paths.filter((arg) => {
    const { path } = splitPrefix(arg);
    return !(path.endsWith('.tar.gz') && existsSync(path) && !statSync(path).isDirectory());
  });
  const loaded = loadPaths(kept, [], ignore);
  const fileNames = new Map<string, string>();
  const modules: BundleModule[] = loaded.modules.map((m) => {
    const path = bundlePath(m.file);
    fileNames.set(path, m.file);
    return { path, text: m.text };
  });
  const bundle: Bundle = { manifest: {}, modules, data: loaded.data };
  return { bundle, fileNames, versioned: new Set() };
}
