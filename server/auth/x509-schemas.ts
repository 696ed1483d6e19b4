// ASN.1 types for reading a certificate the way Go's x509 parser does, built on
// @peculiar/asn1-x509's: the certificate with the DER of the TBS parts Go keeps
// (Raw*) and its signature's unused bits; validity times as written (Go keeps the
// zone offset, asn1js converts to Date); policy OIDs with arcs of any size (Go's
// x509.OID; asn1js turns arcs past 2^53 into approximations or hex); and the
// public-key and RSA-PSS parameter structures of RFC 8017 and RFC 3279.
// asn1-schema's AsnType/AsnProp are applied as plain functions (the project does
// not use decorator syntax); the parsing is the library's.
import { AsnArray, AsnIntegerBigIntConverter, AsnObjectIdentifierConverter, AsnProp, AsnPropTypes, AsnType, AsnTypeTypes, BitString, type IAsnConverter } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, Name, PolicyInformation, PolicyMapping, SubjectPublicKeyInfo, TBSCertificate, Validity } from '@peculiar/asn1-x509';

type PropOptions = Parameters<typeof AsnProp>[0];

/** Declare `target` an ASN.1 type with the given fields (in encoding order). */
function define(target: new () => object, type: AsnTypeTypes, fields: Record<string, PropOptions>, itemType?: PropOptions['type']): void {
  AsnType({ type, itemType })(target);
  for (const [key, options] of Object.entries(fields)) AsnProp(options)(target.prototype, key);
}

const integer = (options: Partial<PropOptions> = {}): PropOptions => ({ type: AsnPropTypes.Integer, converter: AsnIntegerBigIntConverter, ...options });

/** An OBJECT IDENTIFIER as dotted text with exact arcs (from asn1js's sub-identifier septets). */
const exactOID: IAsnConverter<string> = {
  fromASN(value) {
    const sids = (value as unknown as { valueBlock: { value: { valueHexView: Uint8Array }[] } }).valueBlock.value;
    const arcs = sids.map((sid) => sid.valueHexView.reduce((n, septet) => (n << 7n) | BigInt(septet), 0n));
    const first = arcs.shift() ?? 0n;
    return [first < 80n ? first / 40n : 2n, first < 80n ? first % 40n : first - 80n, ...arcs].join('.');
  },
  toASN: (value) => AsnObjectIdentifierConverter.toASN(value),
};

/** A UTCTime or GeneralizedTime as its text. */
const timeText: IAsnConverter<string> = {
  fromASN: (value) => Buffer.from((value as unknown as { valueBlock: { valueHexView: Uint8Array } }).valueBlock.valueHexView).toString('latin1'),
  toASN() {
    throw new Error('time text is read-only');
  },
};

// ---- the certificate ----

/** TBSCertificate keeping the DER of the parts Go reports (`issuerRaw`, …). */
export class GoTBSCertificate extends TBSCertificate {
  declare issuerRaw: Uint8Array;
  declare validityRaw: Uint8Array;
  declare subjectRaw: Uint8Array;
  declare subjectPublicKeyInfoRaw: Uint8Array;
}
for (const [key, type] of [['issuer', Name], ['validity', Validity], ['subject', Name], ['subjectPublicKeyInfo', SubjectPublicKeyInfo]] as const) {
  AsnProp({ type, raw: true })(GoTBSCertificate.prototype, key);
}

/** Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue BIT STRING }. */
export class GoCertificate {
  tbsCertificate = new GoTBSCertificate();
  declare tbsCertificateRaw: Uint8Array;
  signatureAlgorithm = new AlgorithmIdentifier();
  signatureValue = new BitString();
}
define(GoCertificate, AsnTypeTypes.Sequence, {
  tbsCertificate: { type: GoTBSCertificate, raw: true },
  signatureAlgorithm: { type: AlgorithmIdentifier },
  signatureValue: { type: BitString },
});

export class TimeText {
  utcTime?: string;
  generalTime?: string;
}
define(TimeText, AsnTypeTypes.Choice, {
  utcTime: { type: AsnPropTypes.UTCTime, converter: timeText },
  generalTime: { type: AsnPropTypes.GeneralizedTime, converter: timeText },
});

/** Validity with the times as written. */
export class ValidityText {
  notBefore = new TimeText();
  notAfter = new TimeText();
}
define(ValidityText, AsnTypeTypes.Sequence, { notBefore: { type: TimeText }, notAfter: { type: TimeText } });

// ---- keys and algorithm parameters ----

/** RSAPublicKey (RFC 8017 A.1.1). */
export class RsaPublicKey {
  modulus = 0n;
  publicExponent = 0n;
}
define(RsaPublicKey, AsnTypeTypes.Sequence, { modulus: integer(), publicExponent: integer() });

/** Dss-Parms (RFC 3279 2.3.2). */
export class DsaParameters {
  p = 0n;
  q = 0n;
  g = 0n;
}
define(DsaParameters, AsnTypeTypes.Sequence, { p: integer(), q: integer(), g: integer() });

/** A bare INTEGER (DSAPublicKey). */
export class BareInteger {
  value = 0n;
}
define(BareInteger, AsnTypeTypes.Choice, { value: integer() });

/** ECParameters as a namedCurve OID (explicit curves do not match). */
export class NamedCurve {
  namedCurve = '';
}
define(NamedCurve, AsnTypeTypes.Choice, { namedCurve: { type: AsnPropTypes.ObjectIdentifier } });

/** A NumericString (a name attribute type asn1-x509 leaves as `anyValue`). */
export class NumericText {
  value = '';
}
define(NumericText, AsnTypeTypes.Choice, { value: { type: AsnPropTypes.NumericString } });

/** RSASSA-PSS-params (RFC 8017 A.2.3) as Go reads them: no defaults for the first three. */
export class RsaPssParameters {
  hashAlgorithm = new AlgorithmIdentifier();
  maskGenAlgorithm = new AlgorithmIdentifier();
  saltLength = 0n;
  trailerField?: bigint;
}
define(RsaPssParameters, AsnTypeTypes.Sequence, {
  hashAlgorithm: { type: AlgorithmIdentifier, context: 0 },
  maskGenAlgorithm: { type: AlgorithmIdentifier, context: 1 },
  saltLength: integer({ context: 2 }),
  trailerField: integer({ context: 3, optional: true }),
});

// ---- policies with exact OIDs ----

export class ExactPolicyInformation extends PolicyInformation {}
AsnProp({ type: AsnPropTypes.ObjectIdentifier, converter: exactOID })(ExactPolicyInformation.prototype, 'policyIdentifier');

/** certificatePolicies (2.5.29.32) with exact policy OIDs. */
export class ExactCertificatePolicies extends AsnArray<ExactPolicyInformation> {}
define(ExactCertificatePolicies, AsnTypeTypes.Sequence, {}, ExactPolicyInformation);

export class ExactPolicyMapping extends PolicyMapping {}
for (const key of ['issuerDomainPolicy', 'subjectDomainPolicy']) AsnProp({ type: AsnPropTypes.ObjectIdentifier, converter: exactOID })(ExactPolicyMapping.prototype, key);

/** policyMappings (2.5.29.33) with exact policy OIDs. */
export class ExactPolicyMappings extends AsnArray<ExactPolicyMapping> {}
define(ExactPolicyMappings, AsnTypeTypes.Sequence, {}, ExactPolicyMapping);
