// A small DER reader for rendering peer certificates the way Go does (x509.go's
// JSON in `client_certificates`). It only decodes structure: tag-length-value
// elements, OIDs, integers, bit strings, the ASN.1 string and time types, and IP
// addresses, plus the JSON forms Go gives IPs (net.IP) and URIs (url.URL). No
// cryptography happens here: the TLS handshake and the certificate chain
// verification are OpenSSL's (node:tls). Tags are the whole identifier octet, as
// in Go's cryptobyte: context-specific [n] is 0x80|n, constructed 0xa0|n.

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  OID: 0x06,
  UTF8: 0x0c,
  NUMERIC: 0x12,
  PRINTABLE: 0x13,
  T61: 0x14,
  IA5: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  BMP: 0x1e,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/** One element: its identifier octet, the whole encoding and the contents. */
export interface Element {
  tag: number;
  full: Buffer;
  body: Buffer;
}

export class DerError extends Error {}

/** Reads consecutive elements from a buffer (the contents of a constructed element). */
export class DerReader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}

  empty(): boolean {
    return this.pos >= this.buf.length;
  }

  peek(): number | undefined {
    return this.empty() ? undefined : this.buf[this.pos];
  }

  /** The next element, whatever its tag. */
  any(): Element {
    const b = this.buf;
    const start = this.pos;
    if (start + 2 > b.length) throw new DerError('truncated element');
    const tag = b[start]!;
    if ((tag & 0x1f) === 0x1f) throw new DerError('high tag numbers are not supported');
    let len = b[start + 1]!;
    let header = 2;
    if (len & 0x80) {
      const n = len & 0x7f;
      if (n === 0 || n > 4 || start + 2 + n > b.length) throw new DerError('bad length');
      len = 0;
      for (let i = 0; i < n; i++) len = len * 256 + b[start + 2 + i]!;
      header += n;
    }
    const end = start + header + len;
    if (end > b.length) throw new DerError('truncated element');
    this.pos = end;
    return { tag, full: b.subarray(start, end), body: b.subarray(start + header, end) };
  }

  /** The next element, which must have the given tag. */
  next(tag: number): Element {
    if (this.peek() !== tag) throw new DerError(`expected tag 0x${tag.toString(16)}`);
    return this.any();
  }

  /** The next element if it has the given tag. */
  optional(tag: number): Element | undefined {
    return this.peek() === tag ? this.any() : undefined;
  }
}

export function reader(e: Element | Buffer): DerReader {
  return new DerReader(Buffer.isBuffer(e) ? e : e.body);
}

/** OID arcs (first two split as in X.690). */
export function oidArcs(body: Buffer): bigint[] {
  const arcs: bigint[] = [];
  let v = 0n;
  for (let i = 0; i < body.length; i++) {
    v = (v << 7n) | BigInt(body[i]! & 0x7f);
    if ((body[i]! & 0x80) === 0) {
      if (arcs.length === 0) arcs.push(v < 80n ? v / 40n : 2n, v < 80n ? v % 40n : v - 80n);
      else arcs.push(v);
      v = 0n;
    } else if (i === body.length - 1) throw new DerError('truncated OID');
  }
  return arcs;
}

export function oidString(body: Buffer): string {
  return oidArcs(body).join('.');
}

/** A two's complement INTEGER. */
export function integer(body: Buffer): bigint {
  if (body.length === 0) throw new DerError('empty integer');
  let v = BigInt('0x' + body.toString('hex'));
  if (body[0]! & 0x80) v -= 1n << BigInt(body.length * 8);
  return v;
}

/** Bit `i` (0 = most significant bit of the first byte) of a BIT STRING body. */
export function bitAt(body: Buffer, i: number): number {
  const byte = 1 + (i >> 3);
  return byte < body.length ? (body[byte]! >> (7 - (i & 7))) & 1 : 0;
}

/** The bytes of a BIT STRING, right-aligned as Go's BitString.RightAlign. */
export function bitStringBytes(body: Buffer): Buffer {
  if (body.length === 0 || body[0]! > 7) throw new DerError('bad bit string');
  const shift = body[0]!;
  if (shift === 0) return body.subarray(1);
  const out = Buffer.alloc(body.length - 1);
  for (let i = 1, carry = 0; i < body.length; i++) {
    out[i - 1] = carry | (body[i]! >> shift);
    carry = (body[i]! << (8 - shift)) & 0xff;
  }
  return out;
}

/** Go's parseASN1String: the string types a certificate name may use. */
export function asn1String(tag: number, body: Buffer): string {
  switch (tag) {
    case TAG.T61:
      return body.toString('latin1');
    case TAG.PRINTABLE:
    case TAG.NUMERIC:
    case TAG.IA5:
      return body.toString('latin1');
    case TAG.UTF8:
      return body.toString('utf8');
    case TAG.BMP: {
      const even = body.length >= 2 && body[body.length - 1] === 0 && body[body.length - 2] === 0 ? body.subarray(0, -2) : body;
      return Buffer.from(even).swap16().toString('utf16le');
    }
    default:
      throw new DerError(`unsupported string type 0x${tag.toString(16)}`);
  }
}

/** UTCTime or GeneralizedTime as Go's time.Time JSON (RFC 3339). */
export function time(e: Element): string {
  const t = e.body.toString('latin1');
  const m = e.tag === TAG.UTC_TIME ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(Z|[+-]\d{4})$/.exec(t) : /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(Z|[+-]\d{4})$/.exec(t);
  if (!m) throw new DerError(`malformed time ${JSON.stringify(t)}`);
  let year = m[1]!;
  if (e.tag === TAG.UTC_TIME) year = (Number(year) >= 50 ? '19' : '20') + year;
  const zone = m[7] === 'Z' || m[7]!.slice(1) === '0000' ? 'Z' : `${m[7]!.slice(0, 3)}:${m[7]!.slice(3)}`;
  return `${year}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${zone}`;
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
