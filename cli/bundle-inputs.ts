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
//     .json/.yaml data merged at its directory's path (cli/loader.ts functions);
//     `.tar.gz` files are skipped, as opa build's loader filter does.
//   - `--ignore` globs (ignoredPath) in both: a file or directory below a given
//     root whose name matches is skipped (a directory whole), the test `regent
//     check --ignore` makes (OPA's GlobExcludeName(pattern, 1)).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
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
import { LoadError, globToRegExp, mergeAt, readDataFile, splitPrefix, walk } from './loader.js';

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

/** A predicate for `--ignore` globs over a `/`-separated path below a root: true when any segment matches. */
export function ignoredPath(globs: string[]): (relPath: string) => boolean {
  const patterns = globs.map(globToRegExp);
  return (relPath) => patterns.length > 0 && relPath.split('/').some((seg) => seg !== '' && patterns.some((re) => re.test(seg)));
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

const DATA_EXT = new Set(['.json', '.yaml', '.yml']);

/** A path as a bundle path: `/`-separated, leading `/`, no `.`/`..` segments. */
export function bundlePath(file: string): string {
  return '/' + file.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.' && s !== '..').join('/');
}

function dirSegments(root: string, file: string): string[] {
  const rel = relative(root, file).split(sep);
  rel.pop();
  return rel.filter((s) => s !== '' && s !== '.');
}

/** Load plain paths (`opa build x.rego dir/`) into one bundle. */
export function loadPlainPaths(paths: string[], ignore: string[] = []): BundleInput {
  const ignored = ignoredPath(ignore);
  const fileNames = new Map<string, string>();
  const modules: BundleModule[] = [];
  const data = new RObject();
  const add = (file: string, dataPath: string[]): void => {
    const ext = extname(file).toLowerCase();
    if (ext === '.rego') {
      const path = bundlePath(file);
      fileNames.set(path, file);
      modules.push({ path, text: readFileSync(file, 'utf8') });
    } else if (DATA_EXT.has(ext)) mergeAt(data, dataPath, readDataFile(file), file);
  };
  for (const arg of paths) {
    const { prefix, path } = splitPrefix(arg);
    if (!existsSync(path)) throw new LoadError(`stat ${path}: no such file or directory`);
    if (statSync(path).isDirectory()) {
      for (const f of walk(path)) {
        if (f.endsWith('.tar.gz') || ignored(relative(path, f).split(sep).join('/'))) continue;
        add(f, [...prefix, ...dirSegments(path, f)]);
      }
    } else if (!path.endsWith('.tar.gz')) {
      const ext = extname(path).toLowerCase();
      if (ext !== '.rego' && !DATA_EXT.has(ext)) throw new LoadError(`${path}: unsupported file type (want .rego, .json, .yaml or .yml)`);
      add(path, prefix);
    }
  }
  const bundle: Bundle = { manifest: {}, modules, data };
  return { bundle, fileNames, versioned: new Set() };
}
