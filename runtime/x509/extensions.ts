// The extensions of a certificate as Go's x509 parser applies them to the
// x509.Certificate fields (processExtensions, Go 1.24): key usage, basic
// constraints, SANs, name constraints, CRL distribution points, key ids, policy
// constraints/mappings, extended key usage, policies, inhibitAnyPolicy and AIA.
// A CSR uses only the SANs. Each value is decoded with its @peculiar/asn1-x509
// type (policies with schemas.ts's, for exact OIDs); an extension that does not
// decode fails the certificate, as in Go. Go's value forms are in formats.ts.
import { AsnParser } from '@peculiar/asn1-schema';
import {
  AuthorityInfoAccessSyntax,
  AuthorityKeyIdentifier,
  BasicConstraints,
  CRLDistributionPoints,
  ExtendedKeyUsage,
  InhibitAnyPolicy,
  KeyUsage,
  PolicyConstraints,
  SubjectKeyIdentifier,
  type GeneralName,
} from '@peculiar/asn1-x509';
import { arcs, b64, big, goURL, ipString, signed, type GoJSON } from './formats.js';
import { ExactCertificatePolicies, ExactPolicyMappings, GoGeneralNames, GoNameConstraints } from './schemas.js';

/** The OIDs of x509.ExtKeyUsage: the enum number is the index (0 = ExtKeyUsageAny, 1 = ServerAuth, …). */
export const EXT_KEY_USAGE_OIDS: readonly string[] = [
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
const EXT_KEY_USAGES: Record<string, number> = Object.fromEntries(EXT_KEY_USAGE_OIDS.map((oid, i) => [oid, i]));

/** One extension: its dotted OID, criticality and the DER in extnValue. */
export interface Ext {
  id: string;
  critical: boolean;
  value: Buffer;
}

export type Fields = Record<string, GoJSON>;

function push(f: Fields, key: string, v: GoJSON): void {
  ((f[key] ??= []) as GoJSON[]).push(v);
}

/** Go's isIA5String for the string forms of a general name. */
function ia5(text: string, what: string): string {
  if (/[^\x00-\x7f]/.test(text)) throw new Error(`x509: ${what} is malformed`);
  return text;
}

/**
 * Subject alternative names (Go's parseSANExtension), also the URIs as written
 * under `URIStrings` (OPA's addition); true when none of the four handled kinds
 * was found.
 */
export function subjectAltNames(f: Fields, value: Buffer): boolean {
  let found = false;
  for (const n of AsnParser.parse(value, GoGeneralNames)) {
    if (n.rfc822Name !== undefined) push(f, 'EmailAddresses', ia5(n.rfc822Name, 'SAN rfc822Name'));
    else if (n.dNSName !== undefined) push(f, 'DNSNames', ia5(n.dNSName, 'SAN dNSName'));
    else if (n.uniformResourceIdentifier !== undefined) {
      push(f, 'URIs', goURL(ia5(n.uniformResourceIdentifier, 'SAN uniformResourceIdentifier')));
      push(f, 'URIStrings', n.uniformResourceIdentifier);
    } else if (n.iPAddress !== undefined) {
      const ip = Buffer.from(n.iPAddress);
      if (ip.length !== 4 && ip.length !== 16) throw new Error(`x509: cannot parse IP address of length ${ip.length}`);
      push(f, 'IPAddresses', ipString(ip));
    } else continue;
    found = true;
  }
  return !found;
}

/** An IP constraint: address and mask halves, the mask contiguous (Go's isValidIPMask). */
function ipRange(octets: ArrayBuffer): GoJSON {
  const b = Buffer.from(octets);
  if (b.length !== 8 && b.length !== 32) throw new Error(`x509: certificate contained IP constraint of length ${b.length}`);
  const mask = b.subarray(b.length / 2);
  const bits = [...mask].map((x) => x.toString(2).padStart(8, '0')).join('');
  if (/01/.test(bits)) throw new Error(`x509: certificate contained invalid mask ${JSON.stringify(mask.toString('latin1'))}`);
  return { IP: ipString(b.subarray(0, b.length / 2)), Mask: mask.toString('base64') };
}

/** Name constraints; true when a constraint of an unhandled kind (e.g. directoryName) was seen. */
function nameConstraints(f: Fields, e: Ext): boolean {
  const nc = AsnParser.parse(e.value, GoNameConstraints);
  if (!nc.permittedSubtrees?.length && !nc.excludedSubtrees?.length) throw new Error('x509: empty name constraints extension');
  let unhandled = false;
  for (const [subtrees, prefix] of [[nc.permittedSubtrees, 'Permitted'], [nc.excludedSubtrees, 'Excluded']] as const) {
    for (const { base } of subtrees ?? []) {
      const text = (s: string): string => ia5(s, 'constraint value');
      if (base.dNSName !== undefined) push(f, `${prefix}DNSDomains`, text(base.dNSName));
      else if (base.rfc822Name !== undefined) push(f, `${prefix}EmailAddresses`, text(base.rfc822Name));
      else if (base.uniformResourceIdentifier !== undefined) push(f, `${prefix}URIDomains`, text(base.uniformResourceIdentifier));
      else if (base.iPAddress !== undefined) push(f, `${prefix}IPRanges`, ipRange(base.iPAddress));
      else unhandled = true;
    }
  }
  f.PermittedDNSDomainsCritical = e.critical;
  return unhandled;
}

/** The URIs of a CRL distribution point's fullName, up to the first other name. */
function uris(names: GeneralName[] | undefined): string[] {
  const out: string[] = [];
  for (const n of names ?? []) {
    if (n.uniformResourceIdentifier === undefined) break;
    out.push(n.uniformResourceIdentifier);
  }
  return out;
}

function policies(f: Fields, value: Buffer): void {
  f.PolicyIdentifiers = [];
  for (const { policyIdentifier: oid } of AsnParser.parse(value, ExactCertificatePolicies)) {
    push(f, 'Policies', oid);
    // asn1.ObjectIdentifier holds int arcs: policies that do not fit are left out.
    const a = oid.split('.').map(BigInt);
    if (a.every((x, i) => x + (i === 1 ? a[0]! * 40n : 0n) < 2n ** 31n)) (f.PolicyIdentifiers as GoJSON[]).push(a.map(big));
  }
}

/** Apply one extension to the certificate fields; returns whether Go leaves it unhandled. */
function extension(f: Fields, e: Ext): boolean {
  const v = e.value;
  switch (e.id) {
    case '2.5.29.15':
      f.KeyUsage = AsnParser.parse(v, KeyUsage).toNumber() & 0x1ff;
      return false;
    case '2.5.29.19': {
      const bc = AsnParser.parse(v, BasicConstraints);
      f.IsCA = bc.cA;
      f.MaxPathLen = bc.pathLenConstraint === undefined ? -1 : Number(bc.pathLenConstraint);
      f.BasicConstraintsValid = true;
      f.MaxPathLenZero = f.MaxPathLen === 0;
      return false;
    }
    case '2.5.29.17':
      return subjectAltNames(f, v);
    case '2.5.29.30':
      return nameConstraints(f, e);
    case '2.5.29.31':
      for (const { distributionPoint: dp } of AsnParser.parse(v, CRLDistributionPoints)) {
        if (dp && !dp.fullName) throw new Error('x509: invalid CRL distribution point');
        for (const uri of uris(dp?.fullName)) push(f, 'CRLDistributionPoints', uri);
      }
      return false;
    case '2.5.29.35': {
      if (e.critical) throw new Error('x509: authority key identifier incorrectly marked critical');
      const kid = AsnParser.parse(v, AuthorityKeyIdentifier).keyIdentifier;
      if (kid) f.AuthorityKeyId = b64(kid.buffer);
      return false;
    }
    case '2.5.29.36': {
      const pc = AsnParser.parse(v, PolicyConstraints);
      for (const [key, field] of [['requireExplicitPolicy', 'RequireExplicitPolicy'], ['inhibitPolicyMapping', 'InhibitPolicyMapping']] as const) {
        const n = pc[key];
        if (n) [f[field], f[`${field}Zero`]] = [Number(signed(n)), signed(n) === 0n];
      }
      return false;
    }
    case '2.5.29.37':
      for (const oid of AsnParser.parse(v, ExtendedKeyUsage)) {
        const known = EXT_KEY_USAGES[oid];
        if (known !== undefined) push(f, 'ExtKeyUsage', known);
        else push(f, 'UnknownExtKeyUsage', arcs(oid));
      }
      return false;
    case '2.5.29.14':
      if (e.critical) throw new Error('x509: subject key identifier incorrectly marked critical');
      f.SubjectKeyId = b64(AsnParser.parse(v, SubjectKeyIdentifier).buffer);
      return false;
    case '2.5.29.32':
      policies(f, v);
      return false;
    case '2.5.29.33':
      for (const m of AsnParser.parse(v, ExactPolicyMappings)) push(f, 'PolicyMappings', { IssuerDomainPolicy: m.issuerDomainPolicy, SubjectDomainPolicy: m.subjectDomainPolicy });
      return false;
    case '2.5.29.54':
      f.InhibitAnyPolicy = Number(signed(AsnParser.parse(v, InhibitAnyPolicy).value));
      f.InhibitAnyPolicyZero = f.InhibitAnyPolicy === 0;
      return false;
    case '1.3.6.1.5.5.7.1.1':
      for (const { accessMethod, accessLocation } of AsnParser.parse(v, AuthorityInfoAccessSyntax)) {
        const uri = accessLocation.uniformResourceIdentifier;
        if (uri === undefined) continue;
        if (accessMethod === '1.3.6.1.5.5.7.48.1') push(f, 'OCSPServer', uri);
        else if (accessMethod === '1.3.6.1.5.5.7.48.2') push(f, 'IssuingCertificateURL', uri);
      }
      return false;
    default:
      return true;
  }
}

/** Apply the extensions to `f`; returns the OIDs of critical extensions Go leaves unhandled. */
export function applyExtensions(f: Fields, extensions: Ext[]): GoJSON[] {
  const unhandled: GoJSON[] = [];
  for (const e of extensions) {
    const known = (e.id.startsWith('2.5.29.') && e.id.split('.').length === 4) || e.id === '1.3.6.1.5.5.7.1.1';
    const skipped = known ? extension(f, e) : true;
    if (e.critical && skipped) unhandled.push(arcs(e.id));
  }
  return unhandled;
}
