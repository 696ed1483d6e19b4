// Keys and JWS primitives for the io.jwt.* builtins: parsing verification keys
// from PEM certificates / public keys / JWK(S) (OPA's getKeysFromCertOrJWK),
// signing keys from JWK, and synchronous sign/verify through node:crypto.
import {
  constants,
  createHmac,
  createPrivateKey,
  createPublicKey,
  sign as cryptoSign,
  verify as cryptoVerify,
  X509Certificate as NodeX509,
  type KeyObject,
} from 'node:crypto';
import { BuiltinError } from './errors.js';
import { pemDecode } from './crypto-encoding.js';
import { goJSONCheckValid } from '../value/index.js';
import { constantTimeEqual } from './crypto.js';

/** A key usable for verification: an asymmetric public key or an HMAC secret. */
export type JwsKey = { kind: 'public'; key: KeyObject } | { kind: 'secret'; bytes: Buffer } | { kind: 'private'; key: KeyObject };

export interface VerificationKey {
  key: JwsKey;
  alg: string;
  kid: string;
}

export const TOKEN_ALGORITHMS = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'HS256', 'HS384', 'HS512', 'EdDSA']);

const HASH: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };

type Jwk = Record<string, unknown>;

function parseJwkJson(text: string): Jwk[] {
  const err = goJSONCheckValid(text);
  if (err !== undefined) throw new BuiltinError(`failed to parse a JWK key (set): ${err}`);
  const obj = JSON.parse(text) as unknown;
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new BuiltinError('failed to parse a JWK key (set): invalid JWK');
  const o = obj as Jwk;
  if (Array.isArray(o.keys)) return o.keys as Jwk[];
  return [o];
}

/** JWK → key (jwk.Import + Export). */
export function jwkToKey(jwk: Jwk): JwsKey {
  const kty = jwk.kty;
  if (kty === 'oct') {
    if (typeof jwk.k !== 'string') throw new BuiltinError('failed to parse JWK: required field k is missing');
    return { kind: 'secret', bytes: Buffer.from(jwk.k, 'base64url') };
  }
  if (kty !== 'RSA' && kty !== 'EC' && kty !== 'OKP') throw new BuiltinError(`failed to parse JWK: invalid key type "${String(kty)}"`);
  try {
    if (jwk.d !== undefined) return { kind: 'private', key: createPrivateKey({ key: jwk as never, format: 'jwk' }) };
    return { kind: 'public', key: createPublicKey({ key: jwk as never, format: 'jwk' }) };
  } catch (e) {
    throw new BuiltinError(`failed to parse JWK: ${(e as Error).message}`);
  }
}

/** getKeysFromCertOrJWK. */
export function keysFromCertOrJWK(text: string): VerificationKey[] {
  const { block, rest } = pemDecode(text);
  if (block) {
    if (rest.length > 0) throw new BuiltinError('extra data after a PEM certificate block');
    if (block.type === 'CERTIFICATE') {
      try {
        return [{ key: { kind: 'public', key: new NodeX509(block.bytes).publicKey }, alg: '', kid: '' }];
      } catch {
        throw new BuiltinError('failed to parse a PEM certificate: x509: malformed certificate');
      }
    }
    if (block.type === 'PUBLIC KEY') {
      try {
        return [{ key: { kind: 'public', key: createPublicKey({ key: block.bytes, format: 'der', type: 'spki' }) }, alg: '', kid: '' }];
      } catch {
        throw new BuiltinError('failed to parse a PEM public key: x509: malformed public key');
      }
    }
    throw new BuiltinError('failed to extract a Key from the PEM certificate');
  }
  const out: VerificationKey[] = [];
  for (const jwk of parseJwkJson(text)) {
    let key: JwsKey;
    try {
      key = jwkToKey(jwk);
    } catch (e) {
      throw new BuiltinError(`failed to parse a JWK key (set): ${(e as Error).message}`);
    }
    const alg = typeof jwk.alg === 'string' ? jwk.alg : '';
    if (alg !== '' && !TOKEN_ALGORITHMS.has(alg)) continue;
    out.push({ key, alg, kid: typeof jwk.kid === 'string' ? jwk.kid : '' });
  }
  return out;
}

/** First key of a JWK / JWK set, for signing. */
export function signingKeyFromJWK(text: string): JwsKey {
  const err = goJSONCheckValid(text);
  if (err !== undefined) throw new BuiltinError(`failed to parse JWK: ${err}`);
  const keys = parseJwkJson(text);
  if (keys.length === 0) throw new BuiltinError('no keys found in JWK set');
  return jwkToKey(keys[0]!);
}

function publicOf(k: JwsKey): KeyObject | undefined {
  if (k.kind === 'public') return k.key;
  if (k.kind === 'private') return createPublicKey(k.key);
  return undefined;
}

/** DER-encode an ECDSA signature given as r||s halves (Go splits at len/2). */
function ecdsaToDer(sig: Buffer): Buffer {
  const half = sig.length >> 1;
  const int = (b: Buffer): Buffer => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    let x = b.subarray(i);
    if (x.length === 0) x = Buffer.from([0]);
    if (x[0]! & 0x80) x = Buffer.concat([Buffer.from([0]), x]);
    return Buffer.concat([Buffer.from([0x02]), derLen(x.length), x]);
  };
  const body = Buffer.concat([int(sig.subarray(0, half)), int(sig.subarray(half))]);
  return Buffer.concat([Buffer.from([0x30]), derLen(body.length), body]);
}

function derLen(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let x = n; x > 0; x >>= 8) bytes.unshift(x & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** jwsbb.Verify: does `sig` verify `data` under `key` with JWS algorithm `alg`? */
export function jwsVerify(key: JwsKey, alg: string, data: Buffer, sig: Buffer): boolean {
  if (!TOKEN_ALGORITHMS.has(alg)) return false;
  const family = alg.slice(0, 2);
  const hash = HASH[alg.slice(2)];
  try {
    if (family === 'HS') {
      if (key.kind !== 'secret') return false;
      return constantTimeEqual(createHmac(hash!, key.bytes).update(data).digest(), sig);
    }
    const pub = publicOf(key);
    if (!pub) return false;
    const type = pub.asymmetricKeyType;
    if (alg === 'EdDSA') return type === 'ed25519' && cryptoVerify(null, data, pub, sig);
    if (family === 'RS') return type === 'rsa' && cryptoVerify(hash!, data, pub, sig);
    if (family === 'PS') {
      if (type !== 'rsa' && type !== 'rsa-pss') return false;
      return cryptoVerify(hash!, data, { key: pub, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, sig);
    }
    if (family === 'ES') {
      if (type !== 'ec' || sig.length < 2) return false;
      return cryptoVerify(hash!, data, { key: pub, dsaEncoding: 'der' }, ecdsaToDer(sig));
    }
  } catch {
    return false;
  }
  return false;
}

/** jwsbb.Sign: sign `data` with `key` for JWS algorithm `alg`. */
export function jwsSign(key: JwsKey, alg: string, data: Buffer): Buffer {
  const family = alg.slice(0, 2);
  const hash = HASH[alg.slice(2)];
  if (family === 'HS') {
    if (key.kind !== 'secret') throw new BuiltinError(`failed to sign payload: invalid key type for ${alg}`);
    return createHmac(hash!, key.bytes).update(data).digest();
  }
  if (key.kind !== 'private') throw new BuiltinError(`failed to sign payload: invalid key type for ${alg}`);
  const type = key.key.asymmetricKeyType;
  try {
    if (alg === 'EdDSA' && type === 'ed25519') return cryptoSign(null, data, key.key);
    if (family === 'RS' && type === 'rsa') return cryptoSign(hash!, data, key.key);
    if (family === 'PS' && type === 'rsa') {
      return cryptoSign(hash!, data, { key: key.key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
    }
    if (family === 'ES' && type === 'ec') return cryptoSign(hash!, data, { key: key.key, dsaEncoding: 'ieee-p1363' });
  } catch (e) {
    throw new BuiltinError(`failed to sign payload: ${(e as Error).message}`);
  }
  throw new BuiltinError(`failed to sign payload: invalid key type for ${alg}`);
}
