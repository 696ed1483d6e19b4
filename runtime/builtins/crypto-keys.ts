// Certificate parsing and chain verification and private-key parsing for the
// crypto.* builtins (the parts of OPA's crypto.go beyond plain hashing).
// Certificates are read as Go reads them by runtime/x509; signature checks and
// key decoding are done by node:crypto.
import { createPrivateKey, X509Certificate as NodeX509, type KeyObject } from 'node:crypto';
import { BuiltinError } from './errors.js';
import { goBase64Decode, pemDecode, splitDer } from './crypto-encoding.js';
import type { GoCertificate } from '../x509/index.js';
import { goValue } from '../x509/value.js';
import { x509 } from './x509-lazy.js';
import type { Value } from '../value/index.js';

/** A certificate of the input: its DER and Go's reading of it. */
export interface ParsedCert {
  der: Buffer;
  go: GoCertificate;
}

/** The text of a parse failure: Go's own where runtime/x509 gave it, else `fallback`. */
export function x509Error(e: unknown, fallback: string): BuiltinError {
  const message = e instanceof Error ? e.message : '';
  return new BuiltinError(message.startsWith('x509: ') ? message : fallback);
}

/** getX509CertsFromString: PEM, base64 PEM or base64 DER → certificates. */
export function certsFromString(input: string): ParsedCert[] {
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

function certsFromPem(pem: string): ParsedCert[] {
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

function parseDerCerts(der: Buffer): ParsedCert[] {
  let parts: Buffer[];
  try {
    parts = splitDer(der);
  } catch {
    throw new BuiltinError('x509: malformed certificate');
  }
  return parts.map(parseCert);
}

/** One DER certificate, read as Go's x509.ParseCertificate does (and accepted by OpenSSL). */
export function parseCert(der: Buffer): ParsedCert {
  try {
    const go = x509().goCertificate(der);
    new NodeX509(der);
    return { der, go };
  } catch (e) {
    throw x509Error(e, 'x509: malformed certificate');
  }
}

export interface VerifyOptions {
  dnsName?: string;
  currentTime?: Date;
  keyUsages?: number[];
}

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
export function verifyChain(parsed: ParsedCert[], opts: VerifyOptions): ParsedCert[] | undefined {
  if (parsed.length < 2) return undefined;
  const certs = parsed.map((p) => new NodeX509(p.der));
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
      if (!eku || eku.length === 0 || eku.includes(x509().EXT_KEY_USAGE_OIDS[0]!)) continue;
      if (!usages.some((u) => eku.includes(x509().EXT_KEY_USAGE_OIDS[u]!))) return undefined;
    }
  }
  return chain.map((i) => parsed[i]!);
}

/** OPA's extendCertificates: Go's x509.Certificate JSON plus `URIStrings`. */
export const certsToValue = (certs: ParsedCert[]): Value => goValue(certs.map(({ go }) => ({ ...go.json, URIStrings: go.uriStrings })));

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
