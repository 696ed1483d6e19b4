// Certificates and certificate requests as Go's x509.ParseCertificate /
// ParseCertificateRequest fill x509.Certificate (Go 1.24: 52 exported fields, in
// declaration order) and x509.CertificateRequest, for encoding/json. The DER is
// decoded by @peculiar/asn1-schema with the types of @peculiar/asn1-x509,
// @peculiar/asn1-csr and schemas.ts; nothing is verified here. What Go's parser
// rejects throws, with Go's text where there is one (`x509: …`).
import { AsnParser } from '@peculiar/asn1-schema';
import { Extensions } from '@peculiar/asn1-x509';
import type { Attribute } from '@peculiar/asn1-x509';
import { applyExtensions, subjectAltNames, type Ext, type Fields } from './extensions.js';
import { GoName, publicKey, signatureAlgorithm } from './fields.js';
import { arcs, b64, big, goTime, rightAlign, signed, slice, type GoJSON, type GoObject } from './formats.js';
import { GoAny, GoCertificateDER, GoCertificationRequestDER, LooseTypeAndValues, ValidityText, type TimeText } from './schemas.js';

/** One certificate as Go sees it. */
export interface GoCertificate {
  /** x509.Certificate as encoding/json writes it. */
  json: GoObject;
  /** The subject as `Subject.ToRDNSequence().String()` (`CN=client-1,O=Acme`). */
  identity: string;
  /** The SAN URIs as written (OPA's URIStrings), null when there are none. */
  uriStrings: string[] | null;
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

const time = (t: TimeText): string => (t.utcTime !== undefined ? goTime(t.utcTime, true) : goTime(t.generalTime!, false));
const extensionJSON = (e: Ext): GoJSON => ({ Id: arcs(e.id), Critical: e.critical, Value: b64(e.value) });

/** Go's x509.ParseCertificate of one DER certificate. */
export function goCertificate(der: Uint8Array): GoCertificate {
  const cert = AsnParser.parse(der, GoCertificateDER);
  const tbs = cert.tbsCertificate;
  const version = tbs.version + 1;
  if (version < 1 || version > 3) throw new Error('x509: invalid version');
  const serial = signed(tbs.serialNumber);
  if (serial < 0n) throw new Error('x509: negative serial number');
  if (!Buffer.from(tbs.signatureRaw).equals(Buffer.from(cert.signatureAlgorithmRaw))) {
    throw new Error("x509: inner and outer signature algorithm identifiers don't match");
  }
  const validity = AsnParser.parse(tbs.validityRaw, ValidityText);
  const [keyAlgorithm, key] = publicKey(tbs.subjectPublicKeyInfo, tbs.subjectPublicKeyInfoRaw);
  // Go reads the extensions of version 3 certificates only.
  const extensions: Ext[] = (version === 3 ? (tbs.extensions ?? []) : []).map((e) => ({ id: e.extnID, critical: e.critical, value: Buffer.from(e.extnValue.buffer) }));
  const duplicate = extensions.find((e, i) => extensions.findIndex((x) => x.id === e.id) !== i);
  if (duplicate) throw new Error(`x509: certificate contains duplicate extension with OID "${duplicate.id}"`);

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
    SerialNumber: big(serial),
    Issuer: new GoName(tbs.issuer).json(),
    Subject: subject.json(),
    NotBefore: time(validity.notBefore),
    NotAfter: time(validity.notAfter),
    Extensions: slice(extensions, extensionJSON),
    UnhandledCriticalExtensions: unhandled.length > 0 ? unhandled : null,
  };
  return {
    json: Object.fromEntries(CERTIFICATE_FIELDS.map((k) => [k, values[k] ?? ZERO[k] ?? null])),
    identity: subject.rdnString(),
    uriStrings: (f.URIStrings as string[] | undefined) ?? null,
  };
}

// ---- certificate requests ----

const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

/** Go's parseCSRExtensions: the first value of each extensionRequest attribute. */
function requestedExtensions(attributes: Attribute[]): Ext[] {
  const out: Ext[] = [];
  for (const a of attributes) {
    if (a.type !== EXTENSION_REQUEST || a.values.length === 0) continue;
    for (const e of AsnParser.parse(a.values[0]!, Extensions)) out.push({ id: e.extnID, critical: e.critical, value: Buffer.from(e.extnValue.buffer) });
  }
  if (new Set(out.map((e) => e.id)).size !== out.length) throw new Error('x509: certificate request contains duplicate requested extensions');
  return out;
}

/** A value encoding/asn1 reads into an `any` (strings, numbers, OIDs, times, bytes; else nil). */
function anyValue(der: ArrayBuffer): GoJSON {
  let v: GoAny;
  try {
    v = AsnParser.parse(der, GoAny);
  } catch {
    return null; // a type encoding/asn1 leaves as nil (BOOLEAN, NULL, constructed…)
  }
  const text = v.printable ?? v.numeric ?? v.ia5 ?? v.t61 ?? v.utf8 ?? v.bmp;
  if (text !== undefined) return text;
  if (v.integer !== undefined) {
    if (BigInt.asIntN(64, v.integer) !== v.integer) throw new Error('asn1: integer too large');
    return big(v.integer);
  }
  if (v.bits) return { Bytes: b64(v.bits.value), BitLength: v.bits.value.byteLength * 8 - v.bits.unusedBits };
  if (v.oid !== undefined) return arcs(v.oid);
  if (v.utcTime !== undefined) return goTime(v.utcTime, true);
  if (v.generalTime !== undefined) return goTime(v.generalTime, false);
  return b64(v.octets);
}

/**
 * Go's parseRawAttributes (the deprecated Attributes field): the attributes whose
 * values are SEQUENCEs of {type, value} pairs, e.g. extensionRequest; others
 * (challengePassword…) are left out.
 */
function rawAttributes(attributes: Attribute[]): GoJSON[] {
  const out: GoJSON[] = [];
  for (const a of attributes) {
    try {
      const value = a.values.map((v) => AsnParser.parse(v, LooseTypeAndValues).map((tv) => ({ Type: arcs(tv.type), Value: anyValue(tv.value) })));
      out.push({ Type: arcs(a.type), Value: value });
    } catch {
      /* does not parse into pkix.AttributeTypeAndValueSET: ignored, as in Go */
    }
  }
  return out;
}

/** Go's x509.ParseCertificateRequest of one DER CSR, as encoding/json writes it. */
export function goCertificateRequest(der: Uint8Array): GoObject {
  const csr = AsnParser.parse(der, GoCertificationRequestDER);
  const info = csr.certificationRequestInfo;
  const attributes: Attribute[] = info.attributes ?? [];
  const [keyAlgorithm, key] = publicKey(info.subjectPKInfo, info.subjectPKInfoRaw);
  const extensions = requestedExtensions(attributes);
  const f: Fields = {};
  for (const e of extensions) if (e.id === '2.5.29.17') subjectAltNames(f, e.value);
  return {
    Raw: b64(der),
    RawTBSCertificateRequest: b64(csr.certificationRequestInfoRaw),
    RawSubjectPublicKeyInfo: b64(info.subjectPKInfoRaw),
    RawSubject: b64(info.subjectRaw),
    Version: info.version,
    Signature: b64(rightAlign(csr.signature.value, csr.signature.unusedBits)),
    SignatureAlgorithm: signatureAlgorithm(csr.signatureAlgorithm),
    PublicKeyAlgorithm: keyAlgorithm,
    PublicKey: key,
    Subject: new GoName(info.subject).json(),
    Attributes: slice(rawAttributes(attributes), (a) => a),
    Extensions: slice(extensions, extensionJSON),
    ExtraExtensions: null,
    DNSNames: f.DNSNames ?? null,
    EmailAddresses: f.EmailAddresses ?? null,
    IPAddresses: f.IPAddresses ?? null,
    URIs: f.URIs ?? null,
  };
}
