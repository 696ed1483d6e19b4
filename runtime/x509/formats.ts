// How Go writes the values of an x509.Certificate / CertificateRequest:
// encoding/json's forms (byte slices base64, *big.Int exact numbers, nil slices
// null, time.Time RFC 3339) and the text of net.IP, url.URL and pkix names; and
// value.ts converts such a document to a Rego value. Formatting only: the DER is
// decoded by @peculiar/asn1-schema (certificate.ts, fields.ts, extensions.ts).
// Imports nothing of the runtime outside runtime/x509 (see decode.ts).

/** A document as Go's encoding/json writes it; a bigint is a *big.Int, written exactly. */
export type GoJSON = null | boolean | number | string | bigint | GoJSON[] | GoObject;
export type GoObject = { [key: string]: GoJSON };

export const b64 = (b: ArrayBuffer | Uint8Array | undefined): GoJSON => (b === undefined ? null : Buffer.from(b as Uint8Array).toString('base64'));
export const big = (n: bigint): GoJSON => n;
/** A dotted OID as Go's asn1.ObjectIdentifier JSON (an int array). */
export const arcs = (oid: string): GoJSON => oid.split('.').map((a) => big(BigInt(a)));
/** A Go slice built with append: null when nothing was appended. */
export const slice = <T>(xs: T[] | undefined, f: (x: T) => GoJSON): GoJSON => (xs && xs.length > 0 ? xs.map(f) : null);
export const str = (s: string): GoJSON => s;

/** The value of a two's complement INTEGER's content octets. */
export function signed(bytes: ArrayBuffer | Uint8Array): bigint {
  const b = Buffer.from(bytes as Uint8Array);
  return BigInt.asIntN(b.length * 8, BigInt('0x' + b.toString('hex')));
}

/** Go's BitString.RightAlign: the bits shifted right over the unused ones. */
export function rightAlign(bytes: ArrayBuffer, unusedBits: number): Buffer {
  const b = Buffer.from(bytes);
  if (unusedBits === 0) return b;
  const out = Buffer.alloc(b.length);
  for (let i = 0, carry = 0; i < b.length; i++) {
    out[i] = carry | (b[i]! >> unusedBits);
    carry = (b[i]! << (8 - unusedBits)) & 0xff;
  }
  return out;
}

const UTC_TIME = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?()(Z|[+-]\d{4})$/;
const GENERALIZED_TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\.\d*[1-9])?(Z|[+-]\d{4})$/;

/**
 * A UTCTime or GeneralizedTime as written, as Go's time.Time JSON (RFC 3339, the
 * zone offset kept). Like cryptobyte, only texts that Go formats back the same
 * way are accepted: no `+0000` zone, no trailing zeros in fractions.
 */
export function goTime(text: string, utc: boolean): string {
  const m = (utc ? UTC_TIME : GENERALIZED_TIME).exec(text);
  if (!m || /^[+-]0000$/.test(m[8]!)) throw new Error(`x509: malformed ${utc ? 'UTCTime' : 'GeneralizedTime'}`);
  let year = m[1]!;
  if (utc) year = (Number(year) >= 50 ? '19' : '20') + year;
  const zone = m[8] === 'Z' ? 'Z' : `${m[8]!.slice(0, 3)}:${m[8]!.slice(3)}`;
  return `${year}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${m[7] ?? ''}${zone}`;
}

/** An attribute value escaped as in pkix.Name's String (RFC 4514). */
export function escapeDN(v: string): string {
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    const esc = ',+"\\<>;'.includes(c) || (c === ' ' && (i === 0 || i === v.length - 1)) || (c === '#' && i === 0);
    out += esc ? '\\' + c : c;
  }
  return out;
}

/** net.IP's text form: dotted IPv4 (also for IPv4-mapped IPv6), RFC 5952 IPv6. */
export function ipString(b: Buffer): string {
  if (b.length === 4) return [...b].join('.');
  if (b.length !== 16) return '?' + b.toString('hex');
  if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return [...b.subarray(12)].join('.');
  const groups = Array.from({ length: 8 }, (_, i) => b.readUInt16BE(i * 2));
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

/** Go's shouldEscape for paths and fragments (encodePath, encodeFragment). */
function shouldEscape(c: number, fragment: boolean): boolean {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9\-_.~]/.test(ch)) return false;
  if ('$&+,/:;=?@'.includes(ch)) return fragment ? false : ch === '?';
  return !(fragment && '!()*'.includes(ch));
}

/** Go's url unescape/escape round trip: [decoded, raw form when the default encoding differs]. */
function decodePart(raw: string, fragment: boolean): [string, string] {
  if (/%(?![0-9A-Fa-f]{2})/.test(raw)) return [raw, ''];
  const bytes = Buffer.from(raw.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1');
  let escaped = '';
  for (const c of bytes) escaped += shouldEscape(c, fragment) ? '%' + c.toString(16).toUpperCase().padStart(2, '0') : String.fromCharCode(c);
  return [bytes.toString('utf8'), escaped === raw ? '' : raw];
}

/** A URI as Go's url.Parse fills url.URL (JSON field order), for SAN URIs. */
export function goURL(raw: string): Record<string, string | boolean | null | Record<string, never>> {
  const u = { Scheme: '', Opaque: '', User: null as Record<string, never> | null, Host: '', Path: '', RawPath: '', OmitHost: false, ForceQuery: false, RawQuery: '', Fragment: '', RawFragment: '' };
  const hash = raw.indexOf('#');
  let rest = hash < 0 ? raw : raw.slice(0, hash);
  if (hash >= 0 && hash < raw.length - 1) [u.Fragment, u.RawFragment] = decodePart(raw.slice(hash + 1), true);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  if (scheme) [u.Scheme, rest] = [scheme[1]!.toLowerCase(), rest.slice(scheme[0].length)];
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) [u.ForceQuery, rest] = [true, rest.slice(0, -1)];
  else if (rest.includes('?')) [rest, u.RawQuery] = [rest.slice(0, rest.indexOf('?')), rest.slice(rest.indexOf('?') + 1)];
  if (!rest.startsWith('/') && u.Scheme !== '') return { ...u, Opaque: rest };
  if (rest.startsWith('//') && (u.Scheme !== '' || !rest.startsWith('///'))) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    const at = authority.lastIndexOf('@');
    if (at >= 0) u.User = {};
    u.Host = decodePart(authority.slice(at + 1), false)[0];
  } else if (u.Scheme !== '' && rest.startsWith('/')) u.OmitHost = true;
  [u.Path, u.RawPath] = decodePart(rest, false);
  return u;
}
