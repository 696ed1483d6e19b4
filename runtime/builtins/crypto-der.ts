// A minimal DER reader: enough ASN.1 to walk X.509 certificates, CSRs and their
// extensions (tags, lengths, OIDs, integers, strings, times). It only reads;
// all cryptography is left to node:crypto.

export interface Tlv {
  /** Full identifier octet (class | constructed | number). */
  tag: number;
  /** Offset of the identifier octet within the parent buffer. */
  start: number;
  /** Contents of the element. */
  value: Buffer;
  /** The whole element (identifier, length and contents). */
  raw: Buffer;
}

export class DerError extends Error {}

/** Read one TLV at `off` in `buf`. */
export function readTlv(buf: Buffer, off = 0): Tlv & { end: number } {
  if (off + 2 > buf.length) throw new DerError('truncated element');
  const tag = buf[off]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError('high tag numbers unsupported');
  let len = buf[off + 1]!;
  let hdr = 2;
  if (len & 0x80) {
    const nb = len & 0x7f;
    if (nb === 0 || nb > 4 || off + 2 + nb > buf.length) throw new DerError('bad length');
    len = 0;
    for (let k = 0; k < nb; k++) len = len * 256 + buf[off + 2 + k]!;
    hdr += nb;
  }
  const end = off + hdr + len;
  if (end > buf.length) throw new DerError('element exceeds input');
  return { tag, start: off, value: buf.subarray(off + hdr, end), raw: buf.subarray(off, end), end };
}

/** The children of a constructed element. */
export function children(t: Tlv | Buffer): Tlv[] {
  const buf = Buffer.isBuffer(t) ? t : t.value;
  const out: Tlv[] = [];
  let off = 0;
  while (off < buf.length) {
    const c = readTlv(buf, off);
    out.push(c);
    off = c.end;
  }
  return out;
}

export function parseOid(b: Buffer): number[] {
  const out: number[] = [];
  let v = 0;
  for (let i = 0; i < b.length; i++) {
    v = v * 128 + (b[i]! & 0x7f);
    if (!(b[i]! & 0x80)) {
      if (out.length === 0) {
        const first = v < 40 ? 0 : v < 80 ? 1 : 2;
        out.push(first, v - first * 40);
      } else out.push(v);
      v = 0;
    }
  }
  return out;
}

export const oidString = (b: Buffer): string => parseOid(b).join('.');

/** Unsigned big-endian integer bytes → decimal string (two's complement aware). */
export function intString(b: Buffer): string {
  if (b.length === 0) return '0';
  let n = BigInt('0x' + b.toString('hex'));
  if (b[0]! & 0x80) n -= 1n << BigInt(b.length * 8);
  return n.toString();
}

export function intNumber(b: Buffer): number {
  return Number(intString(b));
}

/** String value of a DirectoryString-like element. */
export function stringValue(t: Tlv): string {
  switch (t.tag) {
    case 0x1e: {
      // BMPString: UTF-16BE
      let s = '';
      for (let i = 0; i + 1 < t.value.length; i += 2) s += String.fromCharCode((t.value[i]! << 8) | t.value[i + 1]!);
      return s;
    }
    case 0x14: // TeletexString (treated as Latin-1)
      return t.value.toString('latin1');
    default:
      return t.value.toString('utf8');
  }
}

/** UTCTime / GeneralizedTime → RFC 3339 (Go's time.Time JSON, UTC). */
export function timeValue(t: Tlv): string {
  const s = t.value.toString('latin1');
  let y: string, rest: string;
  if (t.tag === 0x17) {
    const yy = Number(s.slice(0, 2));
    y = String(yy >= 50 ? 1900 + yy : 2000 + yy);
    rest = s.slice(2);
  } else {
    y = s.slice(0, 4);
    rest = s.slice(4);
  }
  const [mo, d, h, mi, se] = [0, 2, 4, 6, 8].map((i) => rest.slice(i, i + 2));
  let frac = '';
  const m = rest.slice(10).match(/^\.(\d+)/);
  if (m) frac = '.' + m[1]!.replace(/0+$/, '');
  if (frac === '.') frac = '';
  return `${y}-${mo}-${d}T${h}:${mi}:${se}${frac}Z`;
}

/** Is this a context-specific tag with number `n`? */
export const isCtx = (t: Tlv, n: number): boolean => (t.tag & 0xdf) === (0x80 | n);
