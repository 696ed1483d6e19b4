// Encoding builtins (OPA's topdown/encoding.go): base64, base64url, hex and
// urlquery. Strings become UTF-8 bytes; decoded bytes become strings (invalid
// UTF-8 is replaced). Error texts follow Go's encoding/base64, encoding/hex and
// net/url packages, which OPA passes through unchanged.
import type { Value } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import type { BuiltinDef } from './types.js';
import { T } from './types.js';
import { BuiltinError, OperandTypeError, operandError } from './errors.js';
import { asString } from './args.js';

const utf8 = new TextEncoder();
const utf8Lossy = new TextDecoder('utf-8');

export const toBytes = (s: string): Uint8Array => utf8.encode(s);
export const fromBytes = (b: Uint8Array): string => utf8Lossy.decode(b);

const STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function decodeMap(alphabet: string): Int16Array {
  const m = new Int16Array(256).fill(-1);
  for (let i = 0; i < alphabet.length; i++) m[alphabet.charCodeAt(i)] = i;
  return m;
}
const STD_MAP = decodeMap(STD);
const URL_MAP = decodeMap(URL);

export function base64Encode(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += alphabet[(n >> 18) & 63]! + alphabet[(n >> 12) & 63]! + alphabet[(n >> 6) & 63]! + alphabet[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += alphabet[(n >> 18) & 63]! + alphabet[(n >> 12) & 63]! + (pad ? '==' : '');
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += alphabet[(n >> 18) & 63]! + alphabet[(n >> 12) & 63]! + alphabet[(n >> 6) & 63]! + (pad ? '=' : '');
  }
  return out;
}

const corrupt = (at: number) => new BuiltinError(`illegal base64 data at input byte ${at}`);

/** Go's padded base64 decoding (newlines ignored), with Go's error offsets. */
export function base64Decode(src: Uint8Array, map: Int16Array): Uint8Array {
  const out: number[] = [];
  let si = 0;
  const isNL = (c: number) => c === 10 || c === 13;
  while (si < src.length) {
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    let end = false;
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Uint8Array.from(out);
        throw corrupt(si - j);
      }
      const c = src[si++]!;
      const d = map[c]!;
      if (d >= 0) {
        dbuf[j] = d;
        continue;
      }
      if (isNL(c)) {
        j--;
        continue;
      }
      if (c !== 61 /* = */) throw corrupt(si - 1);
      if (j === 0 || j === 1) throw corrupt(si - 1);
      if (j === 2) {
        while (si < src.length && isNL(src[si]!)) si++;
        if (si === src.length) throw corrupt(src.length);
        if (src[si] !== 61) throw corrupt(si - 1);
        si++;
      }
      while (si < src.length && isNL(src[si]!)) si++;
      if (si < src.length) throw corrupt(si);
      dlen = j;
      end = true;
      break;
    }
    const n = (dbuf[0]! << 18) | (dbuf[1]! << 12) | (dbuf[2]! << 6) | dbuf[3]!;
    out.push((n >> 16) & 255);
    if (dlen > 2) out.push((n >> 8) & 255);
    if (dlen > 3) out.push(n & 255);
    if (end) break;
  }
  return Uint8Array.from(out);
}

export function hexEncode(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += (b < 16 ? '0' : '') + b.toString(16);
  return s;
}

/** Go's `%#U` of a byte: `U+0067 'g'`. */
function goRune(b: number): string {
  const hex = b.toString(16).toUpperCase().padStart(4, '0');
  const printable = b >= 0x20 && b !== 0x7f && !(b >= 0x80 && b < 0xa0) && b !== 0xad;
  return printable ? `U+${hex} '${String.fromCharCode(b)}'` : `U+${hex}`;
}

export function hexDecode(src: Uint8Array): Uint8Array {
  const val = (c: number) => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1);
  const out = new Uint8Array(src.length >> 1);
  let i = 1;
  for (; i < src.length; i += 2) {
    const a = val(src[i - 1]!);
    const b = val(src[i]!);
    if (a < 0) throw new BuiltinError(`encoding/hex: invalid byte: ${goRune(src[i - 1]!)}`);
    if (b < 0) throw new BuiltinError(`encoding/hex: invalid byte: ${goRune(src[i]!)}`);
    out[(i - 1) >> 1] = (a << 4) | b;
  }
  if (src.length % 2 === 1) {
    if (val(src[i - 1]!) < 0) throw new BuiltinError(`encoding/hex: invalid byte: ${goRune(src[i - 1]!)}`);
    throw new BuiltinError('encoding/hex: odd length hex string');
  }
  return out;
}

/** Go's url.QueryEscape: unreserved bytes kept, space as `+`, the rest `%XX`. */
export function queryEscape(s: string): string {
  let out = '';
  for (const b of toBytes(s)) {
    if ((b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b === 45 || b === 95 || b === 46 || b === 126) {
      out += String.fromCharCode(b);
    } else if (b === 32) out += '+';
    else out += '%' + (b < 16 ? '0' : '') + b.toString(16).toUpperCase();
  }
  return out;
}

/** Go's url.QueryUnescape, with its `invalid URL escape "%zz"` error. */
export function queryUnescape(s: string): string {
  const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
  if (!s.includes('%') && !s.includes('+')) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === '%') {
      if (!isHex(s[i + 1]) || !isHex(s[i + 2])) {
        throw new BuiltinError(`invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`);
      }
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 3;
    } else if (c === '+') {
      bytes.push(32);
      i++;
    } else {
      const cp = s.codePointAt(i)!;
      const len = cp > 0xffff ? 2 : 1;
      for (const b of toBytes(s.slice(i, i + len))) bytes.push(b);
      i += len;
    }
  }
  return fromBytes(Uint8Array.from(bytes));
}

const encodeObjectErr = () => new OperandTypeError('operand 1 values must be string, array[string], or set[string]');

function encodeObject(v: Value): string {
  if (!(v instanceof RObject)) throw operandError(1, 'object', v);
  const parts: string[] = [];
  const keyText = (k: Value) => (typeof k === 'string' ? k : JSON.stringify(k));
  const entries = v.entries().map(([k, x]) => [keyText(k), x] as const);
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [k, x] of entries) {
    const ek = queryEscape(k);
    if (typeof x === 'string') parts.push(`${ek}=${queryEscape(x)}`);
    else if (Array.isArray(x) || x instanceof RSet) {
      const xs = Array.isArray(x) ? x : x.values();
      for (const s of xs) {
        if (typeof s !== 'string') throw encodeObjectErr();
        parts.push(`${ek}=${queryEscape(s)}`);
      }
    } else throw encodeObjectErr();
  }
  return parts.join('&');
}

/** Go's url.ParseQuery: `&`-separated pairs; the first error is reported. */
function decodeObject(q: string): RObject {
  const m = new Map<string, string[]>();
  let firstErr: BuiltinError | undefined;
  for (const part of q.split('&')) {
    if (part === '') continue;
    if (part.includes(';')) {
      firstErr ??= new BuiltinError('invalid semicolon separator in query');
      continue;
    }
    const eq = part.indexOf('=');
    const rawK = eq < 0 ? part : part.slice(0, eq);
    const rawV = eq < 0 ? '' : part.slice(eq + 1);
    try {
      const k = queryUnescape(rawK);
      const val = queryUnescape(rawV);
      const list = m.get(k) ?? [];
      list.push(val);
      m.set(k, list);
    } catch (e) {
      if (!(e instanceof BuiltinError)) throw e;
      firstErr ??= e;
    }
  }
  if (firstErr) throw firstErr;
  const out = new RObject();
  for (const [k, vs] of m) out.set(k, vs);
  return out;
}

const s2s = (name: string, f: (s: string) => Value): BuiltinDef => ({
  decl: { name, args: [T.string], result: T.string, categories: ['encoding'] },
  impl: ([x]) => f(asString(x!, 1)),
});

export const builtins: BuiltinDef[] = [
  s2s('base64.encode', (s) => base64Encode(toBytes(s), STD, true)),
  s2s('base64.decode', (s) => fromBytes(base64Decode(toBytes(s), STD_MAP))),
  {
    decl: { name: 'base64.is_valid', args: [T.string], result: T.boolean, categories: ['encoding'] },
    impl: ([x]) => {
      if (typeof x !== 'string') return false;
      try {
        base64Decode(toBytes(x), STD_MAP);
        return true;
      } catch (e) {
        if (e instanceof BuiltinError) return false;
        throw e;
      }
    },
  },
  s2s('base64url.encode', (s) => base64Encode(toBytes(s), URL, true)),
  s2s('base64url.encode_no_pad', (s) => base64Encode(toBytes(s), URL, false)),
  s2s('base64url.decode', (s) => {
    const bytes = toBytes(s);
    if (!s.endsWith('=')) {
      const r = bytes.length % 4;
      if (r === 1) throw new BuiltinError(`illegal base64url string: ${s}`);
      if (r === 2) s += '==';
      else if (r === 3) s += '=';
    }
    return fromBytes(base64Decode(toBytes(s), URL_MAP));
  }),
  s2s('hex.encode', (s) => hexEncode(toBytes(s))),
  s2s('hex.decode', (s) => fromBytes(hexDecode(toBytes(s)))),
  s2s('urlquery.encode', queryEscape),
  s2s('urlquery.decode', queryUnescape),
  {
    decl: {
      name: 'urlquery.encode_object',
      args: [T.objectOf(T.string, T.anyOf(T.string, T.arrayOf(T.string), T.setOf(T.string)))],
      result: T.string,
      categories: ['encoding'],
    },
    impl: ([x]) => encodeObject(x!),
  },
  {
    decl: {
      name: 'urlquery.decode_object',
      args: [T.string],
      result: T.objectOf(T.string, T.arrayOf(T.string)),
      categories: ['encoding'],
    },
    impl: ([x]) => decodeObject(asString(x!, 1)),
  },
];
