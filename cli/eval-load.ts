// What `regent eval` evaluates against: the -d paths and -b bundles, loaded as
// cli/loader.ts's loadAll does, with two `opa eval` options on top:
//  * --ignore GLOB (repeatable, comma-separated values too): files and directories
//    below a -d path or -b bundle directory whose name matches a glob are skipped
//    (OPA's loader filter: a name at depth 1 or more; paths named on the command line
//    are always loaded, archives read whole).
//  * -O N (N > 0) with -e entrypoints (or METADATA `entrypoint: true`): as opa eval,
//    the files (-d) or bundles (-b, not both) are first optimized into a bundle as
//    `opa build -O N` does (server/control-plane/builder/optimize.ts) and the query
//    is evaluated against that bundle's modules and data. A failure to build it
//    (compile errors, no entrypoint) is an EvalSetupError: OPA prints it plainly on
//    stderr, exit code 2.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { compile } from '../compiler/policy.js';
import { RObject } from '../runtime/value/index.js';
import { LoadError, globToRegExp, loadAll, mergeAt, readDataFile, splitPrefix, walk, type Loaded } from './loader.js';
import { errorsText, toOutputErrors } from './output.js';

/** An error `opa eval` reports before evaluating, plainly on stderr, exit code 2. */
export class EvalSetupError extends Error {
  override name = 'EvalSetupError';
}

export interface LoadRequest {
  data: string[];
  bundles: string[];
  v0Compatible: boolean;
  ignore?: string[];
  optimize?: number;
  entrypoints?: string[];
}

/** Load what the request names (see the header). */
export async function loadForEval(req: LoadRequest): Promise<Loaded> {
  if (req.optimize !== undefined && req.optimize > 0) return optimized(req);
  if (!req.ignore || req.ignore.length === 0) return loadAll(req.data, req.bundles, { v0Compatible: req.v0Compatible });
  return loadIgnoring(req.data, req.bundles, req.ignore, req.v0Compatible);
}

const isArchive = (p: string): boolean => p.endsWith('.tar.gz') && existsSync(p) && !statSync(p).isDirectory();
const DATA_EXT = new Set(['.json', '.yaml', '.yml']);

/** loadAll with the --ignore filter applied to the files found in directories. */
async function loadIgnoring(dataPaths: string[], bundlePaths: string[], ignore: string[], v0Compatible: boolean): Promise<Loaded> {
  const patterns = ignore.map(globToRegExp);
  const kept = (root: string, file: string): boolean => !relative(root, file).split(sep).some((seg) => patterns.some((re) => re.test(seg)));
  const result: Loaded = { modules: [], data: new RObject(), manifests: {}, v0: false };
  const dataArchives: string[] = [];
  for (const arg of dataPaths) {
    const { prefix, path } = splitPrefix(arg);
    if (isArchive(path)) {
      dataArchives.push(arg);
      continue;
    }
    if (!existsSync(path)) throw new LoadError(`stat ${path}: no such file or directory`);
    if (!statSync(path).isDirectory()) {
      const ext = extname(path).toLowerCase();
      if (ext !== '.rego' && !DATA_EXT.has(ext)) throw new LoadError(`${path}: unsupported file type (want .rego, .json, .yaml or .yml)`);
      addFile(result, path, prefix, false);
      continue;
    }
    for (const f of walk(path).filter((f) => kept(path, f))) addFile(result, f, [...prefix, ...dirSegments(path, f)], false);
  }
  const bundleArchives: string[] = [];
  for (const dir of bundlePaths) {
    if (isArchive(dir)) {
      bundleArchives.push(dir);
      continue;
    }
    if (!existsSync(dir)) throw new LoadError(`stat ${dir}: no such file or directory`);
    if (!statSync(dir).isDirectory()) throw new LoadError(`${dir}: bundle must be a directory or a .tar.gz archive`);
    const manifestPath = join(dir, '.manifest');
    if (existsSync(manifestPath)) {
      const manifest = readDataFile(manifestPath);
      result.manifests[dir] = manifest;
      if (manifest instanceof RObject && manifest.get('rego_version') === 0) result.v0 = true;
    }
    for (const f of walk(dir).filter((f) => kept(dir, f) && !f.endsWith('.tar.gz'))) addFile(result, f, dirSegments(dir, f), true);
  }
  if (dataArchives.length > 0 || bundleArchives.length > 0) {
    const archives = await loadAll(dataArchives, bundleArchives, { v0Compatible });
    result.modules.push(...archives.modules);
    if (archives.data.size > 0) mergeAt(result.data, [], archives.data, 'bundle');
    Object.assign(result.manifests, archives.manifests);
  }
  return result;
}

function addFile(result: Loaded, file: string, dataPath: string[], bundle: boolean): void {
  const ext = extname(file).toLowerCase();
  if (ext === '.rego') result.modules.push({ file, text: readFileSync(file, 'utf8') });
  else if (DATA_EXT.has(ext)) {
    if (bundle && !/^data\.(json|ya?ml)$/.test(file.split(sep).pop()!.toLowerCase())) return;
    mergeAt(result.data, dataPath, readDataFile(file), file);
  }
}

function dirSegments(root: string, file: string): string[] {
  const rel = relative(root, file).split(sep);
  rel.pop();
  return rel.filter((s) => s !== '' && s !== '.');
}

/** A file path as a bundle path: `/`-separated with a leading `/`. */
const bundlePath = (file: string): string => '/' + file.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.' && s !== '..').join('/');

/** -O N: the optimized bundle of the -d files or the -b bundles; any failure is an EvalSetupError. */
async function optimized(req: LoadRequest): Promise<Loaded> {
  try {
    return await optimize(req);
  } catch (e) {
    if (e instanceof EvalSetupError) throw e;
    // load, bundle and optimizer failures read as they are; compile errors as OPA's error list
    const plain = e instanceof LoadError || (e instanceof Error && (e.name === 'OptimizeError' || e.name === 'BundleError'));
    throw new EvalSetupError(plain ? (e as Error).message : errorsText(toOutputErrors(e)));
  }
}

async function optimize(req: LoadRequest): Promise<Loaded> {
  const { optimizeBundle, optimizationEntrypoints } = await import('../server/control-plane/builder/optimize.js');
  const { annotatedEntrypoints } = await import('../compiler/index.js');
  let modules: { path: string; text: string; v0?: boolean; file?: string }[];
  let data: RObject;
  let roots = [''];
  let v0 = req.v0Compatible;
  if (req.bundles.length > 0) {
    const { buildBundle } = await import('./build.js');
    const built = await buildBundle(req.bundles, { bundleMode: true, v0Compatible: req.v0Compatible });
    if (!built.bundle) throw new EvalSetupError(errorsText(built.errors));
    v0 = built.bundle.manifest.rego_version === 0;
    roots = built.bundle.manifest.roots ?? [''];
    modules = built.bundle.modules.map((m) => ({ path: m.path, text: m.text, v0: m.regoVersion === undefined ? v0 : m.regoVersion === 0 }));
    data = built.bundle.data instanceof RObject ? built.bundle.data : new RObject();
  } else {
    const loaded = await loadForEval({ ...req, optimize: 0 });
    v0 = v0 || loaded.v0;
    modules = loaded.modules.map((m) => ({ path: bundlePath(m.file), text: m.text, v0: m.v0Compatible ?? v0, file: m.file }));
    data = loaded.data;
  }
  // compiled first under the names the user gave, so that errors name those files
  const policy = compile(modules.map((m) => ({ file: m.file ?? m.path, text: m.text, v0Compatible: m.v0 })), { v0Compatible: v0 });
  const given = (req.entrypoints ?? []).map((e) => e.replace(/^data[./]/, '').replace(/\./g, '/'));
  const entrypoints = optimizationEntrypoints(given, annotatedEntrypoints(policy));
  const out = optimizeBundle({ modules: modules.map(({ path, text }) => ({ path, text })), data, roots, regoVersion: v0 ? 0 : 1, entrypoints, level: req.optimize! });
  // as `regent build -O`: the optimized modules keep the bundle's Rego version
  return { modules: out.modules.map((m) => ({ file: m.path, text: m.text, v0Compatible: v0 })), data, manifests: {}, v0 };
}
