// Peer certificates as OPA's TLS identifier hands them to the authorizer: Go's
// x509.Certificate (as x509.ParseCertificate fills it, Go 1.24 fields) marshalled
// with encoding/json, and the identity `Subject.ToRDNSequence().String()`.
// Byte slices are base64, big.Int (serial, RSA/EC/DSA key numbers) exact JSON
// numbers, OIDs int arrays (OID-typed fields dotted strings), times RFC 3339,
// nil slices null. The structure is read with der.ts; nothing is verified here
// (the handshake did that). Extensions: x509-extensions.ts.
import { parseJSON, type Value } from '../../runtime/index.js';
import { TAG, asn1String, bitStringBytes, integer, oidString, reader, time, type Element } from './der.js';
import { Big, applyExtensions, arcs, b64, big, slice, str, type Ext, type Fields, type GoJSON } from './x509-extensions.js';


// ---- names (pkix.Name) ----

interface ATV {
  type: Buffer;
  value: string;
}
const NAME_FIELDS: Record<string, string> = { '2.5.4.3': 'CN', '2.5.4.5': 'SERIALNUMBER', '2.5.4.6': 'C', '2.5.4.7': 'L', '2.5.4.8': 'ST', '2.5.4.9': 'STREET', '2.5.4.10': 'O', '2.5.4.11': 'OU', '2.5.4.17': 'POSTALCODE' };
/** ToRDNSequence's order; the string form lists it reversed. */
const RDN_ORDER = ['C', 'ST', 'L', 'STREET', 'POSTALCODE', 'O', 'OU', 'CN', 'SERIALNUMBER'];

class GoName {
  readonly names: ATV[] = [];
  readonly fields: Record<string, string[]> = {};

  constructor(e: Element) {
    const seq = reader(e);
    while (!seq.empty()) {
      const set = reader(seq.next(TAG.SET));
      while (!set.empty()) {
        const atv = reader(set.next(TAG.SEQUENCE));
        const type = atv.next(TAG.OID).body;
        const v = atv.any();
        const value = asn1String(v.tag, v.body);
        this.names.push({ type, value });
        const field = NAME_FIELDS[oidString(type)];
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

function escapeDN(v: string): string {
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    const esc = ',+"\\<>;'.includes(c) || (c === ' ' && (i === 0 || i === v.length - 1)) || (c === '#' && i === 0);
    out += esc ? '\\' + c : c;
  }
  return out;
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
const PSS_HASHES: Record<string, [number, number]> = { '2.16.840.1.101.3.4.2.1': [32, 13], '2.16.840.1.101.3.4.2.2': [48, 14], '2.16.840.1.101.3.4.2.3': [64, 15] };
const NULL_PARAMS = (p: Element | undefined): boolean => p === undefined || (p.tag === 0x05 && p.body.length === 0);

function algorithmIdentifier(e: Element): { oid: string; params?: Element } {
  const r = reader(e);
  const oid = oidString(r.next(TAG.OID).body);
  return r.empty() ? { oid } : { oid, params: r.any() };
}

/** Go's getSignatureAlgorithmFromAI (x509.SignatureAlgorithm enum). */
function signatureAlgorithm(ai: { oid: string; params?: Element }): number {
  if (ai.oid === '1.3.101.112' && ai.params) return 0;
  if (ai.oid !== RSA_PSS) return SIGNATURE_ALGORITHMS[ai.oid] ?? 0;
  try {
    const p = reader(ai.params!);
    const hash = algorithmIdentifier(reader(p.next(0xa0)).next(TAG.SEQUENCE));
    const mgf = algorithmIdentifier(reader(p.next(0xa1)).next(TAG.SEQUENCE));
    const salt = Number(integer(reader(p.next(0xa2)).next(TAG.INTEGER).body));
    const trailer = p.optional(0xa3);
    const mgfHash = algorithmIdentifier(mgf.params!);
    const ok = NULL_PARAMS(hash.params) && mgf.oid === '1.2.840.113549.1.1.8' && mgfHash.oid === hash.oid && NULL_PARAMS(mgfHash.params);
    if (!ok || (trailer && integer(reader(trailer).next(TAG.INTEGER).body) !== 1n)) return 0;
    const [len, algo] = PSS_HASHES[hash.oid] ?? [-1, 0];
    return salt === len ? algo : 0;
  } catch {
    return 0;
  }
}

const CURVES: Record<string, number> = { '1.3.132.0.33': 28, '1.2.840.10045.3.1.7': 32, '1.3.132.0.34': 48, '1.3.132.0.35': 66 };

/** PublicKeyAlgorithm enum and the JSON of the parsed key (*rsa.PublicKey, …). */
function publicKey(spki: Element): [number, GoJSON] {
  const r = reader(spki);
  const ai = algorithmIdentifier(r.next(TAG.SEQUENCE));
  const key = bitStringBytes(r.next(TAG.BIT_STRING).body);
  switch (ai.oid) {
    case '1.2.840.113549.1.1.1': {
      const k = reader(reader(key).next(TAG.SEQUENCE));
      const n = integer(k.next(TAG.INTEGER).body);
      return [1, { N: big(n), E: Number(integer(k.next(TAG.INTEGER).body)) }];
    }
    case '1.2.840.10040.4.1': {
      const p = reader(ai.params!.body);
      const [P, Q, G] = [0, 1, 2].map(() => big(integer(p.next(TAG.INTEGER).body)));
      return [2, { P: P!, Q: Q!, G: G!, Y: big(integer(reader(key).next(TAG.INTEGER).body)) }];
    }
    case '1.2.840.10045.2.1': {
      const size = ai.params?.tag === TAG.OID ? CURVES[oidString(ai.params.body)] : undefined;
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

// ---- the certificate ----

/** Go's x509.Certificate JSON for one DER certificate, and its subject identity string. */
export function goCertificate(der: Buffer): { identity: string; json: GoJSON } {
  const outer = reader(der).next(TAG.SEQUENCE);
  const cert = reader(outer);
  const tbsElement = cert.next(TAG.SEQUENCE);
  const tbs = reader(tbsElement);
  const explicitVersion = tbs.optional(0xa0);
  const version = (explicitVersion ? Number(integer(reader(explicitVersion).next(TAG.INTEGER).body)) : 0) + 1;
  const serial = integer(tbs.next(TAG.INTEGER).body);
  const sigAlgorithm = signatureAlgorithm(algorithmIdentifier(tbs.next(TAG.SEQUENCE)));
  const issuerElement = tbs.next(TAG.SEQUENCE);
  const validity = reader(tbs.next(TAG.SEQUENCE));
  const notBefore = time(validity.any());
  const notAfter = time(validity.any());
  const subjectElement = tbs.next(TAG.SEQUENCE);
  const spki = tbs.next(TAG.SEQUENCE);
  const [keyAlgorithm, key] = publicKey(spki);
  const extensions: Ext[] = [];
  if (version > 1) {
    tbs.optional(0x81);
    tbs.optional(0x82);
    const list = version === 3 ? tbs.optional(0xa3) : undefined;
    const r = list ? reader(reader(list).next(TAG.SEQUENCE)) : undefined;
    while (r && !r.empty()) {
      const x = reader(r.next(TAG.SEQUENCE));
      const id = x.next(TAG.OID).body;
      const critical = x.optional(TAG.BOOLEAN);
      extensions.push({ id, critical: critical !== undefined && critical.body[0] !== 0, value: x.next(TAG.OCTET_STRING).body });
    }
  }
  cert.next(TAG.SEQUENCE);
  const signature = bitStringBytes(cert.next(TAG.BIT_STRING).body);

  const f: Fields = {};
  const unhandled = applyExtensions(f, extensions);
  const subject = new GoName(subjectElement);
  const values: Fields = {
    ...f,
    Raw: b64(outer.full),
    RawTBSCertificate: b64(tbsElement.full),
    RawSubjectPublicKeyInfo: b64(spki.full),
    RawSubject: b64(subjectElement.full),
    RawIssuer: b64(issuerElement.full),
    Signature: b64(signature),
    SignatureAlgorithm: sigAlgorithm,
    PublicKeyAlgorithm: keyAlgorithm,
    PublicKey: key,
    Version: version,
    SerialNumber: big(serial),
    Issuer: new GoName(issuerElement).json(),
    Subject: subject.json(),
    NotBefore: notBefore,
    NotAfter: notAfter,
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

function jsonText(v: GoJSON): string {
  if (v === null) return 'null';
  if (v instanceof Big) return v.text;
  if (Array.isArray(v)) return `[${v.map(jsonText).join(',')}]`;
  if (typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`).join(',')}}`;
  return JSON.stringify(v);
}

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
