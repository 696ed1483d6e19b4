// IP addresses and networks with Go's `net` semantics, which OPA's net.*
// builtins inherit: strict parsing as net/netip does (no octal, no leading zeros,
// zones rejected in CIDRs), 16-byte IPs with IPv4-mapped forms, IPNet.Contains,
// and Go's textual forms (dotted IPv4, RFC 5952 IPv6). IPs are Uint8Arrays.
// ipaddr.js loads on first use.
import { createRequire } from 'node:module';

let ipaddrModule: typeof import('ipaddr.js') | undefined;
const ipaddrLib = (): typeof import('ipaddr.js') => (ipaddrModule ??= createRequire(import.meta.url)('ipaddr.js') as typeof import('ipaddr.js'));

export type IP = Uint8Array;
export interface IPNet {
  ip: IP;
  mask: IP;
}

const V4_IN_V6_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function parseIPv4Bytes(s: string): IP | undefined {
  // netip rules: four decimal fields 0-255, no empty fields, no leading zeros.
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  for (const p of parts) if (!/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255) return undefined;
  return Uint8Array.from(ipaddrLib().IPv4.parse(s).toByteArray());
}

function parseIPv6Bytes(s: string): IP | undefined {
  // Validate with netip's grammar, then let ipaddr.js produce the bytes.
  let body = s;
  let v4tail: IP | undefined;
  const lastColon = body.lastIndexOf(':');
  if (body.includes('.', lastColon)) {
    v4tail = parseIPv4Bytes(body.slice(lastColon + 1));
    if (!v4tail) return undefined;
    body = body.slice(0, lastColon + 1) + '0:0';
  }
  const dbl = body.indexOf('::');
  if (dbl !== -1 && body.indexOf('::', dbl + 1) !== -1) return undefined;
  const halves = dbl === -1 ? [body] : [body.slice(0, dbl), body.slice(dbl + 2)];
  let groups = 0;
  for (const h of halves) {
    if (h === '') continue;
    for (const g of h.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      groups++;
    }
  }
  if (dbl === -1 ? groups !== 8 : groups > 7) return undefined;
  if (v4tail && dbl === -1 && groups !== 8) return undefined;
  const bytes = Uint8Array.from(ipaddrLib().IPv6.parse(body).toByteArray());
  if (v4tail) bytes.set(v4tail, 12);
  return bytes;
}

/** netip.ParseAddr: 4 bytes for IPv4, 16 for IPv6, plus any zone. */
export function parseAddr(s: string): { ip: IP; zone: string } | undefined {
  for (const c of s) {
    if (c === '.') {
      const ip = parseIPv4Bytes(s);
      return ip && { ip, zone: '' };
    }
    if (c === ':') {
      const pct = s.indexOf('%');
      const zone = pct === -1 ? '' : s.slice(pct + 1);
      if (pct !== -1 && zone === '') return undefined;
      const ip = parseIPv6Bytes(pct === -1 ? s : s.slice(0, pct));
      return ip && { ip, zone };
    }
    if (c === '%') return undefined;
  }
  return undefined;
}

/** 16-byte form of an IP (IPv4 becomes IPv4-mapped). */
export function to16(ip: IP): IP {
  if (ip.length === 16) return ip;
  const out = new Uint8Array(16);
  out.set(V4_IN_V6_PREFIX);
  out.set(ip, 12);
  return out;
}

/** net.ParseIP: the 16-byte form, or undefined (zones are not IPs). */
export function parseIP(s: string): IP | undefined {
  const a = parseAddr(s);
  return a && a.zone === '' ? to16(a.ip) : undefined;
}

export function to4(ip: IP): IP | undefined {
  if (ip.length === 4) return ip;
  if (ip.length === 16 && V4_IN_V6_PREFIX.every((b, i) => ip[i] === b)) return ip.subarray(12);
  return undefined;
}

export function cidrMask(ones: number, bits: number): IP {
  const m = new Uint8Array(bits / 8);
  for (let i = 0; i < m.length; i++) {
    const n = Math.max(0, Math.min(8, ones - i * 8));
    m[i] = (0xff << (8 - n)) & 0xff;
  }
  return m;
}

/** IP.Mask, with Go's 4/16-byte adjustments; undefined on a length mismatch. */
export function maskIP(ip: IP, mask: IP): IP | undefined {
  if (mask.length === 16 && ip.length === 4 && mask.subarray(0, 12).every((b) => b === 0xff)) mask = mask.subarray(12);
  if (mask.length === 4 && ip.length === 16 && V4_IN_V6_PREFIX.every((b, i) => ip[i] === b)) ip = ip.subarray(12);
  if (ip.length !== mask.length) return undefined;
  return ip.map((b, i) => b & mask[i]!);
}

/** IPMask.Size: [ones, bits], or [0, 0] for a non-canonical mask. */
export function maskSize(mask: IP): [number, number] {
  let ones = 0;
  let i = 0;
  for (; i < mask.length && mask[i] === 0xff; i++) ones += 8;
  if (i < mask.length) {
    let b = mask[i]!;
    while (b & 0x80) {
      ones++;
      b = (b << 1) & 0xff;
    }
    if (b !== 0) return [0, 0];
    for (i++; i < mask.length; i++) if (mask[i] !== 0) return [0, 0];
  }
  return [ones, mask.length * 8];
}

/** IP.DefaultMask: the classful mask of an IPv4 address. */
export function defaultMask(ip: IP): IP | undefined {
  const v4 = to4(ip);
  if (!v4) return undefined;
  return cidrMask(v4[0]! < 0x80 ? 8 : v4[0]! < 0xc0 ? 16 : 24, 32);
}

/** net.ParseCIDR; throws the message OPA reports. */
export function parseCIDR(s: string): { ip: IP; net: IPNet } {
  const slash = s.indexOf('/');
  const fail = (): Error => new Error(`invalid CIDR address: ${s}`);
  if (slash === -1) throw fail();
  const a = parseAddr(s.slice(0, slash));
  const m = s.slice(slash + 1);
  if (!a || a.zone !== '' || !/^[0-9]{1,7}$/.test(m)) throw fail();
  const bits = a.ip.length * 8;
  const n = Number(m);
  if (n > bits || n >= 0xffffff) throw fail();
  const mask = cidrMask(n, bits);
  const ip = to16(a.ip);
  return { ip, net: { ip: maskIP(ip, mask)!, mask } };
}

function networkNumberAndMask(n: IPNet): [IP, IP] | undefined {
  let ip = to4(n.ip);
  if (!ip) {
    ip = n.ip;
    if (ip.length !== 16) return undefined;
  }
  let m = n.mask;
  if (m.length === 4) {
    if (ip.length !== 4) return undefined;
  } else if (m.length === 16) {
    if (ip.length === 4) m = m.subarray(12);
  } else return undefined;
  return [ip, m];
}

/** IPNet.Contains. */
export function netContains(n: IPNet, ip: IP): boolean {
  const nm = networkNumberAndMask(n);
  const x = to4(ip) ?? ip;
  if (!nm || x.length !== nm[0].length) return false;
  const [nn, m] = nm;
  for (let i = 0; i < x.length; i++) if ((nn[i]! & m[i]!) !== (x[i]! & m[i]!)) return false;
  return true;
}

/** IP.String. */
export function ipString(ip: IP): string {
  if (ip.length === 0) return '<nil>';
  if (ip.length !== 4 && ip.length !== 16) return '?' + Buffer.from(ip).toString('hex');
  const v4 = to4(ip);
  if (v4) return v4.join('.');
  const g: number[] = [];
  for (let i = 0; i < 16; i += 2) g.push((ip[i]! << 8) | ip[i + 1]!);
  // The longest run (first on ties) of two or more zero groups becomes "::".
  let zs = -1;
  let ze = -1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i >= 2 && j - i > ze - zs) [zs, ze] = [i, j];
  }
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === zs) {
      out += '::';
      i = ze - 1;
      continue;
    }
    if (i > 0 && !out.endsWith(':')) out += ':';
    out += g[i]!.toString(16);
  }
  return out;
}

/** IPNet.String. */
export function ipnetString(n: IPNet): string {
  const nm = networkNumberAndMask(n);
  if (!nm) return '<nil>';
  const [ones, bits] = maskSize(nm[1]);
  if (ones === 0 && bits === 0) return ipString(nm[0]) + '/' + Buffer.from(nm[1]).toString('hex');
  return ipString(nm[0]) + '/' + ones;
}

/** Big-endian bytes ↔ bigint. */
export function ipToBig(ip: IP): bigint {
  let x = 0n;
  for (const b of ip) x = (x << 8n) | BigInt(b);
  return x;
}

export function bigToIP(x: bigint, len: number): IP {
  const out = new Uint8Array(len);
  for (let i = len - 1; i >= 0; i--, x >>= 8n) out[i] = Number(x & 0xffn);
  return out;
}

/** bytes.Compare. */
export function compareIP(a: IP, b: IP): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
