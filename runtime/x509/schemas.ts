// ASN.1 types for reading certificates and CSRs the way Go's x509 parser does,
// built on @peculiar/asn1-x509's and @peculiar/asn1-csr's: the DER of the parts
// Go keeps (Raw*) and the signature's unused bits; validity times as written
// (Go keeps the zone offset, asn1js converts to Date); policy OIDs with arcs of
// any size (Go's x509.OID; asn1js turns arcs past 2^53 into approximations or
// hex); the public-key and RSA-PSS parameter structures of RFC 3279 and RFC 8017;
// and the loose shapes encoding/asn1 reads CSR attributes into.
// asn1-schema's AsnType/AsnProp are applied as plain functions (the project does
// not use decorator syntax); the parsing is the library's.
import { AsnArray, AsnIntegerBigIntConverter, AsnObjectIdentifierConverter, AsnProp, AsnPropTypes, AsnType, AsnTypeTypes, BitString, type IAsnConverter } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, Name, PolicyInformation, PolicyMapping, SubjectPublicKeyInfo, TBSCertificate, Validity } from '@peculiar/asn1-x509';
import { CertificationRequestInfo } from '@peculiar/asn1-csr';

type PropOptions = Parameters<typeof AsnProp>[0];

/** Declare `target` an ASN.1 type with the given fields (in encoding order). */
function define(target: new () => object, type: AsnTypeTypes, fields: Record<string, PropOptions>, itemType?: PropOptions['type']): void {
  AsnType({ type, itemType })(target);
  for (const [key, options] of Object.entries(fields)) AsnProp(options)(target.prototype, key);
}

/** Keep the DER of `keys` (as `<key>Raw`) on a subclass of an asn1-x509 type. */
function keepRaw(target: { prototype: object }, fields: [string, PropOptions['type']][]): void {
  for (const [key, type] of fields) AsnProp({ type, raw: true })(target.prototype, key);
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
  declare signatureRaw: Uint8Array;
  declare issuerRaw: Uint8Array;
  declare validityRaw: Uint8Array;
  declare subjectRaw: Uint8Array;
  declare subjectPublicKeyInfoRaw: Uint8Array;
}
keepRaw(GoTBSCertificate, [['signature', AlgorithmIdentifier], ['issuer', Name], ['validity', Validity], ['subject', Name], ['subjectPublicKeyInfo', SubjectPublicKeyInfo]]);

/** Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue BIT STRING }. */
export class GoCertificateDER {
  tbsCertificate = new GoTBSCertificate();
  declare tbsCertificateRaw: Uint8Array;
  signatureAlgorithm = new AlgorithmIdentifier();
  declare signatureAlgorithmRaw: Uint8Array;
  signatureValue = new BitString();
}
define(GoCertificateDER, AsnTypeTypes.Sequence, {
  tbsCertificate: { type: GoTBSCertificate, raw: true },
  signatureAlgorithm: { type: AlgorithmIdentifier, raw: true },
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

// ---- the certificate request ----

/** CertificationRequestInfo keeping the DER of the subject and its key. */
export class GoCertificationRequestInfo extends CertificationRequestInfo {
  declare subjectRaw: Uint8Array;
  declare subjectPKInfoRaw: Uint8Array;
}
keepRaw(GoCertificationRequestInfo, [['subject', Name], ['subjectPKInfo', SubjectPublicKeyInfo]]);

/** CertificationRequest (RFC 2986) with the signature's unused bits. */
export class GoCertificationRequestDER {
  certificationRequestInfo = new GoCertificationRequestInfo();
  declare certificationRequestInfoRaw: Uint8Array;
  signatureAlgorithm = new AlgorithmIdentifier();
  signature = new BitString();
}
define(GoCertificationRequestDER, AsnTypeTypes.Sequence, {
  certificationRequestInfo: { type: GoCertificationRequestInfo, raw: true },
  signatureAlgorithm: { type: AlgorithmIdentifier },
  signature: { type: BitString },
});

/** pkix.AttributeTypeAndValue as encoding/asn1 fills it: a type, ANY value, later elements ignored. */
export class LooseTypeAndValue {
  type = '';
  value = new ArrayBuffer(0);
}
define(LooseTypeAndValue, AsnTypeTypes.Sequence, { type: { type: AsnPropTypes.ObjectIdentifier }, value: { type: AsnPropTypes.Any } });

/** One value of a pkix.AttributeTypeAndValueSET: SEQUENCE OF AttributeTypeAndValue. */
export class LooseTypeAndValues extends AsnArray<LooseTypeAndValue> {}
define(LooseTypeAndValues, AsnTypeTypes.Sequence, {}, LooseTypeAndValue);

/** The universal types encoding/asn1 decodes into an `any` (others stay nil). */
export class GoAny {
  printable?: string;
  numeric?: string;
  ia5?: string;
  t61?: string;
  utf8?: string;
  bmp?: string;
  integer?: bigint;
  bits?: BitString;
  oid?: string;
  utcTime?: string;
  generalTime?: string;
  octets?: ArrayBuffer;
}
define(GoAny, AsnTypeTypes.Choice, {
  printable: { type: AsnPropTypes.PrintableString },
  numeric: { type: AsnPropTypes.NumericString },
  ia5: { type: AsnPropTypes.IA5String },
  t61: { type: AsnPropTypes.TeletexString },
  utf8: { type: AsnPropTypes.Utf8String },
  bmp: { type: AsnPropTypes.BmpString },
  integer: integer(),
  bits: { type: BitString },
  oid: { type: AsnPropTypes.ObjectIdentifier, converter: exactOID },
  utcTime: { type: AsnPropTypes.UTCTime, converter: timeText },
  generalTime: { type: AsnPropTypes.GeneralizedTime, converter: timeText },
  octets: { type: AsnPropTypes.OctetString },
});

// ---- general names with the iPAddress octets ----

/**
 * A GeneralName as Go's SAN and name-constraint parsers see it: the four kinds
 * Go handles (iPAddress as its octets; asn1-x509 turns them into text) and any
 * other kind as `other`.
 */
export class GoGeneralName {
  rfc822Name?: string;
  dNSName?: string;
  uniformResourceIdentifier?: string;
  iPAddress?: ArrayBuffer;
  other?: ArrayBuffer;
}
define(GoGeneralName, AsnTypeTypes.Choice, {
  rfc822Name: { type: AsnPropTypes.IA5String, context: 1, implicit: true },
  dNSName: { type: AsnPropTypes.IA5String, context: 2, implicit: true },
  uniformResourceIdentifier: { type: AsnPropTypes.IA5String, context: 6, implicit: true },
  iPAddress: { type: AsnPropTypes.OctetString, context: 7, implicit: true },
  other: { type: AsnPropTypes.Any },
});

/** GeneralNames (subjectAltName). */
export class GoGeneralNames extends AsnArray<GoGeneralName> {}
define(GoGeneralNames, AsnTypeTypes.Sequence, {}, GoGeneralName);

/** GeneralSubtree: only the base (Go ignores minimum and maximum). */
export class GoGeneralSubtree {
  base = new GoGeneralName();
}
define(GoGeneralSubtree, AsnTypeTypes.Sequence, { base: { type: GoGeneralName } });

export class GoGeneralSubtrees extends AsnArray<GoGeneralSubtree> {}
define(GoGeneralSubtrees, AsnTypeTypes.Sequence, {}, GoGeneralSubtree);

/** NameConstraints (2.5.29.30). */
export class GoNameConstraints {
  permittedSubtrees?: GoGeneralSubtrees;
  excludedSubtrees?: GoGeneralSubtrees;
}
define(GoNameConstraints, AsnTypeTypes.Sequence, {
  permittedSubtrees: { type: GoGeneralSubtrees, context: 0, implicit: true, optional: true },
  excludedSubtrees: { type: GoGeneralSubtrees, context: 1, implicit: true, optional: true },
});

// ---- keys and algorithm parameters ----

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
