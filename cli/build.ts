// `regent build [-b] [-o bundle.tar.gz] [-r REV] [-t rego|wasm] [-e PATH] [-O N]
// [--signing-key KEY …] [--verification-key KEY …] PATH...`: package policies and
// data into an OPA bundle, as `opa build` does (flags: cli/build-flags.ts).
// Without -b, paths are loaded like `-d` (cli/bundle-inputs.ts: every .rego file,
// JSON/YAML data merged at its directory, `--ignore` globs skipped); with -b each
// path is a bundle directory or tarball (cli/bundle-inputs.ts: several are merged,
// roots concatenated; `.signatures.json` verified with `--verification-key`).
// Every module is compiled first — with `--capabilities`, builtins the
// capabilities do not list are `undefined function` errors, as in `regent check`
// — and failures print `file:row:col: code: message` lines and exit 1. The
// manifest always records roots and the Rego version, the archive is
// deterministic. `-O 1|2` optimizes (cli/build-steps.ts, `--partial-namespace`),
// `-t wasm` adds /policy.wasm (cli/build-steps.ts: `--prune-unused`,
// `--wasm-include-print`), and a signing key adds `.signatures.json` (signing
// settings: cli/build-flags.ts). `--debug` prints the optimizer's lines on stderr.
import { writeFileSync } from 'node:fs';
import { compile } from '../compiler/index.js';
import { OptimizeError } from '../server/control-plane/builder/optimize.js';
import { BundleError, validateManifest, writeBundle, type Bundle, type BundleModule, type VerificationConfig } from '../runtime/bundles/index.js';
import { UsageError, bool, formatHelp, parseArgs } from './args.js';
import { usageFailed } from './usage.js';
import { LoadError } from './loader.js';
import { extraChecks, parserCapabilityErrors } from './eval-context.js';
import { toOutputErrors, type IO, type OutputError } from './output.js';
import { BUILD_DESCRIPTION, BUILD_FLAGS, BUILD_USAGE, BuildError, buildParams, checkSigningParams, signOutput, type BuildParams } from './build-flags.js';
import { BundleReadError, loadBundles, loadPlainPaths } from './bundle-inputs.js';
import { optimize } from './build-steps.js';

export { BUILD_FLAGS };

export interface BuildBundleOptions {
  bundleMode?: boolean;
  revision?: string;
  v0Compatible?: boolean;
  /** `--ignore` globs. */
  ignore?: string[];
  /** `--capabilities FILE|VERSION`: only the builtins it lists may be called. */
  capabilities?: string;
  followSymlinks?: boolean;
  /** Verify `-b` inputs' signatures with this config. */
  verification?: VerificationConfig;
  /** Read `-b` inputs without looking at `.signatures.json` (default: unless `verification` is given). */
  skipVerify?: boolean;
}

/** Compile every module; returns the errors with file names as the user knows them. */
function compileModules(modules: BundleModule[], fileNames: Map<string, string>, v0: boolean, capabilities?: string): OutputError[] {
  if (modules.length === 0) return [];
  const refused = parserCapabilityErrors(capabilities, modules.map((m) => ({ regoVersion: m.regoVersion ?? (v0 ? 0 : 1) })));
  if (refused.length > 0) return toOutputErrors({ errors: refused });
  try {
    const policy = compile(
      modules.map((m) => ({ file: fileNames.get(m.path) ?? m.path, text: m.text, v0Compatible: m.regoVersion === undefined ? v0 : m.regoVersion === 0 })),
      { v0Compatible: v0 },
    );
    if (capabilities === undefined) return [];
    const templates = parserCapabilityErrors(capabilities, policy.state.modules);
    return toOutputErrors({ errors: templates.length > 0 ? templates : extraChecks({ capabilities }, policy.state.modules) });
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
export async function buildBundle(paths: string[], opts: BuildBundleOptions = {}): Promise<{ bundle?: Bundle; errors: OutputError[] }> {
  const v0 = opts.v0Compatible === true;
  const { bundle, fileNames } = opts.bundleMode
    ? await loadBundles(paths, {
        v0,
        ...(opts.ignore ? { ignore: opts.ignore } : {}),
        ...(opts.followSymlinks ? { followSymlinks: true } : {}),
        ...(opts.verification ? { verification: opts.verification } : {}),
        ...(opts.skipVerify !== undefined ? { skipVerify: opts.skipVerify } : {}),
      })
    : loadPlainPaths(paths, opts.ignore);
  const m = bundle.manifest;
  if (opts.revision !== undefined) m.revision = opts.revision;
  if (m.roots === undefined) m.roots = [''];
  if (m.rego_version === undefined) m.rego_version = v0 ? 0 : 1;
  for (const mod of bundle.modules) {
    if (mod.regoVersion === undefined) mod.regoVersion = m.rego_version === 0 ? 0 : 1;
    if (mod.regoVersion !== m.rego_version) (m.file_rego_versions ??= {})[mod.path] = mod.regoVersion;
  }
  const errors = compileModules(bundle.modules, fileNames, v0, opts.capabilities);
  if (errors.length > 0) return { errors };
  if (!opts.bundleMode) {
    // Packages and data must sit under the roots (only relevant when roots were given).
    validateManifest(m, bundle.modules, [], [], bundle.data);
  }
  return { bundle, errors: [] };
}

/** Load, compile, optimize, compile to Wasm and sign: the bundle to write. */
async function build(p: BuildParams, io: IO): Promise<{ bundle?: Bundle; errors: OutputError[] }> {
  const verification = checkSigningParams(p);
  const debug = p.debug ? (line: string) => io.err(line + '\n') : undefined;
  const { bundle, errors } = await buildBundle(p.paths, {
    ...(p.revision !== undefined ? { revision: p.revision } : {}),
    bundleMode: p.bundleMode,
    v0Compatible: p.v0,
    ignore: p.ignore,
    followSymlinks: p.followSymlinks,
    // opa build reads -b inputs with verification on: a signed input needs a key
    skipVerify: false,
    ...(p.capabilities !== undefined ? { capabilities: p.capabilities } : {}),
    ...(verification ? { verification } : {}),
  }).catch((e: unknown) => {
    // as OPA's compile.Build reports a failed read of its inputs
    throw e instanceof BundleReadError ? new BuildError(`load error: ${e.message}`) : e;
  });
  if (!bundle) return { errors };
  // with -O the entrypoints are fixed before optimizing (it drops the METADATA they come from)
  const entrypoints = p.level > 0 ? optimize(bundle, { given: p.entrypoints, level: p.level, namespace: p.namespace, ...(p.revision !== undefined ? { revision: p.revision } : {}), ...(debug ? { debug } : {}) }) : p.entrypoints;
  if (p.target === 'wasm') {
    const { addWasm } = await import('./build-steps.js');
    const report = await addWasm(bundle, { entrypoints, optimize: p.wasmOpt, includePrint: p.wasmIncludePrint, pruneUnused: p.pruneUnused });
    io.err(report + '\n');
  }
  return { bundle: await signOutput(bundle, p), errors: [] };
}

/** The `build` command. */
export async function buildCommand(argv: string[], io: IO): Promise<number> {
  let p: BuildParams;
  try {
    const args = parseArgs(argv, BUILD_FLAGS);
    if (bool(args, 'help')) {
      io.out(formatHelp(BUILD_USAGE, BUILD_DESCRIPTION, BUILD_FLAGS) + '\n');
      return 0;
    }
    if (args.positionals.length === 0) throw new UsageError('expected at least one path');
    p = buildParams(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailed(io, e.message, formatHelp(BUILD_USAGE, BUILD_DESCRIPTION, BUILD_FLAGS));
  }
  try {
    const { bundle, errors } = await build(p, io);
    if (!bundle) {
      io.err(`error: ${errorLines(errors)}\n`);
      return 1;
    }
    writeFileSync(p.output, await writeBundle(bundle));
    return 0;
  } catch (e) {
    const plain = e instanceof LoadError || e instanceof BundleError || e instanceof SyntaxError || e instanceof OptimizeError || e instanceof BuildError;
    io.err(`error: ${plain ? e.message : errorLines(toOutputErrors(e))}\n`);
    return 1;
  }
}
