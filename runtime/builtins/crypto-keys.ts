// Certificate-chain verification and private-key parsing for the crypto.*
// builtins (the parts of OPA's crypto.go beyond plain hashing). Signature checks
// and key decoding are done by node:crypto.
import { createPrivateKey, X509Certificate as NodeX509, type KeyObject } from 'node:crypto';
import { BuiltinError } from './errors.js';
import { certToJS } from './crypto-x509.js';
import { goBase64Decode, pemDecode, splitDer } from './crypto-encoding.js';

/** getX509CertsFromString: PEM, base64 PEM or base64 DER → DER buffers. */
export function certsFromString(input: string): Buffer[] {
  if (input.startsWith('-----BEGIN')) return certsFromPem(input);
  let raw: Buffer;
  try {
    raw = goBase64Decode(input);
  } catch (e) {
    throw new BuiltinError((e as Error).message);
  }
  if (raw.subarray(0, 10).toString('latin1') === '-----BEGIN') return certsFromPem(raw.toString('utf8'));
  return parseDerCerts(raw);
}

function certsFromPem(pem: string): Buffer[] {
  const chunks: Buffer[] = [];
  let rest = pem;
  while (rest.length > 0) {
    const { block, rest: r } = pemDecode(rest);
    if (!block) break;
    if (block.type !== 'CERTIFICATE') throw new BuiltinError(`PEM block type is '${block.type}', expected CERTIFICATE`);
    chunks.push(block.bytes);
    rest = r;
  }
  return parseDerCerts(Buffer.concat(chunks));
}

function parseDerCerts(der: Buffer): Buffer[] {
  let parts: Buffer[];
  try {
    parts = splitDer(der);
    for (const p of parts) new NodeX509(p);
  } catch {
    throw new BuiltinError('x509: malformed certificate');
  }
  return parts;
}

export interface VerifyOptions {
  dnsName?: string;
  currentTime?: Date;
  keyUsages?: number[];
}

const EKU_OIDS = [
  '2.5.29.37.0',
  '1.3.6.1.5.5.7.3.1',
  '1.3.6.1.5.5.7.3.2',
  '1.3.6.1.5.5.7.3.3',
  '1.3.6.1.5.5.7.3.4',
  '1.3.6.1.5.5.7.3.5',
  '1.3.6.1.5.5.7.3.6',
  '1.3.6.1.5.5.7.3.7',
  '1.3.6.1.5.5.7.3.8',
  '1.3.6.1.5.5.7.3.9',
  '1.3.6.1.4.1.311.10.3.3',
  '2.16.840.1.113730.4.1',
  '1.3.6.1.4.1.311.2.1.22',
  '1.3.6.1.4.1.311.61.1.1',
];

function issued(parent: NodeX509, child: NodeX509): boolean {
  try {
    return child.checkIssued(parent) && child.verify(parent.publicKey);
  } catch {
    return false;
  }
}

function timeValid(c: NodeX509, now: Date): boolean {
  return new Date(c.validFrom) <= now && now <= new Date(c.validTo);
}

/**
 * verifyX509CertificateChain: the first certificate is the root, the last the
 * leaf, the rest intermediates. Returns the verified chain, leaf first, or
 * undefined when verification fails.
 */
export function verifyChain(ders: Buffer[], opts: VerifyOptions): Buffer[] | undefined {
  if (ders.length < 2) return undefined;
  const certs = ders.map((d) => new NodeX509(d));
  const now = opts.currentTime ?? new Date();
  const root = certs[0]!;
  const leaf = certs[certs.length - 1]!;
  const inter = certs.slice(1, -1).map((c, i) => ({ c, i: i + 1 }));
  if (!timeValid(leaf, now)) return undefined;
  if (opts.dnsName && leaf.checkHost(opts.dnsName) === undefined) return undefined;
  const usages = opts.keyUsages && opts.keyUsages.length ? opts.keyUsages : [1];
  const chain = [certs.length - 1];
  let cur = leaf;
  const used = new Set<number>();
  for (let depth = 0; depth <= certs.length; depth++) {
    if (issued(root, cur)) {
      if (!timeValid(root, now)) return undefined;
      chain.push(0);
      break;
    }
    const next = inter.find(({ c, i }) => !used.has(i) && c.ca && timeValid(c, now) && issued(c, cur));
    if (!next) return undefined;
    used.add(next.i);
    chain.push(next.i);
    cur = next.c;
  }
  if (chain[chain.length - 1] !== 0) return undefined;
  // Extended key usage: every certificate that restricts EKUs must allow one requested.
  if (!usages.includes(0)) {
    for (const idx of chain) {
      const eku = certs[idx]!.keyUsage;
      if (!eku || eku.length === 0 || eku.includes(EKU_OIDS[0]!)) continue;
      if (!usages.some((u) => eku.includes(EKU_OIDS[u]!))) return undefined;
    }
  }
  return chain.map((i) => ders[i]!);
}

export const certsToJS = (ders: Buffer[]): unknown[] => ders.map(certToJS);

const PEM_KEY_TYPES: Record<string, 'pkcs1' | 'pkcs8' | 'sec1'> = {
  'RSA PRIVATE KEY': 'pkcs1',
  'PRIVATE KEY': 'pkcs8',
  'EC PRIVATE KEY': 'sec1',
};

/** getPrivateKeysFromPEMData: every private-key PEM block, decoded. */
export function privateKeysFromPem(data: string): KeyObject[] {
  let text = data;
  try {
    text = goBase64Decode(data).toString('utf8');
  } catch {
    /* not base64: use as is */
  }
  const keys: KeyObject[] = [];
  let rest = text;
  while (rest.length > 0) {
    const before = rest.length;
    const { block, rest: r } = pemDecode(rest);
    rest = r;
    if (!block || rest.length === before) break;
    const type = PEM_KEY_TYPES[block.type];
    if (!type) continue;
    try {
      keys.push(createPrivateKey({ key: block.bytes, format: 'der', type }));
    } catch {
      throw new BuiltinError(keyParseError(type));
    }
  }
  return keys;
}

function keyParseError(type: string): string {
  if (type === 'pkcs1') return 'x509: failed to parse private key (use ParsePKCS8PrivateKey instead for this key format)';
  if (type === 'sec1') return 'x509: failed to parse EC private key';
  return 'x509: failed to parse private key';
}

const big = (s: string | undefined): bigint => BigInt('0x' + (Buffer.from(s ?? '', 'base64url').toString('hex') || '0'));

/** Go's json.Marshal of an *rsa.PrivateKey / *ecdsa.PrivateKey / ed25519.PrivateKey. */
export function privateKeyToGoJS(k: KeyObject): unknown {
  const jwk = k.export({ format: 'jwk' }) as Record<string, string>;
  if (jwk.kty === 'RSA') {
    return {
      N: big(jwk.n),
      E: Number(big(jwk.e)),
      D: big(jwk.d),
      Primes: [big(jwk.p), big(jwk.q)],
      Precomputed: { Dp: big(jwk.dp), Dq: big(jwk.dq), Qinv: big(jwk.qi), CRTValues: [] },
    };
  }
  if (jwk.kty === 'EC') return { Curve: {}, X: big(jwk.x), Y: big(jwk.y), D: big(jwk.d) };
  if (jwk.kty === 'OKP') return Buffer.concat([Buffer.from(jwk.d!, 'base64url'), Buffer.from(jwk.x!, 'base64url')]).toString('base64');
  return {};
}
