// Builtins of the `io.jwt` family: decoding, signature verification (HS/RS/PS/
// ES/EdDSA), full decode_verify with constraints, and signing. Messages follow
// OPA's topdown/tokens.go. All signature work is synchronous node:crypto.
import { createHmac } from 'node:crypto';
import type { BuiltinContext, BuiltinDef, BuiltinImpl, TypeSpec } from './types.js';
import { T } from './types.js';
import { asObject, asString } from './args.js';
import { BuiltinError } from './errors.js';
import { compareNumbers, goJSONCheckValid, isNumber, RObject, type RNumber, type Value } from '../value/index.js';
import { Base64Error, opaBase64UrlDecode } from './crypto-encoding.js';
import { goJSONMarshal, goJSONParse } from './jwt-json.js';
import { jwsSign, jwsVerify, keysFromCertOrJWK, signingKeyFromJWK, TOKEN_ALGORITHMS, type JwsKey, type VerificationKey } from './jwt-keys.js';
import { constantTimeEqual } from './crypto.js';

interface Token {
  header: string;
  payload: string;
  signature: string;
}

function decodeJWT(v: Value): Token {
  const s = asString(v, 1);
  if (!s.includes('.')) throw new BuiltinError('encoded JWT had no period separators');
  const parts = s.split('.');
  if (parts.length !== 3) throw new BuiltinError(`encoded JWT must have 3 sections, found ${parts.length}`);
  return { header: parts[0]!, payload: parts[1]!, signature: parts[2]! };
}

function b64(s: string, prefix: string): Buffer {
  try {
    return opaBase64UrlDecode(s);
  } catch (e) {
    if (e instanceof Base64Error || e instanceof BuiltinError) throw new BuiltinError(prefix + e.message);
    throw e;
  }
}

function extractJSONObject(s: string): RObject {
  let v: Value;
  try {
    v = goJSONParse(s);
  } catch (e) {
    throw new BuiltinError(`invalid JSON: ${(e as Error).message}`);
  }
  if (!(v instanceof RObject)) throw new BuiltinError('decoded JSON type was not an Object');
  return v;
}

function decodeHeader(t: Token): RObject {
  const text = b64(t.header, 'JWT header had invalid encoding: ').toString('utf8');
  let h: RObject;
  try {
    h = extractJSONObject(text);
  } catch (e) {
    throw new BuiltinError(`bad JWT header: ${(e as Error).message}`);
  }
  if (h.getStr('enc') !== undefined) throw new BuiltinError('JWT is a JWE object, which is not supported');
  return h;
}

const decodeSignature = (t: Token): Buffer => b64(t.signature, '');

function jwtDecode(v: Value): Value {
  const t = decodeJWT(v);
  const header = decodeHeader(t);
  let p = b64(t.payload, 'JWT payload had invalid encoding: ').toString('utf8');
  const cty = header.getStr('cty');
  if (typeof cty === 'string' && cty === 'JWT') {
    p = p.replace(/^["']+|["']+$/g, '');
    return jwtDecode(p);
  }
  const payload = extractJSONObject(p);
  const sig = b64(t.signature, 'JWT signature had invalid encoding: ');
  return [header, payload, sig.toString('hex')];
}

interface TokenHeader {
  alg: string;
  kid: string;
  typ: string;
  cty: string;
  crit: Set<string>;
  unknown: string[];
}

function parseTokenHeader(h: RObject): TokenHeader {
  const out: TokenHeader = { alg: '', kid: '', typ: '', cty: '', crit: new Set(), unknown: [] };
  for (const [k, v] of h.entries()) {
    const ks = k as string;
    if (ks === 'alg' || ks === 'kid' || ks === 'typ' || ks === 'cty') {
      if (typeof v !== 'string') throw new BuiltinError(`${ks}: must be a string`);
      out[ks] = v;
    } else if (ks === 'crit') {
      if (!Array.isArray(v)) throw new BuiltinError('crit: must be a list');
      for (const e of v) if (typeof e === 'string') out.crit.add(e);
      if (out.crit.size === 0) throw new BuiltinError('crit: must be a nonempty list');
    } else out.unknown.push(ks);
  }
  return out;
}

const headerValid = (h: TokenHeader): boolean => h.alg !== '' && !h.unknown.some((u) => h.crit.has(u));

/** verify_{rs,ps,es}{256,384,512} and verify_eddsa. */
function verifyWithKey(alg: string): BuiltinImpl {
  return ([jwt, cert]) => {
    const t = decodeJWT(jwt!);
    const keys = keysFromCertOrJWK(asString(cert!, 2));
    const sig = decodeSignature(t);
    const header = parseTokenHeader(decodeHeader(t));
    const data = Buffer.from(`${t.header}.${t.payload}`, 'utf8');
    const check = (k: VerificationKey) => jwsVerify(k.key, alg, data, sig);
    if (header.kid !== '') {
      const k = keys.find((x) => x.kid === header.kid);
      if (k) return check(k);
    }
    for (const k of keys) {
      if (k.alg !== '' && k.alg !== header.alg) continue;
      if (check(k)) return true;
    }
    return false;
  };
}

function verifyHS(hash: string): BuiltinImpl {
  return ([jwt, secret]) => {
    asString(jwt!, 1);
    const s = asString(secret!, 2);
    const t = decodeJWT(jwt!);
    const mac = createHmac(hash, Buffer.from(s, 'utf8')).update(`${t.header}.${t.payload}`, 'utf8').digest();
    return constantTimeEqual(decodeSignature(t), mac);
  };
}

interface Constraints {
  secret: string;
  alg: string;
  iss: string;
  aud: string;
  keys?: VerificationKey[];
  time: number;
}

function timeFromValue(v: Value): number {
  if (!isNumber(v)) throw new BuiltinError('token time constraint: must be a number');
  const f = typeof v === 'number' ? v : v.dec.toNumber();
  if (!Number.isFinite(f)) throw new BuiltinError('token time constraint: unvalid float64');
  if (f < 0) throw new BuiltinError('token time constraint: must not be negative');
  return f;
}

function parseConstraints(o: RObject, ctx: BuiltinContext): Constraints {
  const c: Constraints = { secret: '', alg: '', iss: '', aud: '', time: -1 };
  for (const [k, v] of o.entries()) {
    const name = String(k);
    switch (name) {
      case 'cert':
        if (typeof v !== 'string') throw new BuiltinError('cert constraint: must be a string');
        c.keys = keysFromCertOrJWK(v);
        break;
      case 'secret':
      case 'alg':
      case 'iss':
      case 'aud':
        if (typeof v !== 'string') throw new BuiltinError(`${name} constraint: must be a string`);
        c[name] = v;
        break;
      case 'time':
        c.time = timeFromValue(v);
        break;
      default:
        throw new BuiltinError(`unknown token validation constraint: ${name}`);
    }
  }
  if (c.time === -1) c.time = Number(ctx.nowNs);
  const n = (c.keys !== undefined ? 1 : 0) + (c.secret !== '' ? 1 : 0);
  if (n > 1) throw new BuiltinError('duplicate key constraints');
  if (n < 1) throw new BuiltinError('no key constraint');
  return c;
}

function constraintsVerify(c: Constraints, h: TokenHeader, data: Buffer, sig: Buffer): boolean {
  if (c.keys !== undefined) {
    if (h.kid !== '') {
      const k = c.keys.find((x) => x.kid === h.kid);
      if (k) return jwsVerify(k.key, h.alg, data, sig);
    }
    return c.keys.some((k) => (k.alg === '' || k.alg === h.alg) && jwsVerify(k.key, h.alg, data, sig));
  }
  const secret: JwsKey = { kind: 'secret', bytes: Buffer.from(c.secret, 'utf8') };
  return jwsVerify(secret, h.alg, data, sig);
}

function validAudience(c: Constraints, aud: Value): boolean {
  if (typeof aud === 'string') return aud === c.aud;
  if (!Array.isArray(aud)) return false;
  return aud.some((e) => typeof e === 'string' && e === c.aud);
}

const UNVERIFIED: Value = [false, new RObject(), new RObject()];

function decodeVerify(args: Value[], ctx: BuiltinContext): Value {
  let a = args[0]!;
  const c = parseConstraints(asObject(args[1]!, 2), ctx);
  let token: Token;
  let p: Buffer;
  for (;;) {
    token = decodeJWT(a);
    const rawHeader = decodeHeader(token);
    const h = parseTokenHeader(rawHeader);
    if (!headerValid(h)) return UNVERIFIED;
    if (c.alg !== '' && c.alg !== h.alg) return UNVERIFIED;
    const sig = decodeSignature(token);
    if (!constraintsVerify(c, h, Buffer.from(`${token.header}.${token.payload}`, 'utf8'), sig)) return UNVERIFIED;
    p = b64(token.payload, 'JWT payload had invalid encoding: ');
    if (h.cty.toLowerCase() === 'jwt') {
      a = p.toString('utf8');
      continue;
    }
    const payload = extractJSONObject(p.toString('utf8'));
    return checkClaims(c, rawHeader, payload);
  }
}

function checkClaims(c: Constraints, header: RObject, payload: RObject): Value {
  if (c.iss !== '') {
    const iss = payload.getStr('iss');
    if (typeof iss !== 'string' || iss !== c.iss) return UNVERIFIED;
  }
  const aud = payload.getStr('aud');
  if (aud !== undefined) {
    if (!validAudience(c, aud)) return UNVERIFIED;
  } else if (c.aud !== '') return UNVERIFIED;
  const now = c.time / 1e9;
  const exp = payload.getStr('exp');
  if (exp !== undefined) {
    if (!isNumber(exp)) throw new BuiltinError('exp value must be a number');
    if (compareNumbers(now, exp as RNumber) !== -1) return UNVERIFIED;
  }
  const nbf = payload.getStr('nbf');
  if (nbf !== undefined) {
    if (!isNumber(nbf)) throw new BuiltinError('nbf value must be a number');
    if (compareNumbers(now, nbf as RNumber) === -1) return UNVERIFIED;
  }
  return [true, header, payload];
}

/** commonBuiltinJWTEncodeSign. */
function encodeSign(headers: string, payload: string, jwk: string): string {
  const key = signingKeyFromJWK(jwk);
  if (headers === '') throw new BuiltinError("missing or invalid 'alg' header: cannot parse JSON: cannot parse empty string");
  const err = goJSONCheckValid(headers);
  if (err !== undefined) throw new BuiltinError(`missing or invalid 'alg' header: ${err}`);
  const h = JSON.parse(headers) as unknown;
  const alg = h !== null && typeof h === 'object' && !Array.isArray(h) ? (h as Record<string, unknown>).alg : undefined;
  if (alg === undefined) throw new BuiltinError('unsupported signature algorithm ""');
  if (typeof alg !== 'string') throw new BuiltinError("missing or invalid 'alg' header: value is not a string");
  if (!TOKEN_ALGORITHMS.has(alg)) throw new BuiltinError(`unknown JWS algorithm: ${alg}`);
  const typ = (h as Record<string, unknown>).typ;
  if ((typeof typ !== 'string' || typ === 'JWT') && goJSONCheckValid(payload) !== undefined) {
    throw new BuiltinError('type is JWT but payload is not JSON');
  }
  const signing = `${Buffer.from(headers, 'utf8').toString('base64url')}.${Buffer.from(payload, 'utf8').toString('base64url')}`;
  const sig = jwsSign(key, alg, Buffer.from(signing, 'utf8'));
  return `${signing}.${sig.toString('base64url')}`;
}

const OBJ = T.objectOf(T.string, T.any);
const OBJ_ANY = T.objectOf(T.any, T.any);
const d = (name: string, args: TypeSpec[], result: TypeSpec, impl: BuiltinImpl, nondeterministic = false): BuiltinDef => ({
  decl: { name, args, result, categories: ['tokens'], ...(nondeterministic ? { nondeterministic: true } : {}) },
  impl,
});

const verifiers: BuiltinDef[] = [];
for (const bits of ['256', '384', '512']) {
  for (const fam of ['rs', 'ps', 'es']) verifiers.push(d(`io.jwt.verify_${fam}${bits}`, [T.string, T.string], T.boolean, verifyWithKey(`${fam.toUpperCase()}${bits}`)));
  verifiers.push(d(`io.jwt.verify_hs${bits}`, [T.string, T.string], T.boolean, verifyHS(`sha${bits}`)));
}

export const builtins: BuiltinDef[] = [
  // Types and flags as OPA's capabilities files (v1.0.0 to v1.20.2): the decoded
  // header and payload are object[any: any], the constraints object[string: any];
  // decode_verify and the signers are nondeterministic (time, random keys).
  d('io.jwt.decode', [T.string], T.tuple(OBJ_ANY, OBJ_ANY, T.string), ([a]) => jwtDecode(a!)),
  d('io.jwt.decode_verify', [T.string, OBJ], T.tuple(T.boolean, OBJ_ANY, OBJ_ANY), decodeVerify, true),
  ...verifiers,
  d('io.jwt.verify_eddsa', [T.string, T.string], T.boolean, verifyWithKey('EdDSA')),
  d('io.jwt.encode_sign', [OBJ, OBJ, OBJ], T.string, ([h, p, k]) =>
    encodeSign(goJSONMarshal(asObject(h!, 1)), goJSONMarshal(asObject(p!, 2)), goJSONMarshal(asObject(k!, 3))),
  true),
  d('io.jwt.encode_sign_raw', [T.string, T.string, T.string], T.string, ([h, p, k]) => {
    const jwk = asString(k!, 3);
    return encodeSign(asString(h!, 1), asString(p!, 2), jwk);
  }, true),
];
