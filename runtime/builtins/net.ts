// Builtins of the `net` family. Declarations sit next to implementations.
// Semantics follow OPA's topdown/cidr.go and net.go on top of Go's net package
// (emulated in net-ip.ts): note that OPA reports every string operand of these
// builtins as "operand 1".
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { Value } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import type { BuiltinContext, BuiltinDef, TypeSpec } from './types.js';
import { T } from './types.js';
import { BuiltinError, HaltError } from './errors.js';
import { asString } from './args.js';
import {
  bigToIP,
  defaultMask,
  ipString,
  ipToBig,
  ipnetString,
  maskIP,
  maskSize,
  netContains,
  parseAddr,
  parseCIDR,
  parseIP,
  to4,
  type IPNet,
} from './net-ip.js';
import { mergeNetworks } from './net-merge.js';

/** Most addresses net.cidr_expand will generate; larger networks are refused. */
export const MAX_EXPAND = 1 << 18;

function cidrOperand(v: Value): IPNet {
  try {
    return parseCIDR(asString(v, 1)).net;
  } catch (e) {
    if (e instanceof BuiltinError) throw e;
    throw new BuiltinError((e as Error).message);
  }
}

/** The last address of a network (OPA's getLastIP). */
function lastIP(n: IPNet): Uint8Array {
  const [ones, bits] = maskSize(n.mask);
  if (ones === 0 && bits === 0) throw new BuiltinError('CIDR mask is in non-standard format');
  if (ones === bits) return n.ip;
  const last = ipToBig(n.ip) | ((1n << BigInt(bits - ones)) - 1n);
  return bigToIP(last, bits / 8);
}

function cidrContains(a: Value, b: Value): boolean {
  const netA = cidrOperand(a);
  const bStr = asString(b, 1);
  const ip = parseIP(bStr);
  if (ip) return netContains(netA, ip);
  let netB: IPNet;
  try {
    netB = cidrOperand(b);
  } catch {
    throw new BuiltinError(`not a valid textual representation of an IP address or CIDR: ${bStr}`);
  }
  return netContains(netA, netB.ip) && netContains(netA, lastIP(netB));
}

const ELEMENT_ERROR = 'element must be string or non-empty array';

function matchTerm(v: Value, operand: number): Value {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length > 0) return v[0]!;
  throw new BuiltinError(`operand ${operand}: ${ELEMENT_ERROR}`);
}

/** [cidr, index] pairs of a cidr_contains_matches operand, in Rego order. */
function matchOperand(v: Value, operand: number): [Value, Value][] {
  if (typeof v === 'string') return [[v, v]];
  if (Array.isArray(v)) return v.map((x, i) => [matchTerm(x, operand), i]);
  if (v instanceof RSet) return v.values().map((x) => [matchTerm(x, operand), x]);
  if (v instanceof RObject) return v.entries().map(([k, x]) => [matchTerm(x, operand), k]);
  return [];
}

function cidrExpand(v: Value, ctx: BuiltinContext): Value {
  const s = asString(v, 1);
  let parsed: ReturnType<typeof parseCIDR>;
  try {
    parsed = parseCIDR(s);
  } catch (e) {
    throw new BuiltinError((e as Error).message);
  }
  const { ip: start, net } = parsed;
  const [ones, bits] = maskSize(net.mask);
  const count = 2 ** (bits - ones);
  if (count > MAX_EXPAND) {
    throw new BuiltinError(`CIDR too large to expand: ${s} has ${count} addresses (limit ${MAX_EXPAND})`);
  }
  const out = new RSet();
  let ip = maskIP(start, net.mask)!;
  for (let i = 0; i < count && netContains(net, ip); i++) {
    if ((i & 0xfff) === 0xfff && ctx.deadline !== undefined && Date.now() > ctx.deadline) {
      throw new HaltError('net.cidr_expand: timed out before generating all IP addresses', { raw: true });
    }
    out.add(ipString(ip));
    ip = incIP(ip);
  }
  return out;
}

/** Go's incIP on a copy: big-endian increment that wraps at the top. */
function incIP(ip: Uint8Array): Uint8Array {
  const next = Uint8Array.from(ip);
  for (let j = next.length - 1; j >= 0; j--) {
    next[j] = (next[j]! + 1) & 0xff;
    if (next[j] !== 0) break;
  }
  return next;
}

function mergeElement(v: Value): IPNet {
  if (typeof v !== 'string') throw new BuiltinError('element must be string');
  const ip = parseIP(v);
  if (!ip) {
    try {
      return parseCIDR(v).net;
    } catch (e) {
      throw new BuiltinError((e as Error).message);
    }
  }
  if (to4(ip)) return { ip, mask: defaultMask(ip)! };
  throw new BuiltinError('IPv6 invalid: needs prefix length');
}

// --- Synchronous DNS: the evaluator is synchronous, so a long-lived, unref'd worker
// runs dns.promises.lookup while the caller blocks on Atomics.wait over a
// SharedArrayBuffer (with a timeout), then takes the answer with receiveMessageOnPort.
type LookupResult = { ok: true; addrs: string[] } | { ok: false; code: string; message: string };

// CommonJS source for the worker (eval: true), so it runs the same under tsx and compiled JS.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const dns = require('node:dns');
const port = workerData.port;
parentPort.on('message', async ({ id, name, flag }) => {
  let reply;
  try {
    const res = await dns.promises.lookup(name, { all: true, verbatim: true });
    reply = { id, ok: true, addrs: res.map((r) => r.address) };
  } catch (e) {
    reply = { id, ok: false, code: String((e && e.code) || 'EUNKNOWN'), message: String((e && e.message) || e) };
  }
  port.postMessage(reply);
  const view = new Int32Array(flag);
  Atomics.store(view, 0, 1);
  Atomics.notify(view, 0);
});
`;

interface Bridge {
  worker: Worker;
  port: MessagePort;
}

let bridge: Bridge | undefined;
let nextId = 1;

function getBridge(): Bridge {
  if (bridge) return bridge;
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { port: port2 }, transferList: [port2] });
  worker.unref();
  worker.on('error', () => {
    bridge = undefined;
  });
  worker.on('exit', () => {
    bridge = undefined;
  });
  port1.unref();
  bridge = { worker, port: port1 };
  return bridge;
}

/** Resolve `name` to addresses, blocking up to `timeoutMs`. */
function lookupSync(name: string, timeoutMs = 5000): LookupResult {
  const b = getBridge();
  const id = nextId++;
  const flag = new SharedArrayBuffer(4);
  const view = new Int32Array(flag);
  b.worker.postMessage({ id, name, flag });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0 || Atomics.wait(view, 0, 0, left) === 'timed-out') {
      return { ok: false, code: 'ETIMEOUT', message: 'i/o timeout' };
    }
    // Drain replies, skipping stale ones from earlier timed-out calls.
    for (let msg = receiveMessageOnPort(b.port); msg; msg = receiveMessageOnPort(b.port)) {
      const reply = msg.message as { id: number } & LookupResult;
      if (reply.id === id) {
        return reply.ok
          ? { ok: true, addrs: reply.addrs }
          : { ok: false, code: reply.code, message: reply.message };
      }
    }
    Atomics.store(view, 0, 0);
  }
}

function lookupIPAddr(v: Value, ctx: BuiltinContext): Value {
  const name = asString(v, 1);
  const key = `net.lookup_ip_addr:${name}`;
  const hit = ctx.cache.get(key);
  if (hit !== undefined) return hit as Value;
  let addrs: string[];
  const literal = parseAddr(name);
  if (literal) {
    addrs = [name];
  } else {
    const r = name === '' ? { ok: false as const, code: 'ENOTFOUND', message: '' } : lookupSync(name);
    if (!r.ok) {
      if (r.code === 'ETIMEOUT') {
        throw new HaltError(`net.lookup_ip_addr: lookup ${name}: i/o timeout`, { raw: true });
      }
      const why = ['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA'].includes(r.code)
        ? 'no such host'
        : r.code === 'EAI_AGAIN'
          ? 'server misbehaving'
          : r.message;
      throw new BuiltinError(`lookup ${name}: ${why}`);
    }
    addrs = r.addrs;
  }
  const out = new RSet();
  for (const a of addrs) {
    // Go prints addresses with IP.String (plus any zone).
    const p = parseAddr(a);
    out.add(p ? ipString(p.ip) + (p.zone ? `%${p.zone}` : '') : a);
  }
  ctx.cache.set(key, out);
  return out;
}

const S = T.string;
const B = T.boolean;
const elem: TypeSpec = T.anyOf(S, T.arrayOf(T.any));
const matchesOperand: TypeSpec = T.anyOf(S, T.arrayOf(elem), T.setOf(elem), T.objectOf(S, elem));
const def = (decl: BuiltinDef['decl'], impl: BuiltinDef['impl']): BuiltinDef => ({ decl, impl });

export const builtins: BuiltinDef[] = [
  def(
    {
      name: 'net.cidr_contains',
      args: [S, S],
      result: B,
      description: 'Checks if a CIDR or IP is contained within another CIDR.',
    },
    ([a, b]) => cidrContains(a!, b!),
  ),
  def({ name: 'net.cidr_overlap', args: [S, S], result: B, deprecated: true }, ([a, b]) => cidrContains(a!, b!)),
  def(
    {
      name: 'net.cidr_intersects',
      args: [S, S],
      result: B,
      description: 'Checks if a CIDR intersects with another CIDR.',
    },
    ([a, b]) => {
      const netA = cidrOperand(a!);
      const netB = cidrOperand(b!);
      return netContains(netA, netB.ip) || netContains(netB, netA.ip);
    },
  ),
  def(
    {
      name: 'net.cidr_contains_matches',
      args: [matchesOperand, matchesOperand],
      result: T.setOf(T.tuple(T.any, T.any)),
      description:
        'Checks if collections of cidrs or ips are contained within another collection of cidrs and returns matches.',
    },
    ([a, b]) => {
      const out = new RSet();
      for (const [cidr1, index1] of matchOperand(a!, 1)) {
        for (const [cidr2, index2] of matchOperand(b!, 2)) {
          if (cidrContains(cidr1, cidr2)) out.add([index1, index2]);
        }
      }
      return out;
    },
  ),
  def(
    {
      name: 'net.cidr_expand',
      args: [S],
      result: T.setOf(S),
      description: 'Expands CIDR to set of hosts.',
    },
    ([v], ctx) => cidrExpand(v!, ctx),
  ),
  def(
    {
      name: 'net.cidr_merge',
      args: [T.anyOf(T.arrayOf(T.anyOf(S)), T.setOf(S))],
      result: T.setOf(S),
      description: 'Merges IP addresses and subnets into the smallest possible list of CIDRs.',
    },
    ([v]) => {
      let items: Value[];
      if (Array.isArray(v)) items = v;
      else if (v instanceof RSet) items = v.values();
      else throw new BuiltinError('operand must be an array');
      const merged = mergeNetworks(items.map(mergeElement));
      return RSet.of(merged.map(ipnetString));
    },
  ),
  def(
    {
      name: 'net.cidr_is_valid',
      args: [S],
      result: B,
      description: 'Parses an IPv4/IPv6 CIDR and returns a boolean indicating if the provided CIDR is valid.',
    },
    ([v]) => {
      if (typeof v !== 'string') return false;
      try {
        parseCIDR(v);
        return true;
      } catch {
        return false;
      }
    },
  ),
  def(
    {
      name: 'net.lookup_ip_addr',
      args: [S],
      result: T.setOf(S),
      nondeterministic: true,
      description:
        'Returns the set of IP addresses (both v4 and v6) that the passed-in `name` resolves to using the standard name resolution mechanisms available.',
    },
    ([v], ctx) => lookupIPAddr(v!, ctx),
  ),
];
