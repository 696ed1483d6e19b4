// The extensions of a peer certificate as Go's x509 parser applies them to the
// x509.Certificate fields (processExtensions, Go 1.24): key usage, basic
// constraints, SANs, name constraints, CRL distribution points, key ids, policy
// constraints/mappings, extended key usage, policies, inhibitAnyPolicy and AIA.
// Each value is decoded with its @peculiar/asn1-x509 type (policies with
// x509-schemas.ts's, for exact OIDs); Go's value forms are in go-formats.ts.
import { AsnParser } from '@peculiar/asn1-schema';
import {
  AsnIpConverter,
  AuthorityInfoAccessSyntax,
  AuthorityKeyIdentifier,
  BasicConstraints,
  CRLDistributionPoints,
  ExtendedKeyUsage,
  InhibitAnyPolicy,
  KeyUsage,
  NameConstraints,
  PolicyConstraints,
  SubjectAlternativeName,
  SubjectKeyIdentifier,
  type GeneralName,
} from '@peculiar/asn1-x509';
import { arcs, b64, big, goURL, ipString, signed, type GoJSON } from './go-formats.js';
import { ExactCertificatePolicies, ExactPolicyMappings } from './x509-schemas.js';

const EXT_KEY_USAGES: Record<string, number> = {
  '2.5.29.37.0': 0,
  '1.3.6.1.5.5.7.3.1': 1,
  '1.3.6.1.5.5.7.3.2': 2,
  '1.3.6.1.5.5.7.3.3': 3,
  '1.3.6.1.5.5.7.3.4': 4,
  '1.3.6.1.5.5.7.3.5': 5,
  '1.3.6.1.5.5.7.3.6': 6,
  '1.3.6.1.5.5.7.3.7': 7,
  '1.3.6.1.5.5.7.3.8': 8,
  '1.3.6.1.5.5.7.3.9': 9,
  '1.3.6.1.4.1.311.10.3.3': 10,
  '2.16.840.1.113730.4.1': 11,
  '1.3.6.1.4.1.311.2.1.22': 12,
  '1.3.6.1.4.1.311.61.1.1': 13,
};

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

/**
 * An iPAddress's octets. asn1-x509 gives them as text (dotted, RFC 5952, or
 * `address/prefix` in name constraints); its own converter turns that back.
 */
const ipOctets = (text: string): Buffer => Buffer.from((AsnIpConverter.toASN(text) as unknown as { getValue(): ArrayBuffer }).getValue());

/** Subject alternative names; true when none of the four handled kinds was found. */
function subjectAltNames(f: Fields, value: Buffer): boolean {
  let found = false;
  for (const n of AsnParser.parse(value, SubjectAlternativeName)) {
    if (n.rfc822Name !== undefined) push(f, 'EmailAddresses', n.rfc822Name);
    else if (n.dNSName !== undefined) push(f, 'DNSNames', n.dNSName);
    else if (n.uniformResourceIdentifier !== undefined) push(f, 'URIs', goURL(n.uniformResourceIdentifier));
    else if (n.iPAddress !== undefined) push(f, 'IPAddresses', ipString(ipOctets(n.iPAddress)));
    else continue;
    found = true;
  }
  return !found;
}

/** Name constraints; true when a constraint of an unhandled kind (e.g. directoryName) was seen. */
function nameConstraints(f: Fields, e: Ext): boolean {
  const nc = AsnParser.parse(e.value, NameConstraints);
  let unhandled = false;
  for (const [subtrees, prefix] of [[nc.permittedSubtrees, 'Permitted'], [nc.excludedSubtrees, 'Excluded']] as const) {
    for (const { base } of subtrees ?? []) {
      if (base.dNSName !== undefined) push(f, `${prefix}DNSDomains`, base.dNSName);
      else if (base.rfc822Name !== undefined) push(f, `${prefix}EmailAddresses`, base.rfc822Name);
      else if (base.uniformResourceIdentifier !== undefined) push(f, `${prefix}URIDomains`, base.uniformResourceIdentifier);
      else if (base.iPAddress !== undefined) {
        const b = ipOctets(base.iPAddress);
        push(f, `${prefix}IPRanges`, { IP: ipString(b.subarray(0, b.length / 2)), Mask: b.subarray(b.length / 2).toString('base64') });
      } else unhandled = true;
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
      for (const dp of AsnParser.parse(v, CRLDistributionPoints)) for (const uri of uris(dp.distributionPoint?.fullName)) push(f, 'CRLDistributionPoints', uri);
      return false;
    case '2.5.29.35': {
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
