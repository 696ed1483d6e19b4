// The command line of `regent build`: the flags of `opa build` (OPA's
// descriptions), the usage text, the parsed options the build steps read, and the
// signature settings made from them as OPA's cmd/build.go makes them:
//   - `--verification-key KEY` (a PEM file or the key itself) with `--signing-alg`,
//     `--verification-key-id` (default `default`), `--scope` and
//     `--exclude-files-verify`: the -b inputs' `.signatures.json` is verified;
//   - `--signing-key`/`--signing-alg`/`--claims-file` sign the output; `kid` and
//     the `keyid` claim are the verification key id unless claims are given;
//   - `--signing-plugin NAME`: Regent has no signer plugins, so any name fails as
//     OPA does for an unknown one (`no signer exists under id NAME`);
//   - claims or a plugin need a signing key; verifying or signing needs -b.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { signBundle, type Bundle, type VerificationConfig } from '../runtime/bundles/index.js';
import { bool, list, str, UsageError, type FlagSpec, type ParsedArgs } from './args.js';
import { capabilitiesFlagProblem } from './eval-context.js';

/** A build failure reported as `error: <message>` (exit 1), as opa build reports it. */
export class BuildError extends Error {
  override name = 'BuildError';
}

export const BUILD_FLAGS: FlagSpec[] = [
  { name: 'bundle', short: 'b', type: 'boolean', description: 'load paths as bundle files or root directories' },
  { name: 'output', short: 'o', type: 'string', default: 'bundle.tar.gz', metavar: 'FILE', description: 'set the output filename' },
  { name: 'revision', short: 'r', type: 'string', metavar: 'REV', description: 'set output bundle revision' },
  { name: 'target', short: 't', type: 'string', default: 'rego', metavar: 'TARGET', description: 'set the output bundle target type (rego or wasm)' },
  { name: 'entrypoint', short: 'e', type: 'string', repeatable: true, metavar: 'PATH', description: 'set slash separated entrypoint path' },
  { name: 'optimize', short: 'O', type: 'string', default: '0', metavar: 'LEVEL', description: 'set optimization level (0: none, 1: partial evaluation keeping rules as support rules, 2: partial evaluation inlining them)' },
  { name: 'partial-namespace', type: 'string', default: 'partial', metavar: 'NS', description: 'set the namespace to use for partially evaluated files in an optimized bundle' },
  { name: 'prune-unused', type: 'boolean', description: 'exclude dependents of entrypoints' },
  { name: 'debug', type: 'boolean', description: 'enable debug output' },
  { name: 'ignore', type: 'string', repeatable: true, metavar: 'GLOB', description: "set file and directory names to ignore during loading (e.g., '.*' excludes hidden files)" },
  { name: 'capabilities', type: 'string', metavar: 'FILE|VERSION', description: 'set capabilities version or capabilities.json file path' },
  { name: 'follow-symlinks', type: 'boolean', description: 'follow symlinks in the input set of paths when building the bundle' },
  { name: 'wasm-include-print', type: 'boolean', description: 'enable print statements inside of WebAssembly modules compiled by the compiler' },
  { name: 'wasm-opt', type: 'string', default: '1', metavar: 'LEVEL', description: 'set binaryen optimization level for -t wasm (0-3)' },
  { name: 'verification-key', type: 'string', metavar: 'KEY', description: 'set the secret (HMAC) or path of the PEM file containing the public key (RSA and ECDSA)' },
  { name: 'verification-key-id', type: 'string', default: 'default', metavar: 'ID', description: 'name assigned to the verification key used for bundle verification' },
  { name: 'scope', type: 'string', metavar: 'SCOPE', description: 'scope to use for bundle signature verification' },
  { name: 'exclude-files-verify', type: 'string', repeatable: true, metavar: 'NAME', description: 'set file names to exclude during bundle verification' },
  { name: 'signing-key', type: 'string', metavar: 'KEY', description: 'set the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)' },
  { name: 'signing-alg', type: 'string', default: 'RS256', metavar: 'ALG', description: 'name of the signing algorithm' },
  { name: 'signing-plugin', type: 'string', metavar: 'NAME', description: 'name of the plugin to use for signing/verification (see https://www.openpolicyagent.org/docs/latest/management-bundles/#signature-plugin' },
  { name: 'claims-file', type: 'string', metavar: 'FILE', description: 'set path of JSON file containing optional claims (see: https://openpolicyagent.org/docs/management-bundles/#signature-format)' },
  { name: 'v0-compatible', type: 'boolean', description: 'opt-in to OPA features and behaviors prior to the OPA v1.0 release' },
  { name: 'v1-compatible', type: 'boolean', description: 'opt-in to OPA features and behaviors that are enabled by default in OPA v1.0' },
  { name: 'help', short: 'h', type: 'boolean', description: 'show help for build' },
];

export const BUILD_USAGE = 'regent build <path> [<path> [...]]';
export const BUILD_DESCRIPTION = 'Build an OPA bundle.\n\nThe build command packages OPA policy and data files into bundles. Bundles are\ngzipped tarballs containing policies and data. Paths referring to directories are\nloaded recursively.';

/** A pflag StringSlice flag: every occurrence, each split at commas (`--ignore a,b`). */
export function sliceFlag(args: ParsedArgs, name: string): string[] {
  return list(args, name).flatMap((v) => v.split(',')).filter((v) => v !== '');
}

/** The build's options, read from the command line. */
export interface BuildParams {
  paths: string[];
  bundleMode: boolean;
  output: string;
  revision?: string;
  target: 'rego' | 'wasm';
  entrypoints: string[];
  level: number;
  namespace: string;
  pruneUnused: boolean;
  debug: boolean;
  ignore: string[];
  capabilities?: string;
  followSymlinks: boolean;
  wasmIncludePrint: boolean;
  wasmOpt: number;
  verificationKey?: string;
  verificationKeyId: string;
  scope: string;
  excludeFilesVerify: string[];
  signingKey?: string;
  signingAlg: string;
  signingPlugin?: string;
  claimsFile?: string;
  /** --v0-compatible wins over --v1-compatible (Rego v1 is the default anyway). */
  v0: boolean;
}

/** Read the parsed command line; throws UsageError for values OPA's flags refuse. */
export function buildParams(args: ParsedArgs): BuildParams {
  const target = str(args, 'target') ?? 'rego';
  if (target !== 'rego' && target !== 'wasm') throw new UsageError(`invalid target ${JSON.stringify(target)}: use rego or wasm`);
  const level = Number(str(args, 'optimize') ?? '0');
  if (!Number.isInteger(level) || level < 0) throw new UsageError(`invalid optimization level ${JSON.stringify(str(args, 'optimize'))}: use 0, 1 or 2`);
  const opt = (name: string): Record<string, string> => (str(args, name) !== undefined && str(args, name) !== '' ? { [name]: str(args, name)! } : {});
  const caps = str(args, 'capabilities');
  const badCaps = caps === undefined ? undefined : capabilitiesFlagProblem(caps);
  if (badCaps !== undefined) throw new UsageError(badCaps);
  const o = { ...opt('revision'), ...opt('capabilities'), ...opt('verification-key'), ...opt('signing-key'), ...opt('signing-plugin'), ...opt('claims-file') };
  return {
    paths: args.positionals,
    bundleMode: bool(args, 'bundle'),
    output: str(args, 'output') ?? 'bundle.tar.gz',
    ...(str(args, 'revision') !== undefined ? { revision: str(args, 'revision')! } : {}),
    target,
    entrypoints: list(args, 'entrypoint').map((e) => e.replace(/^data[./]/, '').replace(/\./g, '/')),
    level,
    namespace: str(args, 'partial-namespace') ?? 'partial',
    pruneUnused: bool(args, 'prune-unused'),
    debug: bool(args, 'debug'),
    ignore: sliceFlag(args, 'ignore'),
    ...(o.capabilities !== undefined ? { capabilities: o.capabilities } : {}),
    followSymlinks: bool(args, 'follow-symlinks'),
    wasmIncludePrint: bool(args, 'wasm-include-print'),
    wasmOpt: Number(str(args, 'wasm-opt') ?? '1'),
    ...(o['verification-key'] !== undefined ? { verificationKey: o['verification-key'] } : {}),
    verificationKeyId: str(args, 'verification-key-id') ?? 'default',
    scope: str(args, 'scope') ?? '',
    excludeFilesVerify: sliceFlag(args, 'exclude-files-verify'),
    ...(o['signing-key'] !== undefined ? { signingKey: o['signing-key'] } : {}),
    signingAlg: str(args, 'signing-alg') ?? 'RS256',
    ...(o['signing-plugin'] !== undefined ? { signingPlugin: o['signing-plugin'] } : {}),
    ...(o['claims-file'] !== undefined ? { claimsFile: o['claims-file'] } : {}),
    v0: bool(args, 'v0-compatible'),
  };
}

// ---------------------------------------------------------------- signing

const SIGNING_INCOMPLETE = 'specify the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)';

/** OPA's keys.NewKeyConfig: the key is read from the file it names, else taken as given. */
function keyMaterial(key: string): string {
  if (!existsSync(key)) return key;
  try {
    return statSync(key).isFile() ? readFileSync(key, 'utf8') : key;
  } catch (e) {
    throw new BuildError(`open ${key}: ${(e as { code?: string }).code === 'EACCES' ? 'permission denied' : (e as Error).message}`);
  }
}

/** The verification config of the flags (undefined without --verification-key). */
export function verificationConfig(p: BuildParams): VerificationConfig | undefined {
  if (p.verificationKey === undefined) return undefined;
  const key = { key: keyMaterial(p.verificationKey), algorithm: p.signingAlg, ...(p.scope !== '' ? { scope: p.scope } : {}) };
  return {
    keys: { [p.verificationKeyId]: key },
    keyid: p.verificationKeyId,
    ...(p.scope !== '' ? { scope: p.scope } : {}),
    ...(p.excludeFilesVerify.length > 0 ? { exclude_files: p.excludeFilesVerify } : {}),
  };
}

/** The checks opa build makes before loading anything; returns the verification config. */
export function checkSigningParams(p: BuildParams): VerificationConfig | undefined {
  const verification = verificationConfig(p);
  if (p.signingKey === undefined && (p.signingPlugin !== undefined || p.claimsFile !== undefined)) throw new BuildError(SIGNING_INCOMPLETE);
  if ((verification !== undefined || p.signingKey !== undefined) && !p.bundleMode) {
    throw new BuildError('enable bundle mode (ie. --bundle) to verify or sign bundle files or directories');
  }
  return verification;
}

/** The bundle with `.signatures.json` when a signing key is given, else the bundle itself. */
export async function signOutput(bundle: Bundle, p: BuildParams): Promise<Bundle> {
  if (p.signingKey === undefined) return bundle;
  if (p.signingPlugin !== undefined) throw new BuildError(`no signer exists under id ${p.signingPlugin}`);
  const claims = p.claimsFile !== undefined ? (JSON.parse(readFileSync(p.claimsFile, 'utf8')) as Record<string, unknown>) : undefined;
  return signBundle(bundle, {
    key: p.signingKey,
    algorithm: p.signingAlg,
    ...(claims ? { claims } : { keyId: p.verificationKeyId }),
  });
}
