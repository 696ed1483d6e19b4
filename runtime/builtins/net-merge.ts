// net.cidr_merge's algorithm as OPA runs it (its internal/cidr/merge package,
// after Cilium and netaddr): networks become 16-byte [first, last] ranges, sorted
// and merged when adjacent or overlapping, and merged ranges are split back into
// the fewest CIDRs. IPv4 ranges live in IPv4-mapped form (::ffff:a.b.c.d).
import {
  bigToIP,
  cidrMask,
  compareIP,
  ipToBig,
  maskIP,
  maskSize,
  to4,
  type IP,
  type IPNet,
} from './net-ip.js';

const V4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function withV4Prefix(ip: IP): IP {
  const out = new Uint8Array(12 + ip.length);
  out.set(V4_MAPPED_PREFIX);
  out.set(ip, 12);
  return out;
}

/** First and last addresses of a network, both 16 bytes for well-formed input. */
export function addressRange(n: IPNet): [IP, IP] {
  let first: IP = maskIP(n.ip, n.mask) ?? new Uint8Array(0);
  let last: IP = Uint8Array.from(first);
  if (to4(first)) {
    first = withV4Prefix(first);
    last = withV4Prefix(last);
  }
  for (let i = 0; i < n.mask.length; i++) {
    const j = 16 - i - 1;
    if (j < last.length) last[j]! |= ~n.mask[n.mask.length - i - 1]! & 0xff;
  }
  return [first, last];
}

const ZERO16 = new Uint8Array(16);
const DEFAULT_V4 = withV4Prefix(new Uint8Array(4));
const UPPER_V4 = withV4Prefix(new Uint8Array([255, 255, 255, 255]));
const UPPER_V6 = new Uint8Array(16).fill(255);
const isV4 = (ip: IP): boolean => to4(ip) !== undefined;

function previousIP(ip: IP): IP {
  if (compareIP(ip, DEFAULT_V4) === 0 || compareIP(ip, ZERO16) === 0) return ip;
  const prev = Uint8Array.from(ip);
  const lower = isV4(ip) ? 12 : 0;
  let overflow = false;
  for (let i = ip.length - 1; i >= lower; i--) {
    if (overflow || i === ip.length - 1) prev[i] = (prev[i]! - 1) & 0xff;
    overflow = ip[i] === 0 && prev[i] === 255;
  }
  return prev;
}

function nextIP(ip: IP): IP {
  if (compareIP(ip, UPPER_V4) === 0 || compareIP(ip, UPPER_V6) === 0) return ip;
  return bigToIP(ipToBig(ip) + 1n, ip.length);
}

function spanningCIDR(first: IP, last: IP): IPNet {
  const v4 = isV4(first);
  const bitLen = v4 ? 32 : 128;
  let size = bitLen;
  const lowest = ipToBig(first);
  let highest = ipToBig(last);
  while (size > 0 && lowest < highest) {
    size--;
    highest &= -(1n << BigInt(bitLen - size));
  }
  // v4: the mapped prefix survives in the high bits; v6: padded to 16 bytes.
  return { ip: bigToIP(highest, 16), mask: cidrMask(size, bitLen) };
}

/** Split `target` around the single address `exclude`: the networks left and right of it. */
function partition(target: IPNet, exclude: IP): [IPNet[], IPNet[]] {
  const v4 = isV4(target.ip);
  const bitLen = v4 ? 32 : 128;
  const [tFirst, tLast] = addressRange(target);
  const [eFirst, eLast] = addressRange({ ip: exclude, mask: cidrMask(isV4(exclude) ? 32 : 128, isV4(exclude) ? 32 : 128) });
  const tSize = maskSize(target.mask)[0];
  const eSize = maskSize(cidrMask(isV4(exclude) ? 32 : 128, isV4(exclude) ? 32 : 128))[0];
  if (compareIP(eLast, tFirst) < 0) return [[], [target]];
  if (compareIP(tLast, eFirst) < 0) return [[target], []];
  if (tSize >= eSize) return [[], []];
  const left: IPNet[] = [];
  const right: IPNet[] = [];
  let prefix = tSize + 1;
  let lower = ipToBig(tFirst);
  let upper = lower + (1n << BigInt(bitLen - prefix));
  let matched = 0n;
  while (eSize >= prefix) {
    const upperIP = bigToIP(upper, 16);
    if (compareIP(eFirst, upperIP) >= 0) {
      left.push({ ip: bigToIP(lower, 16), mask: cidrMask(prefix, bitLen) });
      matched = upper;
    } else {
      right.push({ ip: upperIP, mask: cidrMask(prefix, bitLen) });
      matched = lower;
    }
    prefix++;
    if (prefix > bitLen) break;
    lower = matched;
    upper = matched + (1n << BigInt(bitLen - prefix));
  }
  return [left, right];
}

function rangeToCIDRs(first: IP, last: IP): IPNet[] {
  let span = spanningCIDR(first, last);
  const [spanFirst, spanLast] = addressRange(span);
  let list: IPNet[] = [];
  if (compareIP(spanFirst, first) < 0) {
    const right = partition(span, previousIP(first))[1];
    list.push(...right);
    span = right[0]!;
    list = list.slice(1);
  }
  if (compareIP(spanLast, last) > 0) list.push(...partition(span, nextIP(last))[0]);
  else list.push(span);
  return list;
}

interface BlockRange {
  first: IP;
  last: IP;
  network: IPNet | undefined;
}

/** The merged networks, in range order. */
export function mergeNetworks(networks: IPNet[]): IPNet[] {
  const ranges: BlockRange[] = networks.map((network) => {
    const [first, last] = addressRange(network);
    return { first, last, network };
  });
  ranges.sort((a, b) => compareIP(a.last, b.last) || compareIP(a.first, b.first));
  for (let i = ranges.length - 1; i > 0; i--) {
    const cur = ranges[i]!;
    const prev = ranges[i - 1]!;
    if (compareIP(previousIP(cur.first), prev.last) <= 0) {
      const first = compareIP(prev.first, cur.first) < 0 ? prev.first : cur.first;
      ranges[i - 1] = { first: Uint8Array.from(first), last: Uint8Array.from(cur.last), network: undefined };
      ranges.splice(i, 1);
    }
  }
  const out: IPNet[] = [];
  for (const r of ranges) {
    if (r.network) out.push(r.network);
    else out.push(...rangeToCIDRs(r.first, r.last));
  }
  return out;
}
