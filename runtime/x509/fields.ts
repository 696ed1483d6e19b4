// The parts of a certificate or CSR that are not extensions, as Go's x509
// parser fills them: pkix.Name (and its RFC 4514 string, the TLS identity), the
// SignatureAlgorithm and PublicKeyAlgorithm enums, and the parsed public key.
// Structure comes from @peculiar/asn1-x509 types; RSA and EC keys are checked by
// node:crypto (RSA read from its JWK); DSA and Ed25519 keys are read from the
// ASN.1 structure with Go's checks.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { AsnParser } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, type AttributeValue, type Name, type SubjectPublicKeyInfo } from '@peculiar/asn1-x509';
import { arcs, big, escapeDN, slice, str, type GoJSON } from './formats.js';
import { BareInteger, DsaParameters, NamedCurve, NumericText, RsaPssParameters } from './schemas.js';

// ---- names (pkix.Name) ----

const NAME_FIELDS: Record<string, string> = { '2.5.4.3': 'CN', '2.5.4.5': 'SERIALNUMBER', '2.5.4.6': 'C', '2.5.4.7': 'L', '2.5.4.8': 'ST', '2.5.4.9': 'STREET', '2.5.4.10': 'O', '2.5.4.11': 'OU', '2.5.4.17': 'POSTALCODE' };
/** ToRDNSequence's order; the string form lists it reversed. */
const RDN_ORDER = ['C', 'ST', 'L', 'STREET', 'POSTALCODE', 'O', 'OU', 'CN', 'SERIALNUMBER'];

/** Go's isPrintable (PrintableString, plus the `*` and `&` Go tolerates). */
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?*&]*$/;

function checked(text: string, ok: RegExp, type: string): string {
  if (!ok.test(text)) throw new Error(`x509: invalid RDNSequence: invalid attribute value: invalid ${type}`);
  return text;
}

/** Go's parseASN1String: the string types a name may use (others fail the certificate). */
function attributeText(v: AttributeValue): string {
  if (v.bmpString !== undefined) return v.bmpString.replace(/\0$/, ''); // Go strips a NUL terminator
  if (v.printableString !== undefined) return checked(v.printableString, PRINTABLE, 'PrintableString');
  if (v.ia5String !== undefined) return checked(v.ia5String, /^[\x00-\x7f]*$/, 'IA5String');
  const text = v.teletexString ?? v.utf8String; // T61String is read as Latin-1, as Go does
  if (text !== undefined) return text;
  if (v.anyValue) return checked(AsnParser.parse(v.anyValue, NumericText).value, /^[0-9 ]*$/, 'NumericString');
  throw new Error('x509: invalid RDNSequence: invalid attribute value: unsupported string type'); // UniversalString
}

interface ATV {
  type: string;
  value: string;
}

/** A pkix.Name filled from an RDN sequence (FillFromRDNSequence). */
export class GoName {
  readonly names: ATV[] = [];
  readonly fields: Record<string, string[]> = {};

  constructor(name: Name) {
    for (const rdn of name) {
      for (const atv of rdn) {
        const value = attributeText(atv.value);
        this.names.push({ type: atv.type, value });
        const field = NAME_FIELDS[atv.type];
        if (field === 'CN' || field === 'SERIALNUMBER') this.fields[field] = [value];
        else if (field) (this.fields[field] ??= []).push(value);
      }
    }
  }

  json(): GoJSON {
    const f = (k: string): GoJSON => slice(this.fields[k], str);
    const one = (k: string): string => this.fields[k]?.[0] ?? '';
    return {
      Country: f('C'),
      Organization: f('O'),
      OrganizationalUnit: f('OU'),
      Locality: f('L'),
      Province: f('ST'),
      StreetAddress: f('STREET'),
      PostalCode: f('POSTALCODE'),
      SerialNumber: one('SERIALNUMBER'),
      CommonName: one('CN'),
      Names: slice(this.names, (a) => ({ Type: arcs(a.type), Value: a.value })),
      ExtraNames: null,
    };
  }

  /** pkix.Name.ToRDNSequence().String(): standard attributes only, fixed order, reversed. */
  rdnString(): string {
    const rdns: string[] = [];
    for (const k of RDN_ORDER) {
      const values = this.fields[k] ?? [];
      if (values.length === 0 || ((k === 'CN' || k === 'SERIALNUMBER') && values[0] === '')) continue;
      rdns.push(values.map((v) => `${k}=${escapeDN(v)}`).join('+'));
    }
    return rdns.reverse().join(',');
  }
}

// ---- signature algorithms ----

const SIGNATURE_ALGORITHMS: Record<string, number> = {
  '1.2.840.113549.1.1.2': 1, // MD2WithRSA
  '1.2.840.113549.1.1.4': 2, // MD5WithRSA
  '1.2.840.113549.1.1.5': 3, // SHA1WithRSA
  '1.3.14.3.2.29': 3,
  '1.2.840.113549.1.1.11': 4, // SHA256WithRSA
  '1.2.840.113549.1.1.12': 5,
  '1.2.840.113549.1.1.13': 6,
  '1.2.840.10040.4.3': 7, // DSAWithSHA1
  '2.16.840.1.101.3.4.3.2': 8,
  '1.2.840.10045.4.1': 9, // ECDSAWithSHA1
  '1.2.840.10045.4.3.2': 10,
  '1.2.840.10045.4.3.3': 11,
  '1.2.840.10045.4.3.4': 12,
  '1.3.101.112': 16, // PureEd25519
};
const RSA_PSS = '1.2.840.113549.1.1.10';
const MGF1 = '1.2.840.113549.1.1.8';
const PSS_HASHES: Record<string, [number, number]> = { '2.16.840.1.101.3.4.2.1': [32, 13], '2.16.840.1.101.3.4.2.2': [48, 14], '2.16.840.1.101.3.4.2.3': [64, 15] };
/** Absent or NULL parameters (asn1-schema reads NULL as null). */
const noParams = (ai: AlgorithmIdentifier): boolean => ai.parameters === undefined || ai.parameters === null;

/** Go's getSignatureAlgorithmFromAI (x509.SignatureAlgorithm enum; 0 when unknown). */
export function signatureAlgorithm(ai: AlgorithmIdentifier): number {
  if (ai.algorithm === '1.3.101.112' && ai.parameters !== undefined) return 0;
  if (ai.algorithm !== RSA_PSS) return SIGNATURE_ALGORITHMS[ai.algorithm] ?? 0;
  try {
    const p = AsnParser.parse(ai.parameters!, RsaPssParameters);
    const hash = p.hashAlgorithm;
    const mgfHash = AsnParser.parse(p.maskGenAlgorithm.parameters!, AlgorithmIdentifier);
    const ok = noParams(hash) && p.maskGenAlgorithm.algorithm === MGF1 && mgfHash.algorithm === hash.algorithm && noParams(mgfHash);
    if (!ok || (p.trailerField !== undefined && p.trailerField !== 1n)) return 0;
    const [len, algo] = PSS_HASHES[hash.algorithm] ?? [-1, 0];
    return Number(p.saltLength) === len ? algo : 0;
  } catch {
    return 0;
  }
}

// ---- public keys ----

const PUBLIC_KEY_ALGORITHMS: Record<string, number> = { '1.2.840.113549.1.1.1': 1, '1.2.840.10040.4.1': 2, '1.2.840.10045.2.1': 3, '1.3.101.112': 4 };
/** The named curves Go supports and their coordinate sizes. */
const CURVES: Record<string, number> = { '1.3.132.0.33': 28, '1.2.840.10045.3.1.7': 32, '1.3.132.0.34': 48, '1.3.132.0.35': 66 };

const unsigned = (b64url: string | undefined): bigint => BigInt('0x' + (Buffer.from(b64url ?? '', 'base64url').toString('hex') || '0'));

/** node:crypto's reading of the key; it rejects what Go's parsePublicKey rejects (sizes, points off the curve). */
function nodeKey(der: Uint8Array, error: string): KeyObject {
  try {
    return createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' });
  } catch {
    throw new Error(error);
  }
}

/**
 * PublicKeyAlgorithm enum and the JSON of the parsed key (*rsa.PublicKey,
 * *ecdsa.PublicKey, *dsa.PublicKey, ed25519.PublicKey; null when unknown) for
 * the SubjectPublicKeyInfo `spki` whose DER is `der`. Throws Go's error texts.
 */
export function publicKey(spki: SubjectPublicKeyInfo, der: Uint8Array): [number, GoJSON] {
  const { algorithm, parameters } = spki.algorithm;
  const alg = PUBLIC_KEY_ALGORITHMS[algorithm] ?? 0;
  const bits = Buffer.from(spki.subjectPublicKey);
  switch (alg) {
    case 1: {
      if (parameters !== null) throw new Error('x509: RSA key missing NULL parameters');
      const jwk = nodeKey(der, 'x509: invalid RSA public key').export({ format: 'jwk' });
      return [1, { N: big(unsigned(jwk.n)), E: Number(unsigned(jwk.e)) }];
    }
    case 2: {
      const p = AsnParser.parse(parameters!, DsaParameters);
      const y = AsnParser.parse(bits, BareInteger).value;
      if ([p.p, p.q, p.g, y].some((n) => n <= 0n)) throw new Error('x509: zero or negative DSA parameter');
      return [2, { P: big(p.p), Q: big(p.q), G: big(p.g), Y: big(y) }];
    }
    case 3: {
      let size: number | undefined;
      try {
        size = CURVES[AsnParser.parse(parameters!, NamedCurve).namedCurve];
      } catch {
        throw new Error('x509: failed to parse ECDSA parameters as named curve');
      }
      if (size === undefined) throw new Error('x509: unsupported elliptic curve');
      if (bits.length !== 1 + 2 * size || bits[0] !== 4) throw new Error('x509: failed to unmarshal elliptic curve point');
      nodeKey(der, 'x509: failed to unmarshal elliptic curve point');
      const coord = (b: Buffer): GoJSON => big(BigInt('0x' + b.toString('hex')));
      return [3, { Curve: {}, X: coord(bits.subarray(1, 1 + size)), Y: coord(bits.subarray(1 + size)) }];
    }
    case 4:
      if (parameters !== undefined) throw new Error('x509: Ed25519 key encoded with illegal parameters');
      if (bits.length !== 32) throw new Error('x509: wrong Ed25519 public key size');
      return [4, bits.toString('base64')];
    default:
      return [0, null];
  }
}
