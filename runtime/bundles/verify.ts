// Bundle signature verification (OPA's verify.go). `.signatures.json` holds
// exactly one compact JWS whose payload lists every file of the bundle with its
// digest. The key id comes from the config (`bundles[].signing.keyid`), else the
// JWS `kid` header, else the deprecated `keyid` claim; the scope must equal the
// configured one. Then each file read is checked against the list, and files
// listed but absent fail the read. Cryptography is jose's compactVerify.
import { BundleError, goList, messageOf } from './errors.js';
import { hashBundleFile } from './hash.js';
import { DEFAULT_SIGNATURE_ALGORITHM, verificationKey, type KeyConfig } from './keys.js';

/** One file entry of the JWT payload. */
export interface FileInfo {
  name: string;
  hash: string;
  algorithm: string;
}

/** The decoded JWT payload. */
export interface DecodedSignature {
  files: FileInfo[];
  keyid?: string;
  scope?: string;
  iss?: string;
  iat?: number;
}

/** `.signatures.json` content. */
export interface SignaturesConfig {
  signatures?: string[];
  plugin?: string;
}

/** How a bundle is verified: configured keys plus `bundles[].signing`. */
export interface VerificationConfig {
  keys: Record<string, KeyConfig>;
  keyid?: string;
  scope?: string;
  exclude_files?: string[];
}

/** Validate `.signatures.json` JSON text into its shape. */
export function parseSignatures(text: string): SignaturesConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new BundleError('signature', `bundle load failed on signatures decode: ${messageOf(e)}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new BundleError('signature', 'bundle load failed on signatures decode: json: cannot unmarshal into Go value of type bundle.SignaturesConfig');
  }
  const o = raw as Record<string, unknown>;
  const sigs = o.signatures;
  if (sigs !== undefined && sigs !== null && (!Array.isArray(sigs) || sigs.some((s) => typeof s !== 'string'))) {
    throw new BundleError('signature', 'bundle load failed on signatures decode: json: cannot unmarshal into Go struct field SignaturesConfig.signatures of type []string');
  }
  const out: SignaturesConfig = {};
  if (Array.isArray(sigs)) out.signatures = sigs as string[];
  if (typeof o.plugin === 'string' && o.plugin !== '') out.plugin = o.plugin;
  return out;
}

export function signaturesEmpty(sc: SignaturesConfig | undefined): boolean {
  return sc === undefined || (sc.signatures === undefined && (sc.plugin ?? '') === '');
}

function decodePart(part: string, what: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch (e) {
    throw new BundleError('signature', `failed to parse JWT ${what}: ${messageOf(e)}`);
  }
}

/** Verify the JWS of `.signatures.json`; returns the listed files by name. */
export async function verifyBundleSignature(sc: SignaturesConfig, cfg: VerificationConfig): Promise<Map<string, FileInfo>> {
  if (sc.plugin) throw new BundleError('signature', `no verifier exists under id ${sc.plugin}`);
  const sigs = sc.signatures ?? [];
  if (sigs.length === 0) throw new BundleError('signature', '.signatures.json: missing JWT (expected exactly one)');
  if (sigs.length > 1) throw new BundleError('signature', '.signatures.json: multiple JWTs not supported (expected exactly one)');
  const token = sigs[0]!;
  const parts = token.split('.');
  if (parts.length !== 3) throw new BundleError('signature', 'failed to split compact JWT: invalid number of segments');
  const header = decodePart(parts[0]!, 'headers') as Record<string, unknown>;
  const payload = decodePart(parts[1]!, 'payload') as DecodedSignature;
  if (payload === null || typeof payload !== 'object' || (payload.files !== undefined && !Array.isArray(payload.files))) {
    throw new BundleError('signature', 'failed to parse JWT payload: files must be an array');
  }
  let keyId = cfg.keyid ?? '';
  if (keyId === '' && typeof header?.kid === 'string') keyId = header.kid;
  if (keyId === '' && typeof payload.keyid === 'string') keyId = payload.keyid;
  if (keyId === '') throw new BundleError('signature', 'verification key ID is empty');
  const kc = Object.hasOwn(cfg.keys, keyId) ? cfg.keys[keyId] : undefined;
  if (kc === undefined) throw new BundleError('signature', `verification key corresponding to ID ${keyId} not found`);
  const alg = kc.algorithm ?? DEFAULT_SIGNATURE_ALGORITHM;
  const key = verificationKey(kc.key ?? kc.private_key ?? '', alg);
  const { compactVerify, decodeProtectedHeader } = await import('jose'); // loaded on first use: CLI start-up
  try {
    if (decodeProtectedHeader(token).alg !== alg) throw new Error(`algorithm mismatch (want ${alg})`);
    await compactVerify(token, key, { algorithms: [alg] });
  } catch (e) {
    throw new BundleError('signature', `failed to verify JWT signature: ${messageOf(e)}`);
  }
  const scope = cfg.scope || kc.scope || '';
  if ((payload.scope ?? '') !== scope) throw new BundleError('signature', 'scope mismatch');
  const files = new Map<string, FileInfo>();
  for (const f of payload.files ?? []) {
    if (f && typeof f.name === 'string') files.set(f.name, { name: f.name, hash: String(f.hash ?? ''), algorithm: String(f.algorithm ?? '') });
  }
  return files;
}

/**
 * Check one file against the signed list (`path` without its leading slash) and
 * remove it from `files`; what remains at the end was signed but not shipped.
 */
export function verifyBundleFile(path: string, bytes: Uint8Array, files: Map<string, FileInfo>): void {
  const info = files.get(path);
  if (info === undefined) throw new BundleError('signature', `file ${path} not included in bundle signature`);
  if (info.algorithm === '') throw new BundleError('signature', `no hashing algorithm provided for file ${path}`);
  let got: string;
  try {
    got = hashBundleFile(info.algorithm, path, bytes);
  } catch (e) {
    if (e instanceof BundleError) throw e;
    throw new BundleError('signature', `${path}: ${messageOf(e)}`);
  }
  if (got.toLowerCase() !== info.hash.toLowerCase()) {
    throw new BundleError('signature', `${path}: digest mismatch (want: ${info.hash}, got: ${got})`);
  }
  files.delete(path);
}

/** The error for files listed in the signature but missing from the bundle. */
export function missingSignedFiles(files: Map<string, FileInfo>): BundleError | undefined {
  if (files.size === 0) return undefined;
  return new BundleError('signature', `file(s) ${goList([...files.keys()].sort())} specified in bundle signatures but not found in the target bundle`);
}

/** Go's filepath.Match, used for `exclude_files` patterns (`*` stops at `/`). */
export function matchExclude(pattern: string, path: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) re += pattern[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) return false;
      const body = pattern.slice(i + 1, end);
      re += '[' + (body.startsWith('^') ? '^' + body.slice(1) : body).replace(/\\/g, '\\\\') + ']';
      i = end;
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`).test(path);
}
