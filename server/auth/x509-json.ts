// Peer certificates as OPA's TLS identifier hands them to the authorizer: Go's
// x509.Certificate (as x509.ParseCertificate fills it, Go 1.24 fields) marshalled
// with encoding/json, and the identity `Subject.ToRDNSequence().String()`.
// Byte slices are base64, big.Int (serial, RSA/EC/DSA key numbers) exact JSON
// numbers, OIDs int arrays (OID-typed fields dotted strings), times RFC 3339,
// nil slices null. The DER is decoded by @peculiar/asn1-schema with the types of
// @peculiar/asn1-x509 (and x509-schemas.ts); nothing is verified here (the
// handshake did that). Extensions: x509-extensions.ts; Go's value forms:
// go-formats.ts.
import { AsnParser } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, type AttributeValue, type Name, type SubjectPublicKeyInfo } from '@peculiar/asn1-x509';
import { parseJSON, type Value } from '../../runtime/index.js';
import { arcs, b64, big, escapeDN, goTime, jsonText, rightAlign, signed, slice, str, type Big, type GoJSON } from './go-formats.js';
import { applyExtensions, type Ext, type Fields } from './x509-extensions.js';
import { BareInteger, DsaParameters, GoCertificate, NamedCurve, NumericText, RsaPssParameters, RsaPublicKey, ValidityText, type TimeText } from './x509-schemas.js';

// ---- names (pkix.Name) ----

interface ATV {
  type: string;
  value: string;
}
const NAME_FIELDS: Record<string, string> = { '2.5.4.3': 'CN', '2.5.4.5': 'SERIALNUMBER', '2.5.4.6': 'C', '2.5.4.7': 'L', '2.5.4.8': 'ST', '2.5.4.9': 'STREET', '2.5.4.10': 'O', '2.5.4.11': 'OU', '2.5.4.17': 'POSTALCODE' };
/** ToRDNSequence's order; the string form lists it reversed. */
const RDN_ORDER = ['C', 'ST', 'L', 'STREET', 'POSTALCODE', 'O', 'OU', 'CN', 'SERIALNUMBER'];

/** Go's parseASN1String: the string types a name may use (others fail the certificate). */
function attributeText(v: AttributeValue): string {
  if (v.bmpString !== undefined) return v.bmpString.replace(/\0$/, ''); // Go strips a NUL terminator
  const text = v.printableString ?? v.teletexString ?? v.ia5String ?? v.utf8String;
  if (text !== undefined) return text;
  if (v.anyValue) return AsnParser.parse(v.anyValue, NumericText).value; // NumericString, else this throws
  throw new Error('unsupported string type in a name'); // UniversalString, NULL
}

class GoName {
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

// ---- algorithms and public keys ----

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

/** Go's getSignatureAlgorithmFromAI (x509.SignatureAlgorithm enum). */
function signatureAlgorithm(ai: AlgorithmIdentifier): number {
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

const CURVES: Record<string, number> = { '1.3.132.0.33': 28, '1.2.840.10045.3.1.7': 32, '1.3.132.0.34': 48, '1.3.132.0.35': 66 };

/** The coordinate size of a named curve Go supports. */
function curveSize(params: ArrayBuffer | null | undefined): number | undefined {
  try {
    return params ? CURVES[AsnParser.parse(params, NamedCurve).namedCurve] : undefined;
  } catch {
    return undefined;
  }
}

/** PublicKeyAlgorithm enum and the JSON of the parsed key (*rsa.PublicKey, …). */
function publicKey(spki: SubjectPublicKeyInfo): [number, GoJSON] {
  const { algorithm, parameters } = spki.algorithm;
  const key = Buffer.from(spki.subjectPublicKey);
  switch (algorithm) {
    case '1.2.840.113549.1.1.1': {
      const k = AsnParser.parse(key, RsaPublicKey);
      return [1, { N: big(k.modulus), E: Number(k.publicExponent) }];
    }
    case '1.2.840.10040.4.1': {
      const p = AsnParser.parse(parameters!, DsaParameters);
      return [2, { P: big(p.p), Q: big(p.q), G: big(p.g), Y: big(AsnParser.parse(key, BareInteger).value) }];
    }
    case '1.2.840.10045.2.1': {
      const size = curveSize(parameters);
      if (size === undefined || key.length !== 1 + 2 * size || key[0] !== 4) return [3, null];
      const coord = (b: Buffer): Big => big(BigInt('0x' + b.toString('hex')));
      return [3, { Curve: {}, X: coord(key.subarray(1, 1 + size)), Y: coord(key.subarray(1 + size)) }];
    }
    case '1.3.101.112':
      return [4, key.toString('base64')];
    default:
      return [0, null];
  }
}

const time = (t: TimeText): string => (t.utcTime !== undefined ? goTime(t.utcTime, true) : goTime(t.generalTime!, false));

// ---- the certificate ----

/** Go's x509.Certificate JSON for one DER certificate, and its subject identity string. */
export function goCertificate(der: Buffer): { identity: string; json: GoJSON } {
  const cert = AsnParser.parse(der, GoCertificate);
  const tbs = cert.tbsCertificate;
  const version = tbs.version + 1;
  const validity = AsnParser.parse(tbs.validityRaw, ValidityText);
  const [keyAlgorithm, key] = publicKey(tbs.subjectPublicKeyInfo);
  // Go reads the extensions of version 3 certificates only.
  const extensions: Ext[] = (version === 3 ? (tbs.extensions ?? []) : []).map((e) => ({ id: e.extnID, critical: e.critical, value: Buffer.from(e.extnValue.buffer) }));

  const f: Fields = {};
  const unhandled = applyExtensions(f, extensions);
  const subject = new GoName(tbs.subject);
  const values: Fields = {
    ...f,
    Raw: b64(der),
    RawTBSCertificate: b64(cert.tbsCertificateRaw),
    RawSubjectPublicKeyInfo: b64(tbs.subjectPublicKeyInfoRaw),
    RawSubject: b64(tbs.subjectRaw),
    RawIssuer: b64(tbs.issuerRaw),
    Signature: b64(rightAlign(cert.signatureValue.value, cert.signatureValue.unusedBits)),
    SignatureAlgorithm: signatureAlgorithm(tbs.signature),
    PublicKeyAlgorithm: keyAlgorithm,
    PublicKey: key,
    Version: version,
    SerialNumber: big(signed(tbs.serialNumber)),
    Issuer: new GoName(tbs.issuer).json(),
    Subject: subject.json(),
    NotBefore: time(validity.notBefore),
    NotAfter: time(validity.notAfter),
    Extensions: slice(extensions, (e) => ({ Id: arcs(e.id), Critical: e.critical, Value: b64(e.value) })),
    UnhandledCriticalExtensions: unhandled.length > 0 ? unhandled : null,
  };
  return { identity: subject.rdnString(), json: Object.fromEntries(CERTIFICATE_FIELDS.map((k) => [k, values[k] ?? ZERO[k] ?? null])) };
}

/** x509.Certificate's exported fields, in declaration order (Go 1.24). */
const CERTIFICATE_FIELDS = [
  ...['Raw', 'RawTBSCertificate', 'RawSubjectPublicKeyInfo', 'RawSubject', 'RawIssuer', 'Signature', 'SignatureAlgorithm', 'PublicKeyAlgorithm', 'PublicKey'],
  ...['Version', 'SerialNumber', 'Issuer', 'Subject', 'NotBefore', 'NotAfter', 'KeyUsage', 'Extensions', 'ExtraExtensions', 'UnhandledCriticalExtensions'],
  ...['ExtKeyUsage', 'UnknownExtKeyUsage', 'BasicConstraintsValid', 'IsCA', 'MaxPathLen', 'MaxPathLenZero', 'SubjectKeyId', 'AuthorityKeyId'],
  ...['OCSPServer', 'IssuingCertificateURL', 'DNSNames', 'EmailAddresses', 'IPAddresses', 'URIs', 'PermittedDNSDomainsCritical'],
  ...['PermittedDNSDomains', 'ExcludedDNSDomains', 'PermittedIPRanges', 'ExcludedIPRanges', 'PermittedEmailAddresses', 'ExcludedEmailAddresses'],
  ...['PermittedURIDomains', 'ExcludedURIDomains', 'CRLDistributionPoints', 'PolicyIdentifiers', 'Policies', 'InhibitAnyPolicy', 'InhibitAnyPolicyZero'],
  ...['InhibitPolicyMapping', 'InhibitPolicyMappingZero', 'RequireExplicitPolicy', 'RequireExplicitPolicyZero', 'PolicyMappings'],
];

/** Zero values of the non-pointer, non-slice fields (the rest are null when unset). */
const ZERO: Fields = {
  KeyUsage: 0,
  BasicConstraintsValid: false,
  IsCA: false,
  MaxPathLen: 0,
  MaxPathLenZero: false,
  PermittedDNSDomainsCritical: false,
  ...Object.fromEntries(['InhibitAnyPolicy', 'InhibitPolicyMapping', 'RequireExplicitPolicy'].flatMap((k) => [[k, 0], [`${k}Zero`, false]])),
};

/**
 * The chain as a Rego value (exact big numbers) and the leaf's identity. The leaf
 * must decode (else this throws); other certificates that do not are left out.
 */
export function peerCertificates(chain: Buffer[]): { identity: string; certificates: Value } {
  const leaf = goCertificate(chain[0]!);
  const rest = chain.slice(1).flatMap((der) => {
    try {
      return [goCertificate(der).json];
    } catch {
      return [];
    }
  });
  return { identity: leaf.identity, certificates: parseJSON(`[${[leaf.json, ...rest].map(jsonText).join(',')}]`) };
}
