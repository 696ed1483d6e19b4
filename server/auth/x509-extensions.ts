// The extensions of a peer certificate as Go's x509 parser applies them to the
// x509.Certificate fields (processExtensions, Go 1.24): key usage, basic
// constraints, SANs, name constraints, CRL distribution points, key ids, policy
// constraints/mappings, extended key usage, policies, inhibitAnyPolicy and AIA.
// Also the Go-JSON value helpers shared with x509-json.ts (Big for *big.Int).
import { TAG, bitAt, goURL, integer, ipString, oidArcs, oidString, reader } from './der.js';

/** A number written verbatim into the JSON text (Go's *big.Int). */
export class Big {
  constructor(readonly text: string) {}
}
export type GoJSON = null | boolean | number | string | Big | GoJSON[] | { [key: string]: GoJSON };

export const b64 = (b: Buffer | undefined): GoJSON => (b === undefined ? null : b.toString('base64'));
export const big = (n: bigint): Big => new Big(n.toString());
export const arcs = (body: Buffer): GoJSON => oidArcs(body).map(big);
/** A Go slice built with append: null when nothing was appended. */
export const slice = <T>(xs: T[] | undefined, f: (x: T) => GoJSON): GoJSON => (xs && xs.length > 0 ? xs.map(f) : null);
export const str = (s: string): GoJSON => s;

// ---- extensions (Go's processExtensions) ----

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

export interface Ext {
  id: Buffer;
  critical: boolean;
  value: Buffer;
}

export type Fields = Record<string, GoJSON>;

function push(f: Fields, key: string, v: GoJSON): void {
  ((f[key] ??= []) as GoJSON[]).push(v);
}

/** Subject alternative names; true when none of the four handled kinds was found. */
function subjectAltNames(f: Fields, value: Buffer): boolean {
  const names = reader(reader(value).next(TAG.SEQUENCE));
  let found = false;
  while (!names.empty()) {
    const n = names.any();
    const text = n.body.toString('latin1');
    if (n.tag === 0x81) push(f, 'EmailAddresses', text);
    else if (n.tag === 0x82) push(f, 'DNSNames', text);
    else if (n.tag === 0x86) push(f, 'URIs', goURL(text));
    else if (n.tag === 0x87) push(f, 'IPAddresses', ipString(n.body));
    else continue;
    found = true;
  }
  return !found;
}

/** Name constraints; true when a constraint of an unhandled kind (e.g. directoryName) was seen. */
function nameConstraints(f: Fields, e: Ext): boolean {
  const top = reader(reader(e.value).next(TAG.SEQUENCE));
  let unhandled = false;
  for (const [tag, prefix] of [[0xa0, 'Permitted'], [0xa1, 'Excluded']] as const) {
    const subtrees = top.optional(tag);
    if (!subtrees) continue;
    const r = reader(subtrees);
    while (!r.empty()) {
      const base = reader(r.next(TAG.SEQUENCE)).any();
      const text = base.body.toString('latin1');
      if (base.tag === 0x82) push(f, `${prefix}DNSDomains`, text);
      else if (base.tag === 0x81) push(f, `${prefix}EmailAddresses`, text);
      else if (base.tag === 0x86) push(f, `${prefix}URIDomains`, text);
      else if (base.tag === 0x87) {
        const half = base.body.length / 2;
        push(f, `${prefix}IPRanges`, { IP: ipString(base.body.subarray(0, half)), Mask: base.body.subarray(half).toString('base64') });
      } else unhandled = true;
    }
  }
  f.PermittedDNSDomainsCritical = e.critical;
  return unhandled;
}

function policies(f: Fields, value: Buffer): void {
  const seq = reader(reader(value).next(TAG.SEQUENCE));
  f.PolicyIdentifiers = [];
  while (!seq.empty()) {
    const oid = reader(seq.next(TAG.SEQUENCE)).next(TAG.OID).body;
    push(f, 'Policies', oidString(oid));
    // asn1.ObjectIdentifier holds int arcs: policies that do not fit are left out.
    const a = oidArcs(oid);
    if (a.every((x, i) => x + (i === 1 ? a[0]! * 40n : 0n) < 2n ** 31n)) (f.PolicyIdentifiers as GoJSON[]).push(a.map(big));
  }
}

/** Apply one extension to the certificate fields; returns whether Go leaves it unhandled. */
function extension(f: Fields, e: Ext): boolean {
  const id = oidString(e.id);
  const v = reader(e.value);
  switch (id) {
    case '2.5.29.15': {
      const bits = v.next(TAG.BIT_STRING).body;
      let usage = 0;
      for (let i = 0; i < 9; i++) usage |= bitAt(bits, i) << i;
      f.KeyUsage = usage;
      return false;
    }
    case '2.5.29.19': {
      const bc = reader(v.next(TAG.SEQUENCE));
      const ca = bc.optional(TAG.BOOLEAN);
      const len = bc.optional(TAG.INTEGER);
      f.IsCA = ca !== undefined && ca.body[0] !== 0;
      f.MaxPathLen = len ? Number(integer(len.body)) : -1;
      f.BasicConstraintsValid = true;
      f.MaxPathLenZero = f.MaxPathLen === 0;
      return false;
    }
    case '2.5.29.17':
      return subjectAltNames(f, e.value);
    case '2.5.29.30':
      return nameConstraints(f, e);
    case '2.5.29.31': {
      const dps = reader(v.next(TAG.SEQUENCE));
      while (!dps.empty()) {
        const name = reader(dps.next(TAG.SEQUENCE)).optional(0xa0);
        if (!name) continue;
        const full = reader(name).optional(0xa0);
        const r = full ? reader(full) : undefined;
        while (r && r.peek() === 0x86) push(f, 'CRLDistributionPoints', r.any().body.toString('latin1'));
      }
      return false;
    }
    case '2.5.29.35': {
      const kid = reader(v.next(TAG.SEQUENCE)).optional(0x80);
      if (kid) f.AuthorityKeyId = kid.body.toString('base64');
      return false;
    }
    case '2.5.29.36': {
      const pc = reader(v.next(TAG.SEQUENCE));
      for (const [tag, key] of [[0x80, 'RequireExplicitPolicy'], [0x81, 'InhibitPolicyMapping']] as const) {
        const n = pc.optional(tag);
        if (n) [f[key], f[`${key}Zero`]] = [Number(integer(n.body)), integer(n.body) === 0n];
      }
      return false;
    }
    case '2.5.29.37': {
      const usages = reader(v.next(TAG.SEQUENCE));
      while (!usages.empty()) {
        const oid = usages.next(TAG.OID).body;
        const known = EXT_KEY_USAGES[oidString(oid)];
        if (known !== undefined) push(f, 'ExtKeyUsage', known);
        else push(f, 'UnknownExtKeyUsage', arcs(oid));
      }
      return false;
    }
    case '2.5.29.14':
      f.SubjectKeyId = v.next(TAG.OCTET_STRING).body.toString('base64');
      return false;
    case '2.5.29.32':
      policies(f, e.value);
      return false;
    case '2.5.29.33': {
      const maps = reader(v.next(TAG.SEQUENCE));
      while (!maps.empty()) {
        const m = reader(maps.next(TAG.SEQUENCE));
        push(f, 'PolicyMappings', { IssuerDomainPolicy: oidString(m.next(TAG.OID).body), SubjectDomainPolicy: oidString(m.next(TAG.OID).body) });
      }
      return false;
    }
    case '2.5.29.54':
      f.InhibitAnyPolicy = Number(integer(v.next(TAG.INTEGER).body));
      f.InhibitAnyPolicyZero = f.InhibitAnyPolicy === 0;
      return false;
    case '1.3.6.1.5.5.7.1.1': {
      const aia = reader(v.next(TAG.SEQUENCE));
      while (!aia.empty()) {
        const ad = reader(aia.next(TAG.SEQUENCE));
        const method = oidString(ad.next(TAG.OID).body);
        const loc = ad.optional(0x86);
        if (!loc) continue;
        if (method === '1.3.6.1.5.5.7.48.1') push(f, 'OCSPServer', loc.body.toString('latin1'));
        else if (method === '1.3.6.1.5.5.7.48.2') push(f, 'IssuingCertificateURL', loc.body.toString('latin1'));
      }
      return false;
    }
    default:
      return true;
  }
}

/** Apply the extensions to `f`; returns the OIDs of critical extensions Go leaves unhandled. */
export function applyExtensions(f: Fields, extensions: Ext[]): GoJSON[] {
  const unhandled: GoJSON[] = [];
  for (const e of extensions) {
    const id = oidString(e.id);
    const known = (id.startsWith('2.5.29.') && oidArcs(e.id).length === 4) || id === '1.3.6.1.5.5.7.1.1';
    const skipped = known ? extension(f, e) : true;
    if (e.critical && skipped) unhandled.push(arcs(e.id));
  }
  return unhandled;
}
