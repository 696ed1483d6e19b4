// Keys for bundle signing and verification, from OPA's `keys` config
// (`keys.<id>.{key | private_key, algorithm, scope}`) or the CLI. HMAC keys are
// the raw secret; the others are PEM (public key, certificate or private key,
// PKCS#1/PKCS#8/SEC1) parsed by node:crypto. Only OPA's algorithms are accepted.
import { createPrivateKey, createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { BundleError } from './errors.js';

export const SIGNATURE_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'HS256', 'HS384', 'HS512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'] as const;
export type SignatureAlgorithm = (typeof SIGNATURE_ALGORITHMS)[number];
export const DEFAULT_SIGNATURE_ALGORITHM: SignatureAlgorithm = 'RS256';

/** One entry of the config's `keys` section. */
export interface KeyConfig {
  /** Public key (PEM) or HMAC secret used to verify. */
  key?: string;
  /** Private key (PEM) or HMAC secret used to sign. */
  private_key?: string;
  algorithm?: string;
  scope?: string;
}

export function checkAlgorithm(alg: string, kind: 'signing' | 'verification' = 'verification'): SignatureAlgorithm {
  if (!(SIGNATURE_ALGORITHMS as readonly string[]).includes(alg)) {
    throw new BundleError(kind === 'signing' ? 'signing' : 'signature', `unknown signature algorithm: ${alg}`);
  }
  return alg as SignatureAlgorithm;
}

const isHMAC = (alg: string): boolean => alg.startsWith('HS');

/** The key that verifies signatures made with `alg`. */
export function verificationKey(material: string, alg: string): KeyObject {
  checkAlgorithm(alg);
  if (isHMAC(alg) || !material.includes('-----BEGIN')) return createSecretKey(Buffer.from(material, 'utf8'));
  try {
    return createPublicKey(material);
  } catch (e) {
    throw new BundleError('signature', `failed to parse verification key: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * The key that signs with `alg`. `material` is PEM text, a path to a PEM file
 * (as `opa build --signing-key`), or for HMAC the secret itself.
 */
export function signingKey(material: string, alg: string): KeyObject {
  checkAlgorithm(alg, 'signing');
  let data = material;
  if (!material.startsWith('-----BEGIN') && material.length < 4096 && existsSync(material) && statSync(material).isFile()) {
    data = readFileSync(material, 'utf8');
  }
  if (isHMAC(alg)) return createSecretKey(Buffer.from(data, 'utf8'));
  if (!data.includes('-----BEGIN')) throw new BundleError('signing', 'failed to parse PEM block containing the key');
  try {
    return createPrivateKey(data);
  } catch (e) {
    throw new BundleError('signing', `failed to parse signing key: ${e instanceof Error ? e.message : String(e)}`);
  }
}
