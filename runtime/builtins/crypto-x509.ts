// X.509 certificates and CSRs as OPA returns them: the JSON encoding of Go's
// x509.Certificate / x509.CertificateRequest (plus OPA's URIStrings). Parsing of
// structure uses the small DER reader; key material goes through node:crypto.
import { createPublicKey, X509Certificate as NodeX509 } from 'node:crypto';
import { children, intString, isCtx, oidString, parseOid, readTlv, stringValue, timeValue, type Tlv } from './crypto-der.js';

type J = unknown;

const SIG_ALGS: Record<string, number> = {
  '1.2.840.113549.1.1.2': 1,
  '1.2.840.113549.1.1.4': 2,
  '1.2.840.113549.1.1.5': 3,
  '1.2.840.113549.1.1.11': 4,
  '1.2.840.113549.1.1.12': 5,
  '1.2.840.113549.1.1.13': 6,
  '1.2.840.10040.4.3': 7,
  '2.16.840.1.101.3.4.3.2': 8,
  '1.2.840.10045.4.1': 9,
  '1.2.840.10045.4.3.2': 10,
  '1.2.840.10045.4.3.3': 11,
  '1.2.840.10045.4.3.4': 12,
  '1.3.101.112': 16,
};
const PSS_HASH: Record<string, number> = { '2.16.840.1.101.3.4.2.1': 13, '2.16.840.1.101.3.4.2.2': 14, '2.16.840.1.101.3.4.2.3': 15 };
const PK_ALGS: Record<string, number> = { '1.2.840.113549.1.1.1': 1, '1.2.840.10040.4.1': 2, '1.2.840.10045.2.1': 3, '1.3.101.112': 4 };
const EXT_KEY_USAGE: Record<string, number> = {
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
const NAME_FIELDS: Record<string, [string, boolean]> = {
  '2.5.4.6': ['Country', true],
  '2.5.4.10': ['Organization', true],
  '2.5.4.11': ['OrganizationalUnit', true],
  '2.5.4.7': ['Locality', true],
  '2.5.4.8': ['Province', true],
  '2.5.4.9': ['StreetAddress', true],
  '2.5.4.17': ['PostalCode', true],
  '2.5.4.5': ['SerialNumber', false],
  '2.5.4.3': ['CommonName', false],
};

function sigAlg(t: Tlv): number {
  const parts = children(t);
  const oid = oidString(parts[0]!.value);
  if (oid === '1.2.840.113549.1.1.10') {
    // RSASSA-PSS: hash from the parameters (default SHA-1 is unsupported by Go → 0).
    try {
      const params = children(parts[1]!);
      const h = params.find((p) => isCtx(p, 0));
      if (h) return PSS_HASH[oidString(children(children(h)[0]!)[0]!.value)] ?? 0;
    } catch {
      return 0;
    }
    return 0;
  }
  return SIG_ALGS[oid] ?? 0;
}

/** pkix.Name JSON. */
export function nameToJS(t: Tlv): Record<string, J> {
  const out: Record<string, J> = {};
  for (const [, [field, multi]] of Object.entries(NAME_FIELDS)) out[field] = multi ? null : '';
  const names: J[] = [];
  for (const rdn of children(t)) {
    for (const atv of children(rdn)) {
      const [oidT, valT] = children(atv);
      const oid = parseOid(oidT!.value);
      const value = stringValue(valT!);
      names.push({ Type: oid, Value: value });
      const f = NAME_FIELDS[oid.join('.')];
      if (!f) continue;
      if (f[1]) {
        if (out[f[0]] === null) out[f[0]] = [];
        (out[f[0]] as string[]).push(value);
      } else out[f[0]] = value;
    }
  }
  out.Names = names.length ? names : null;
  out.ExtraNames = null;
  return out;
}

function publicKeyToJS(spki: Buffer, alg: number): J {
  try {
    const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    const jwk = key.export({ format: 'jwk' }) as Record<string, string>;
    const big = (s: string) => BigInt('0x' + (Buffer.from(s, 'base64url').toString('hex') || '0'));
    if (alg === 1) return { N: big(jwk.n!), E: Number(big(jwk.e!)) };
    if (alg === 3) return { Curve: {}, X: big(jwk.x!), Y: big(jwk.y!) };
    if (alg === 4) return Buffer.from(jwk.x!, 'base64url').toString('base64');
  } catch {
    /* unsupported key: fall through */
  }
  return {};
}

function generalNames(t: Tlv, acc: { dns: string[]; email: string[]; ip: string[]; uri: string[] }): void {
  for (const g of children(t)) {
    if (isCtx(g, 2)) acc.dns.push(g.value.toString('latin1'));
    else if (isCtx(g, 1)) acc.email.push(g.value.toString('latin1'));
    else if (isCtx(g, 6)) acc.uri.push(g.value.toString('latin1'));
    else if (isCtx(g, 7)) {
      const b = g.value;
      if (b.length === 4) acc.ip.push([...b].join('.'));
      else if (b.length === 16) {
        const parts: string[] = [];
        for (let i = 0; i < 16; i += 2) parts.push(((b[i]! << 8) | b[i + 1]!).toString(16));
        acc.ip.push(new URL(`http://[${parts.join(':')}]`).hostname.slice(1, -1));
      }
    }
  }
}

function uriToGo(u: string): J {
  const m = u.match(/^([a-zA-Z][a-zA-Z0-9+.-]*):(\/\/([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?$/);
  if (!m) return { Scheme: '', Opaque: u, User: null, Host: '', Path: '', RawPath: '', OmitHost: false, ForceQuery: false, RawQuery: '', Fragment: '', RawFragment: '' };
  return {
    Scheme: m[1],
    Opaque: m[2] === undefined ? m[4] : '',
    User: null,
    Host: m[3] ?? '',
    Path: m[2] === undefined ? '' : m[4],
    RawPath: '',
    OmitHost: false,
    ForceQuery: false,
    RawQuery: m[6] ?? '',
    Fragment: m[8] ?? '',
    RawFragment: '',
  };
}

/** Fill the extension-derived fields of a certificate / CSR object. */
function applyExtensions(out: Record<string, J>, exts: Tlv[]): void {
  const san = { dns: [] as string[], email: [] as string[], ip: [] as string[], uri: [] as string[] };
  const list: J[] = [];
  for (const ext of exts) {
    const parts = children(ext);
    const id = parseOid(parts[0]!.value);
    const critical = parts.length === 3 && parts[1]!.value[0] !== 0;
    const value = parts[parts.length - 1]!.value;
    list.push({ Id: id, Critical: critical, Value: value.toString('base64') });
    try {
      const inner = readTlv(value);
      switch (id.join('.')) {
        case '2.5.29.17':
          generalNames(inner, san);
          break;
        case '2.5.29.19': {
          out.BasicConstraintsValid = true;
          for (const c of children(inner)) {
            if (c.tag === 0x01) out.IsCA = c.value[0] !== 0;
            if (c.tag === 0x02) {
              out.MaxPathLen = Number(intString(c.value));
              out.MaxPathLenZero = out.MaxPathLen === 0;
            }
          }
          break;
        }
        case '2.5.29.15': {
          const unused = inner.value[0] ?? 0;
          let usage = 0;
          const bits = inner.value.subarray(1);
          for (let i = 0; i < bits.length * 8 - unused; i++) if (bits[i >> 3]! & (0x80 >> (i & 7))) usage |= 1 << i;
          out.KeyUsage = usage;
          break;
        }
        case '2.5.29.37': {
          const known: number[] = [];
          const unknown: number[][] = [];
          for (const c of children(inner)) {
            const k = EXT_KEY_USAGE[oidString(c.value)];
            if (k === undefined) unknown.push(parseOid(c.value));
            else known.push(k);
          }
          out.ExtKeyUsage = known.length ? known : null;
          out.UnknownExtKeyUsage = unknown.length ? unknown : null;
          break;
        }
        case '2.5.29.14':
          out.SubjectKeyId = inner.value.toString('base64');
          break;
        case '2.5.29.35': {
          const k = children(inner).find((c) => isCtx(c, 0));
          if (k) out.AuthorityKeyId = k.value.toString('base64');
          break;
        }
        case '1.3.6.1.5.5.7.1.1': {
          const ocsp: string[] = [];
          const issuers: string[] = [];
          for (const ad of children(inner)) {
            const [m, loc] = children(ad);
            if (!isCtx(loc!, 6)) continue;
            const method = oidString(m!.value);
            if (method === '1.3.6.1.5.5.7.48.1') ocsp.push(loc!.value.toString('latin1'));
            if (method === '1.3.6.1.5.5.7.48.2') issuers.push(loc!.value.toString('latin1'));
          }
          out.OCSPServer = ocsp.length ? ocsp : null;
          out.IssuingCertificateURL = issuers.length ? issuers : null;
          break;
        }
        case '2.5.29.31': {
          const dps: string[] = [];
          for (const dp of children(inner)) {
            const name = children(dp).find((c) => isCtx(c, 0));
            const full = name && children(name).find((c) => isCtx(c, 0));
            if (full) for (const g of children(full)) if (isCtx(g, 6)) dps.push(g.value.toString('latin1'));
          }
          out.CRLDistributionPoints = dps.length ? dps : null;
          break;
        }
        case '2.5.29.32': {
          const ids = children(inner).map((p) => parseOid(children(p)[0]!.value));
          out.PolicyIdentifiers = ids.length ? ids : null;
          break;
        }
      }
    } catch {
      /* malformed extension contents are ignored here */
    }
  }
  out.Extensions = list.length ? list : null;
  out.DNSNames = san.dns.length ? san.dns : null;
  out.EmailAddresses = san.email.length ? san.email : null;
  out.IPAddresses = san.ip.length ? san.ip : null;
  out.URIs = san.uri.length ? san.uri.map(uriToGo) : null;
  out.URIStrings = san.uri.length ? san.uri : null;
}

/** One DER certificate → Go x509.Certificate JSON (as a plain JS object). */
export function certToJS(der: Buffer): Record<string, J> {
  // Let node validate the structure first; it rejects what Go would reject.
  new NodeX509(der);
  const cert = readTlv(der);
  const [tbs, sigAlgT, sigT] = children(cert);
  let fields = children(tbs!);
  let version = 1;
  if (isCtx(fields[0]!, 0) || fields[0]!.tag === 0xa0) {
    version = Number(intString(children(fields[0]!)[0]!.value)) + 1;
    fields = fields.slice(1);
  }
  const [serial, , issuer, validity, subject, spki, ...rest] = fields;
  const [nb, na] = children(validity!);
  const pkAlg = PK_ALGS[oidString(children(children(spki!)[0]!)[0]!.value)] ?? 0;
  const out: Record<string, J> = {
    Raw: der.toString('base64'),
    RawTBSCertificate: tbs!.raw.toString('base64'),
    RawSubjectPublicKeyInfo: spki!.raw.toString('base64'),
    RawSubject: subject!.raw.toString('base64'),
    RawIssuer: issuer!.raw.toString('base64'),
    Signature: sigT!.value.subarray(1).toString('base64'),
    SignatureAlgorithm: sigAlg(sigAlgT!),
    PublicKeyAlgorithm: pkAlg,
    PublicKey: publicKeyToJS(Buffer.from(spki!.raw), pkAlg),
    Version: version,
    SerialNumber: BigInt(intString(serial!.value)),
    Issuer: nameToJS(issuer!),
    Subject: nameToJS(subject!),
    NotBefore: timeValue(nb!),
    NotAfter: timeValue(na!),
    KeyUsage: 0,
    Extensions: null,
    ExtraExtensions: null,
    UnhandledCriticalExtensions: null,
    ExtKeyUsage: null,
    UnknownExtKeyUsage: null,
    BasicConstraintsValid: false,
    IsCA: false,
    MaxPathLen: -1,
    MaxPathLenZero: false,
    SubjectKeyId: null,
    AuthorityKeyId: null,
    OCSPServer: null,
    IssuingCertificateURL: null,
    DNSNames: null,
    EmailAddresses: null,
    IPAddresses: null,
    URIs: null,
    PermittedDNSDomainsCritical: false,
    PermittedDNSDomains: null,
    ExcludedDNSDomains: null,
    PermittedIPRanges: null,
    ExcludedIPRanges: null,
    PermittedEmailAddresses: null,
    ExcludedEmailAddresses: null,
    PermittedURIDomains: null,
    ExcludedURIDomains: null,
    CRLDistributionPoints: null,
    PolicyIdentifiers: null,
    Policies: null,
    InhibitAnyPolicy: 0,
    InhibitAnyPolicyZero: false,
    InhibitPolicyMapping: 0,
    InhibitPolicyMappingZero: false,
    RequireExplicitPolicy: 0,
    RequireExplicitPolicyZero: false,
    PolicyMappings: null,
    URIStrings: null,
  };
  const extWrap = rest.find((t) => t.tag === 0xa3);
  applyExtensions(out, extWrap ? children(children(extWrap)[0]!) : []);
  if (out.BasicConstraintsValid === false) out.MaxPathLen = 0;
  return out;
}

/** One DER CSR → Go x509.CertificateRequest JSON. */
export function csrToJS(der: Buffer): Record<string, J> {
  const csr = readTlv(der);
  if (csr.tag !== 0x30 || csr.end !== der.length) throw new Error('x509: malformed certificate request');
  const [info, sigAlgT, sigT] = children(csr);
  const [ver, subject, spki, attrs] = children(info!);
  const pkAlg = PK_ALGS[oidString(children(children(spki!)[0]!)[0]!.value)] ?? 0;
  const out: Record<string, J> = {
    Raw: der.toString('base64'),
    RawTBSCertificateRequest: info!.raw.toString('base64'),
    RawSubjectPublicKeyInfo: spki!.raw.toString('base64'),
    RawSubject: subject!.raw.toString('base64'),
    Version: Number(intString(ver!.value)),
    Signature: sigT!.value.subarray(1).toString('base64'),
    SignatureAlgorithm: sigAlg(sigAlgT!),
    PublicKeyAlgorithm: pkAlg,
    PublicKey: publicKeyToJS(Buffer.from(spki!.raw), pkAlg),
    Subject: nameToJS(subject!),
    Attributes: null,
    Extensions: null,
    ExtraExtensions: null,
    DNSNames: null,
    EmailAddresses: null,
    IPAddresses: null,
    URIs: null,
  };
  const exts: Tlv[] = [];
  if (attrs) {
    for (const a of children(attrs)) {
      const [oid, set] = children(a);
      if (oidString(oid!.value) === '1.2.840.113549.1.9.14') for (const seq of children(set!)) exts.push(...children(seq));
    }
  }
  applyExtensions(out, exts);
  delete out.URIStrings;
  return out;
}
