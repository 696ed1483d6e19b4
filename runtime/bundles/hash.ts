// File digests for bundle signatures (OPA's hash.go). Unstructured files (Rego,
// wasm, anything else) hash their raw bytes. Structured files (data.json,
// data.yaml, .manifest) hash a canonical JSON walk of their parsed value: object
// keys sorted bytewise, no whitespace, strings encoded as Go's encoding/json
// does with HTML escaping off — so a signature does not depend on formatting.
import { createHash, type Hash } from 'node:crypto';
import { loadYAML } from '../value/yaml-lib.js';
import { BigNum, RObject, RSet, formatNumber, fromJS, parseJSON, type Value } from '../value/index.js';
import { BundleError } from './errors.js';

/** OPA's hashing algorithm names → node:crypto digest names. */
const ALGORITHMS: Record<string, string> = {
  MD5: 'md5',
  'SHA-1': 'sha1',
  'SHA-224': 'sha224',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
  'SHA-512-224': 'sha512-224',
  'SHA-512-256': 'sha512-256',
};

export const DEFAULT_HASH_ALGORITHM = 'SHA-256';

export function isSupportedHashAlgorithm(alg: string): boolean {
  return Object.hasOwn(ALGORITHMS, alg);
}

function newHash(alg: string): Hash {
  const name = Object.hasOwn(ALGORITHMS, alg) ? ALGORITHMS[alg] : undefined;
  if (name === undefined) throw new BundleError('signature', `unsupported hashing algorithm: ${alg}`);
  return createHash(name);
}

/** Files whose digest is taken over their parsed value (OPA's IsStructuredDoc). */
export function isStructuredDoc(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base === 'data.json' || base === 'data.yaml' || base === 'signatures.json' || base === '.manifest';
}

/** A JSON string as Go's encoder writes it with SetEscapeHTML(false). */
function goString(s: string): string {
  return JSON.stringify(s).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function walk(v: Value, h: Hash): void {
  if (v === null) h.update('null');
  else if (typeof v === 'boolean') h.update(v ? 'true' : 'false');
  else if (typeof v === 'number' || v instanceof BigNum) h.update(formatNumber(v));
  else if (typeof v === 'string') h.update(goString(v));
  else if (Array.isArray(v) || v instanceof RSet) {
    const items = Array.isArray(v) ? v : v.values();
    h.update('[');
    items.forEach((x, i) => {
      if (i > 0) h.update(',');
      walk(x, h);
    });
    h.update(']');
  } else if (v instanceof RObject) {
    const entries = v.entries().map(([k, x]) => [typeof k === 'string' ? k : JSON.stringify(k), x] as const);
    entries.sort((a, b) => byteCompare(a[0], b[0]));
    h.update('{');
    entries.forEach(([k, x], i) => {
      if (i > 0) h.update(',');
      h.update(goString(k));
      h.update(':');
      walk(x, h);
    });
    h.update('}');
  }
}

/** Hex digest of a structured value. */
export function hashValue(alg: string, v: Value): string {
  const h = newHash(alg);
  walk(v, h);
  return h.digest('hex');
}

/** Hex digest of raw bytes. */
export function hashBytes(alg: string, bytes: Uint8Array | string): string {
  return newHash(alg).update(bytes).digest('hex');
}

/** Parse a structured document (JSON or YAML by name) for hashing. */
export function parseStructured(path: string, bytes: Uint8Array): Value {
  const text = Buffer.from(bytes).toString('utf8');
  if (path.endsWith('.yaml') || path.endsWith('.yml')) return fromJS(loadYAML(text) ?? null);
  return text.trim() === '' ? null : parseJSON(text);
}

/** Digest of a bundle file as OPA computes it for `.signatures.json`. */
export function hashBundleFile(alg: string, path: string, bytes: Uint8Array): string {
  if (isStructuredDoc(path)) return hashValue(alg, parseStructured(path, bytes));
  return hashBytes(alg, bytes);
}
