// uuid.rfc4122 (random version-4 UUIDs, one per distinct argument per query, via
// the query cache) and uuid.parse (google/uuid's accepted forms; undefined for
// invalid input, as OPA).
import { randomBytes } from 'node:crypto';
import type { BuiltinDef } from './types.js';
import { T } from './types.js';
import type { Value } from '../value/value.js';
import { RObject } from '../value/collections.js';
import { canonicalKey } from '../value/key.js';
import { parseNumber } from '../value/number.js';
import { asString } from './args.js';

/** A random RFC 4122 version-4 UUID. */
export function newUUIDv4(): string {
  const b = randomBytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const HEX_RE = /^[0-9a-fA-F]{32}$/;

/** google/uuid.Parse: the 16 bytes, or undefined. Lengths are counted in bytes. */
export function parseUUIDBytes(s: string): Uint8Array | undefined {
  const bytes = Buffer.from(s, 'utf8');
  if (bytes.length !== s.length) return undefined; // non-ASCII never parses
  let t = s;
  switch (t.length) {
    case 36:
      break;
    case 45:
      if (t.slice(0, 9).toLowerCase() !== 'urn:uuid:') return undefined;
      t = t.slice(9);
      break;
    case 38:
      t = t.slice(1, 37);
      break;
    case 32:
      return HEX_RE.test(t) ? Uint8Array.from(Buffer.from(t, 'hex')) : undefined;
    default:
      return undefined;
  }
  if (t[8] !== '-' || t[13] !== '-' || t[18] !== '-' || t[23] !== '-') return undefined;
  const hex = t.slice(0, 8) + t.slice(9, 13) + t.slice(14, 18) + t.slice(19, 23) + t.slice(24, 36);
  return HEX_RE.test(hex) ? Uint8Array.from(Buffer.from(hex, 'hex')) : undefined;
}

function variant(b: number): string {
  if ((b & 0xc0) === 0x80) return 'RFC4122';
  if ((b & 0xe0) === 0xc0) return 'Microsoft';
  if ((b & 0xe0) === 0xe0) return 'Future';
  return 'Reserved';
}

function macVars(b: number): string {
  if ((b & 3) === 3) return 'local:multicast';
  if ((b & 1) === 1) return 'global:multicast';
  if ((b & 2) === 2) return 'local:unicast';
  return 'global:unicast';
}

const G1582_NS100 = 122192928000000000n;

/** OPA's uuid.parse result object. */
export function describeUUID(u: Uint8Array): RObject {
  const o = new RObject();
  const version = u[6]! >> 4;
  o.set('version', version);
  o.set('variant', variant(u[8]!));
  if (version === 1 || version === 2) {
    const dv = new DataView(u.buffer, u.byteOffset, 16);
    const t = BigInt(dv.getUint32(0)) | (BigInt(dv.getUint16(4)) << 32n) | (BigInt(dv.getUint16(6) & 0xfff) << 48n);
    const rel = t - G1582_NS100;
    const ns = (rel / 10000000n) * 1000000000n + (rel % 10000000n) * 100n;
    o.set('time', parseNumber(ns.toString()));
    o.set('nodeid', Array.from(u.slice(10, 16), (x) => x.toString(16).padStart(2, '0')).join('-'));
    o.set('macvariables', macVars(u[10]!));
    o.set('clocksequence', dv.getUint16(8) & 0x3fff);
    if (version === 2) {
      o.set('id', dv.getUint32(0));
      const d = u[9]!;
      o.set('domain', d === 0 ? 'Person' : d === 1 ? 'Group' : d === 2 ? 'Org' : `Domain${d}`);
    }
  }
  return o;
}

export const builtins: BuiltinDef[] = [
  {
    decl: {
      name: 'uuid.rfc4122',
      args: [T.string],
      result: T.string,
      nondeterministic: true,
      categories: ['uuid'],
      description: 'Returns a new UUIDv4; the same key gives the same UUID within one query.',
    },
    impl: ([k], ctx) => {
      const key = 'uuid.rfc4122:' + (typeof k === 'string' ? k : canonicalKey(k as Value));
      const hit = ctx.cache.get(key);
      if (typeof hit === 'string') return hit;
      const id = newUUIDv4();
      ctx.cache.set(key, id);
      return id;
    },
  },
  {
    decl: {
      name: 'uuid.parse',
      args: [T.string],
      result: T.objectOf(T.string, T.any),
      categories: ['uuid'],
      description: 'Parses the string value as an UUID and returns an object with the well-defined fields of the UUID if valid.',
    },
    impl: ([s]) => {
      const u = parseUUIDBytes(asString(s!, 1));
      return u ? describeUUID(u) : undefined;
    },
  },
];
