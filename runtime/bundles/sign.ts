// Bundle signing (OPA's sign.go and Bundle.GenerateSignature): list every file
// the writer will emit — modules (raw bytes), /data.json and /.manifest
// (canonical JSON digests) — with SHA-256 digests, and sign the list as a
// compact JWS: payload `{"files":[…]}` plus either the claims file's claims or
// the deprecated `keyid` claim, protected header `{alg, kid}`. jose signs.
import type { Bundle } from './types.js';
import { BundleError, messageOf } from './errors.js';
import { DEFAULT_HASH_ALGORITHM, hashBytes, hashValue } from './hash.js';
import { checkAlgorithm, DEFAULT_SIGNATURE_ALGORITHM, signingKey } from './keys.js';
import { manifestIsEmpty, manifestToJSON } from './manifest.js';
import type { FileInfo, SignaturesConfig } from './verify.js';
import { parseJSON } from '../value/index.js';

export interface SigningOptions {
  /** PEM text, a path to a PEM file, or (HS*) the secret. */
  key: string;
  /** Default RS256. */
  algorithm?: string;
  /** Written as the JWS `kid` header (and the `keyid` claim when no claims are given). */
  keyId?: string;
  /** Extra claims (e.g. from `--claims-file`); they replace the `keyid` claim. */
  claims?: Record<string, unknown>;
}

const bare = (p: string): string => p.replace(/^\/+/, '');

/** The file list OPA signs for a bundle, in its order. */
export function bundleFileInfos(bundle: Bundle): FileInfo[] {
  const alg = DEFAULT_HASH_ALGORITHM;
  const files: FileInfo[] = bundle.modules.map((m) => ({ name: bare(m.path), hash: hashBytes(alg, m.text), algorithm: alg }));
  files.push({ name: 'data.json', hash: hashValue(alg, bundle.data), algorithm: alg });
  if (!manifestIsEmpty(bundle.manifest)) {
    files.push({ name: '.manifest', hash: hashValue(alg, parseJSON(manifestToJSON(bundle.manifest))), algorithm: alg });
  }
  return files;
}

/** Sign a file list; returns the compact JWS. */
export async function signFiles(files: FileInfo[], opts: SigningOptions): Promise<string> {
  const alg = checkAlgorithm(opts.algorithm ?? DEFAULT_SIGNATURE_ALGORITHM, 'signing');
  const key = signingKey(opts.key, alg);
  const payload: Record<string, unknown> = { files: files.map((f) => ({ name: f.name, hash: f.hash, algorithm: f.algorithm })) };
  if (opts.claims !== undefined) Object.assign(payload, opts.claims);
  else if (opts.keyId) payload.keyid = opts.keyId;
  const sorted = Object.fromEntries(Object.keys(payload).sort().map((k) => [k, payload[k]]));
  const header: { alg: string; kid?: string } = { alg };
  if (opts.keyId) header.kid = opts.keyId;
  const { CompactSign } = await import('jose'); // loaded on first use: CLI start-up
  try {
    return await new CompactSign(Buffer.from(JSON.stringify(sorted), 'utf8')).setProtectedHeader(header).sign(key);
  } catch (e) {
    throw new BundleError('signing', `failed to sign bundle: ${messageOf(e)}`);
  }
}

/** Sign a bundle: returns a copy carrying `.signatures.json` content. */
export async function signBundle(bundle: Bundle, opts: SigningOptions): Promise<Bundle> {
  const token = await signFiles(bundleFileInfos(bundle), opts);
  const signatures: SignaturesConfig = { signatures: [token] };
  return { ...bundle, signatures };
}
