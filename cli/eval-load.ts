// What `regent eval` evaluates against: the -d paths and -b bundles, loaded as
// cli/loader.ts's loadAll does, with two `opa eval` options on top:
//  * --ignore GLOB (repeatable, comma-separated values too): files and directories
//    below a -d path or -b bundle directory whose name matches a glob are skipped
//    (loader.ts ignoredPath, OPA's loader filter: paths named on the command line
//    are always loaded, archives read whole).
//  * -O N (N > 0) with -e entrypoints (or METADATA `entrypoint: true`): as opa eval,
//    the files (-d) or bundles (-b, not both) are first optimized into a bundle as
//    `opa build -O N` does (server/control-plane/builder/optimize.ts) and the query
//    is evaluated against that bundle's modules and data. A failure to build it
//    (compile errors, no entrypoint) is an EvalSetupError: OPA prints it plainly on
//    stderr, exit code 2.
import { compile } from '../compiler/policy.js';
import { RObject } from '../runtime/value/index.js';
import { LoadError, bundlePath, loadAll, type Loaded } from './loader.js';
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
  return loadAll(req.data, req.bundles, { v0Compatible: req.v0Compatible, ...(req.ignore ? { ignore: req.ignore } : {}) });
}

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
