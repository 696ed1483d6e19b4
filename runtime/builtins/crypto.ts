// Builtins of the `crypto` family: digests, HMACs, X.509 certificate / CSR / key
// parsing and chain verification. Output shapes follow OPA (Go's JSON encoding
// of x509.Certificate etc.); the crypto itself is node:crypto.
import { createHash, createHmac, createPrivateKey, createPublicKey, timingSafeEqual, X509Certificate as NodeX509 } from 'node:crypto';
import type { BuiltinDef, BuiltinImpl, TypeSpec } from './types.js';
import { T } from './types.js';
import { asObject, asString } from './args.js';
import { BuiltinError, operandError } from './errors.js';
import { fromJS, type Value } from '../value/index.js';
import { BigNum } from '../value/number.js';
import { RObject, RSet } from '../value/collections.js';
import { b64OrError, goBase64Decode, pemDecode, splitDer } from './crypto-encoding.js';
import { certsFromString, certsToValue, parseCert, privateKeysFromPem, privateKeyToGoJS, verifyChain, x509Error, type ParsedCert, type VerifyOptions } from './crypto-keys.js';
import { goValue } from '../x509/value.js';
import { x509 } from './x509-lazy.js';

const OBJ = T.objectOf(T.string, T.any);
const CERTS = T.arrayOf(OBJ);
const VERIFIED = T.tuple(T.boolean, CERTS);

function digest(alg: string): BuiltinImpl {
  return ([x]) => createHash(alg).update(asString(x!, 1), 'utf8').digest('hex');
}

function hmac(alg: string): BuiltinImpl {
  return ([x, k]) => {
    const msg = asString(x!, 1);
    const key = asString(k!, 2);
    return createHmac(alg, Buffer.from(key, 'utf8')).update(msg, 'utf8').digest('hex');
  };
}

/** Go's hmac.Equal: constant time, false when lengths differ. */
export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

const KEY_USAGES: Record<string, number> = {
  KeyUsageAny: 0,
  KeyUsageServerAuth: 1,
  KeyUsageClientAuth: 2,
  KeyUsageCodeSigning: 3,
  KeyUsageEmailProtection: 4,
  KeyUsageIPSECEndSystem: 5,
  KeyUsageIPSECTunnel: 6,
  KeyUsageIPSECUser: 7,
  KeyUsageTimeStamping: 8,
  KeyUsageOCSPSigning: 9,
  KeyUsageMicrosoftServerGatedCrypto: 10,
  KeyUsageNetscapeServerGatedCrypto: 11,
  KeyUsageMicrosoftCommercialCodeSigning: 12,
  KeyUsageMicrosoftKernelCodeSigning: 13,
};

function verifyOptions(o: RObject): VerifyOptions {
  const opts: VerifyOptions = {};
  for (const [k, v] of o.entries()) {
    if (typeof k !== 'string') continue;
    switch (k) {
      case 'DNSName':
        if (typeof v !== 'string') throw new BuiltinError("'DNSName' should be a string");
        opts.dnsName = v.replace(/^"+|"+$/g, '');
        break;
      case 'CurrentTime': {
        if (typeof v !== 'number' && !(v instanceof BigNum)) throw new BuiltinError("'CurrentTime' should be a number");
        const ns = typeof v === 'number' ? v : v.dec.toNumber();
        if (!Number.isInteger(ns)) throw new BuiltinError("'CurrentTime' should be a valid int64 number");
        opts.currentTime = new Date(ns / 1e6);
        break;
      }
      case 'MaxConstraintComparisons':
        if (typeof v !== 'number') throw new BuiltinError("'MaxConstraintComparisons' should be a number");
        if (!Number.isInteger(v)) throw new BuiltinError("'MaxConstraintComparisons' should be a valid number");
        break;
      case 'KeyUsages': {
        let items: Value[];
        if (Array.isArray(v)) items = v;
        else if (v instanceof RSet) items = v.values();
        else throw new BuiltinError("'KeyUsages' should be an Array or Set");
        const invalid: string[] = [];
        opts.keyUsages = [];
        for (const it of items) {
          if (typeof it !== 'string') continue;
          const name = it.replace(/^"+|"+$/g, '');
          const u = KEY_USAGES[name];
          if (u === undefined) invalid.push(name);
          else opts.keyUsages.push(u);
        }
        if (invalid.length) throw new BuiltinError(`invalid entries for 'KeyUsages' found: [${invalid.join(' ')}]`);
        break;
      }
      default:
        throw new BuiltinError('invalid key option');
    }
  }
  return opts;
}

const parseAndVerify =
  (withOptions: boolean): BuiltinImpl =>
  ([a, b]) => {
    const input = asString(a!, 1);
    const opts = withOptions ? asObject(b!, 2) : undefined;
    let certs: ParsedCert[];
    try {
      certs = certsFromString(input);
    } catch (e) {
      if (e instanceof BuiltinError) return [false, []];
      throw e;
    }
    if (certs.length < 2) return [false, []];
    const chain = verifyChain(certs, opts ? verifyOptions(opts) : {});
    if (!chain) return [false, []];
    // As in OPA, only the variant without options adds URIStrings (extendCertificates).
    return [true, withOptions ? goValue(chain.map((c) => c.go.json)) : certsToValue(chain)];
  };

/** Decode `s` as base64 unless it already starts with `-----BEGIN ` (tls key pair input). */
function pemOrBase64(s: string): string {
  if (s.startsWith('-----BEGIN ')) return s;
  return b64OrError(() => goBase64Decode(s)).toString('latin1');
}

function parseKeyPair(certIn: string, keyIn: string): Value {
  let certPem = pemOrBase64(certIn);
  let keyPem = pemOrBase64(keyIn);
  if (!certPem.startsWith('-----BEGIN ')) certPem = toPem('CERTIFICATE', Buffer.from(certPem, 'latin1'));
  if (!keyPem.startsWith('-----BEGIN')) keyPem = toPem('PRIVATE KEY', Buffer.from(keyPem, 'latin1'));
  const certs: Buffer[] = [];
  let rest = certPem;
  for (;;) {
    const { block, rest: r } = pemDecode(rest);
    if (!block) break;
    if (block.type === 'CERTIFICATE') certs.push(block.bytes);
    rest = r;
  }
  if (certs.length === 0) throw new BuiltinError('tls: failed to find any PEM data in certificate input');
  let keyBlock;
  rest = keyPem;
  for (;;) {
    const { block, rest: r } = pemDecode(rest);
    if (!block) break;
    if (block.type === 'PRIVATE KEY' || block.type.endsWith(' PRIVATE KEY')) {
      keyBlock = block;
      break;
    }
    rest = r;
  }
  if (!keyBlock) throw new BuiltinError('tls: failed to find any PEM data in key input');
  const leaf = parseCert(certs[0]!);
  let key;
  try {
    const type = keyBlock.type === 'RSA PRIVATE KEY' ? 'pkcs1' : keyBlock.type === 'EC PRIVATE KEY' ? 'sec1' : 'pkcs8';
    key = createPrivateKey({ key: keyBlock.bytes, format: 'der', type });
  } catch {
    throw new BuiltinError('tls: failed to parse private key');
  }
  const pub = createPublicKey(key).export({ format: 'der', type: 'spki' });
  if (!pub.equals(new NodeX509(leaf.der).publicKey.export({ format: 'der', type: 'spki' }))) {
    throw new BuiltinError('tls: private key does not match public key');
  }
  return fromJS({
    Certificate: certs.map((c) => c.toString('base64')),
    PrivateKey: privateKeyToGoJS(key),
    SupportedSignatureAlgorithms: null,
    OCSPStaple: null,
    SignedCertificateTimestamps: null,
    Leaf: goValue(leaf.go.json),
  });
}

function toPem(type: string, der: Buffer): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${type}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${type}-----\n`;
}

function parseCSR(input: string): Value {
  let bytes: Buffer = Buffer.from(input, 'utf8');
  if (!input.startsWith('-----BEGIN CERTIFICATE REQUEST-----')) bytes = b64OrError(() => goBase64Decode(input));
  const { block } = pemDecode(bytes.toString('latin1'));
  if (block && block.type !== 'CERTIFICATE REQUEST') throw new BuiltinError('invalid PEM-encoded certificate signing request');
  if (block) bytes = block.bytes;
  try {
    if (splitDer(bytes).length !== 1) throw new Error('trailing data');
    return goValue(x509().goCertificateRequest(bytes));
  } catch (e) {
    throw x509Error(e, 'x509: malformed certificate request');
  }
}

function parseRSAPrivateKey(input: string): Value {
  if (input === '') throw new BuiltinError('input PEM data was empty');
  let pem = input;
  if (!input.startsWith('-----BEGIN')) pem = b64OrError(() => goBase64Decode(input)).toString('utf8');
  const keys = privateKeysFromPem(pem);
  if (keys.length === 0) return null;
  const jwk = keys[0]!.export({ format: 'jwk' });
  return fromJS(jwk);
}

function parsePrivateKeys(input: string): Value {
  if (input === '') return null;
  const keys = privateKeysFromPem(input);
  if (keys.length === 0) return [];
  return fromJS(keys.map(privateKeyToGoJS));
}

const d = (name: string, args: TypeSpec[], result: TypeSpec, impl: BuiltinImpl, description?: string): BuiltinDef => ({
  decl: { name, args, result, categories: ['crypto'], description },
  impl,
});

export const builtins: BuiltinDef[] = [
  d('crypto.md5', [T.string], T.string, digest('md5'), 'Returns a string representing the input string hashed with the MD5 function'),
  d('crypto.sha1', [T.string], T.string, digest('sha1'), 'Returns a string representing the input string hashed with the SHA1 function'),
  d('crypto.sha256', [T.string], T.string, digest('sha256'), 'Returns a string representing the input string hashed with the SHA256 function'),
  d('crypto.hmac.md5', [T.string, T.string], T.string, hmac('md5')),
  d('crypto.hmac.sha1', [T.string, T.string], T.string, hmac('sha1')),
  d('crypto.hmac.sha256', [T.string, T.string], T.string, hmac('sha256')),
  d('crypto.hmac.sha512', [T.string, T.string], T.string, hmac('sha512')),
  d('crypto.hmac.equal', [T.string, T.string], T.boolean, ([a, b]) =>
    constantTimeEqual(Buffer.from(asString(a!, 1), 'utf8'), Buffer.from(asString(b!, 2), 'utf8')),
  ),
  d('crypto.x509.parse_certificates', [T.string], CERTS, ([a]) => certsToValue(certsFromString(asString(a!, 1)))),
  d('crypto.x509.parse_and_verify_certificates', [T.string], VERIFIED, parseAndVerify(false)),
  d('crypto.x509.parse_and_verify_certificates_with_options', [T.string, OBJ], VERIFIED, parseAndVerify(true)),
  d('crypto.x509.parse_certificate_request', [T.string], OBJ, ([a]) => parseCSR(asString(a!, 1))),
  d('crypto.x509.parse_keypair', [T.string, T.string], OBJ, ([c, k]) => {
    const cert = asString(c!, 1);
    if (typeof k !== 'string') throw operandError(1, 'string', k!);
    return parseKeyPair(cert, k);
  }),
  d('crypto.x509.parse_rsa_private_key', [T.string], OBJ, ([a]) => parseRSAPrivateKey(asString(a!, 1))),
  d('crypto.parse_private_keys', [T.string], T.arrayOf(OBJ), ([a]) => parsePrivateKeys(asString(a!, 1))),
];

