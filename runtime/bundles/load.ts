// The heart of bundle reading, shared by the tarball reader (read.ts) and the
// directory reader (read-dir.ts): a list of (path, bytes) files becomes a
// Bundle. In OPA's order (bundle.go Reader.Read): signatures are checked first,
// then every file is size-checked, hash-checked and classified (.rego modules,
// data.json/data.yaml/data.yml merged at their directory path, `.manifest`,
// `patch.json` for delta bundles, policy.wasm kept raw, anything else ignored),
// and finally the manifest is validated against the content (roots overlap,
// packages and data under the roots).
import { loadYAML } from '../value/yaml-lib.js';
import type { Bundle, BundleManifest, BundleModule, BundlePatchOperation } from './types.js';
import { RObject, fromJS, parseJSON, type Value } from '../value/index.js';
import { BundleError, goList, messageOf } from './errors.js';
import { parseManifest, regoVersionForFile } from './manifest.js';
import { formatPackage, scanPackage } from './package-scan.js';
import { checkManifestRoots, normalizeRoots, rootPathsContain } from './roots.js';
import { matchExclude, missingSignedFiles, parseSignatures, signaturesEmpty, verifyBundleFile, verifyBundleSignature, type FileInfo, type SignaturesConfig, type VerificationConfig } from './verify.js';

/** OPA's default per-file limit (size_limit_bytes): 1 GiB. */
export const DEFAULT_SIZE_LIMIT_BYTES = 1024 * 1024 * 1024;
export const DEFAULT_MAX_FILES = 100_000;

/** A file of a bundle: its path inside the archive or directory, and its bytes. */
export interface BundleFile {
  path: string;
  bytes: Uint8Array;
}

export interface ReadOptions {
  /** Per-file size limit (OPA's `size_limit_bytes`). */
  sizeLimitBytes?: number;
  /** Maximum number of files in one bundle. */
  maxFiles?: number;
  /** Verify `.signatures.json` with these keys (OPA's `bundles[].signing` plus `keys`). */
  verification?: VerificationConfig;
  /** Ignore `.signatures.json` entirely. */
  skipVerify?: boolean;
  /** Rego version for modules the manifest says nothing about (1, or 0 under --v0-compatible). */
  defaultRegoVersion?: 0 | 1;
  /** Determine a module's package; default: scan the package clause. May throw parse errors. */
  packageOf?: (module: BundleModule) => string[] | undefined;
  /** ETag recorded on the bundle. */
  etag?: string;
  /** The bundle will be persisted: delta bundles are refused (as OPA does). */
  persist?: boolean;
}

/** Normalize an archive path to `/a/b/c`; throws on paths that escape the bundle. */
export function normalizeBundlePath(raw: string): string {
  if (raw.includes('\0')) throw new BundleError('path', `bundle file '${raw.replace(/\0/g, '\\0')}' has an invalid path`);
  const segs: string[] = [];
  for (const s of raw.replace(/\\/g, '/').split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') throw new BundleError('path', `bundle file '${raw}' has an invalid path: path escapes the bundle root`);
    segs.push(s);
  }
  if (segs.length === 0) throw new BundleError('path', `bundle file '${raw}' has an invalid path`);
  if (/^[A-Za-z]:$/.test(segs[0]!)) throw new BundleError('path', `bundle file '${raw}' has an invalid path: absolute path`);
  return '/' + segs.join('/');
}

const baseName = (p: string): string => p.slice(p.lastIndexOf('/') + 1);
const dirSegments = (p: string): string[] => p.split('/').slice(1, -1);
const utf8 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

/** Merge `value` into `target` at `key` as Go's merge.InterfaceMaps: objects merge, anything else conflicts. */
function insertData(target: RObject, key: string[], value: Value, origin: string): void {
  const fail = (why: string): BundleError => new BundleError('data', `bundle load failed on ${origin}: ${why}`);
  if (key.length === 0) {
    if (!(value instanceof RObject)) throw fail('root value must be object');
    if (!mergeObjects(target, value)) throw fail('failed to insert data file from path ');
    return;
  }
  let tree: Value = value;
  for (let i = key.length - 1; i >= 0; i--) tree = new RObject().set(key[i]!, tree);
  if (!mergeObjects(target, tree as RObject)) throw fail(`failed to insert data file from path ${key.join('/')}`);
}

function mergeObjects(a: RObject, b: RObject): boolean {
  for (const [k, v] of b.entries()) {
    const existing = a.get(k);
    if (existing === undefined) a.set(k, v instanceof RObject ? v.clone() : v);
    else if (existing instanceof RObject && v instanceof RObject) {
      const copy = existing.clone();
      if (!mergeObjects(copy, v)) return false;
      a.set(k, copy);
    } else return false;
  }
  return true;
}

function parsePatch(text: string): BundlePatchOperation[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new BundleError('data', `bundle load failed on patch decode: ${messageOf(e)}`);
  }
  const ops = (raw as { data?: unknown } | null)?.data;
  if (ops === undefined || ops === null) return [];
  if (!Array.isArray(ops)) throw new BundleError('data', 'bundle load failed on patch decode: data must be an array');
  return ops.map((o: unknown) => {
    const op = o as { op?: unknown; path?: unknown; value?: unknown };
    if (typeof op?.op !== 'string' || typeof op.path !== 'string') throw new BundleError('data', 'bundle load failed on patch decode: each operation needs op and path');
    if (!['upsert', 'remove', 'replace'].includes(op.op)) throw new BundleError('data', `bad patch operation: ${op.op}`);
    return { op: op.op as BundlePatchOperation['op'], path: op.path, ...(op.value !== undefined ? { value: fromJS(op.value) } : {}) };
  });
}

/** Build a Bundle from its files. */
export async function loadBundleFiles(input: BundleFile[], opts: ReadOptions = {}): Promise<Bundle> {
  const limit = opts.sizeLimitBytes ?? DEFAULT_SIZE_LIMIT_BYTES;
  const maxFiles = opts.maxFiles ?? DEFAULT_MAX_FILES;
  if (input.length > maxFiles) throw new BundleError('size', `bundle contains too many files (${input.length}, limit ${maxFiles})`);
  const seen = new Set<string>();
  const files: BundleFile[] = [];
  let signatures: SignaturesConfig | undefined;
  let patch: BundlePatchOperation[] = [];
  for (const f of input) {
    const path = normalizeBundlePath(f.path);
    if (seen.has(path)) throw new BundleError('path', `bundle contains duplicate file '${path}'`);
    seen.add(path);
    if (f.bytes.byteLength > limit) {
      throw new BundleError('size', `bundle file ${path.slice(1)} size (${f.bytes.byteLength} bytes) exceeds configured size_limit_bytes (${limit} bytes)`);
    }
    if (baseName(path) === '.signatures.json') {
      if (!opts.skipVerify) signatures = parseSignatures(utf8(f.bytes));
      continue;
    }
    if (baseName(path) === 'patch.json') patch = parsePatch(utf8(f.bytes));
    files.push({ path, bytes: f.bytes });
  }
  const delta = patch.length > 0;

  // Signatures (snapshot bundles only).
  let signed: Map<string, FileInfo> | undefined;
  if (!delta && !opts.skipVerify) {
    const cfg = opts.verification;
    if (signaturesEmpty(signatures) && cfg !== undefined && (cfg.keyid ?? '') !== '') throw new BundleError('signature', 'bundle missing .signatures.json file');
    if (!signaturesEmpty(signatures)) {
      if (cfg === undefined) throw new BundleError('signature', 'verification key not provided');
      signed = await verifyBundleSignature(signatures!, cfg);
    }
  }

  const manifestFile = files.find((f) => f.path === '/.manifest');
  const manifest: BundleManifest = manifestFile ? parseManifest(utf8(manifestFile.bytes)) : {};
  const data = new RObject();
  const modules: BundleModule[] = [];
  const wasmModules: { path: string; raw: Uint8Array }[] = [];
  for (const f of files) {
    const bare = f.path.slice(1);
    if (signed !== undefined) {
      if ((opts.verification?.exclude_files ?? []).some((p) => matchExclude(p, bare))) signed.delete(bare);
      else verifyBundleFile(bare, f.bytes, signed);
    }
    const base = baseName(f.path);
    if (f.path.endsWith('.rego')) modules.push({ path: f.path, text: utf8(f.bytes) });
    else if (base === 'policy.wasm') wasmModules.push({ path: f.path, raw: f.bytes });
    else if (base === 'data.json' || base === 'data.yaml' || base === 'data.yml') {
      let value: Value;
      try {
        const text = utf8(f.bytes);
        if (base === 'data.json') {
          if (text.trim() === '') throw new Error('EOF');
          value = parseJSON(text);
        } else value = fromJS(loadYAML(text) ?? null);
      } catch (e) {
        throw new BundleError('data', `bundle load failed on ${f.path}: ${messageOf(e)}`);
      }
      insertData(data, dirSegments(f.path), value, f.path);
    }
  }

  const def = opts.defaultRegoVersion ?? 1;
  for (const m of modules) {
    m.regoVersion = regoVersionForFile(manifest, m.path, def);
    const pkg = opts.packageOf ? opts.packageOf(m) : scanPackage(m.text);
    if (pkg !== undefined) m.packagePath = pkg;
  }

  if (delta) {
    if (data.size !== 0) throw new BundleError('data', 'delta bundle expected to contain only patch file but data files found');
    if (modules.length !== 0) throw new BundleError('data', 'delta bundle expected to contain only patch file but policy files found');
    if (wasmModules.length !== 0) throw new BundleError('data', 'delta bundle expected to contain only patch file but wasm files found');
    if (opts.persist) throw new BundleError('data', "'persist' property is true in config. persisting delta bundle to disk is not supported");
  }
  if (signed !== undefined) {
    const missing = missingSignedFiles(signed);
    if (missing) throw missing;
  }

  validateManifest(manifest, modules, wasmModules, patch, data);
  const bundle: Bundle = { manifest, modules, data, type: delta ? 'delta' : 'snapshot' };
  if (signatures !== undefined) bundle.signatures = signatures;
  if (delta) bundle.patch = patch;
  if (wasmModules.length > 0) bundle.wasmModules = wasmModules;
  if (opts.etag !== undefined) bundle.etag = opts.etag;
  return bundle;
}

/** OPA's Manifest.validateAndInjectDefaults: roots, packages, wasm, patches, data. */
export function validateManifest(
  manifest: BundleManifest,
  modules: BundleModule[],
  wasmModules: { path: string }[],
  patch: BundlePatchOperation[],
  data: Value,
): void {
  const roots = normalizeRoots(manifest.roots);
  if (manifest.roots !== undefined) manifest.roots = roots;
  checkManifestRoots(roots);
  for (const m of modules) {
    const pkg = m.packagePath;
    if (pkg === undefined) {
      if (roots.includes('')) continue;
      throw new BundleError('module', `${m.path}: rego_parse_error: package expected`);
    }
    if (!rootPathsContain(roots, pkg.join('/'))) {
      throw new BundleError('roots', `manifest roots ${goList(roots)} do not permit '${formatPackage(pkg)}' in module '${m.path}'`);
    }
  }
  const wasmPaths = new Set(wasmModules.map((w) => w.path));
  const entrypoints = new Set<string>();
  for (const w of (manifest.wasm ?? []) as { entrypoint?: string; module?: string }[]) {
    const mod = w?.module ?? '';
    if (!wasmPaths.has(mod)) throw new BundleError('manifest', `manifest references wasm module '${mod}' but the module file does not exist`);
    const ep = w.entrypoint ?? '';
    if (!rootPathsContain(roots, ep)) throw new BundleError('roots', `manifest roots ${goList(roots)} do not permit '${ep}' entrypoint for wasm module '${mod}'`);
    if (entrypoints.has(ep)) throw new BundleError('manifest', `entrypoint '${ep}' cannot be used by more than one wasm module`);
    entrypoints.add(ep);
  }
  for (const p of patch) {
    const path = p.path.replace(/^\/+|\/+$/g, '');
    if (!rootPathsContain(roots, path)) throw new BundleError('roots', `manifest roots ${goList(roots)} do not permit data patch at path '${path}'`);
  }
  checkDataInRoots(roots, data);
}

function checkDataInRoots(roots: string[], data: Value): void {
  // Iterative DFS over objects; depth is bounded by the data's own nesting.
  const stack: [string, Value][] = [['', data]];
  while (stack.length > 0) {
    const [path, node] = stack.pop()!;
    if (rootPathsContain(roots, path)) continue;
    if (node instanceof RObject) {
      const segs = path.split('/');
      if (roots.some((r) => rootPathsContain([segs.join('/')], r))) {
        for (const [k, v] of node.entries()) stack.push([path === '' ? String(k) : `${path}/${String(k)}`, v]);
        continue;
      }
    }
    throw new BundleError('roots', `manifest roots ${goList(roots)} do not permit data at path '/${path}' (hint: check bundle directory structure)`);
  }
}
