// Encoding helpers shared by the crypto, JWT and http builtins: base64 decoding
// with Go's exact error offsets ("illegal base64 data at input byte N"), OPA's
// base64url rule for unpadded input, Go-style PEM block decoding, and splitting
// concatenated DER structures (as x509.ParseCertificates accepts).
import { BuiltinError } from './errors.js';

const STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function table(alphabet: string): Int16Array {
  const t = new Int16Array(256).fill(-1);
  for (let i = 0; i < alphabet.length; i++) t[alphabet.charCodeAt(i)] = i;
  return t;
}
const STD_T = table(STD);
const URL_T = table(URL);

/** Go's base64 CorruptInputError. */
export class Base64Error extends Error {
  constructor(readonly offset: number) {
    super(`illegal base64 data at input byte ${offset}`);
  }
}

/**
 * Decode base64 as Go's encoding/base64 does (padded variant unless `padded` is
 * false): CR and LF are skipped, anything else invalid raises Base64Error with
 * Go's byte offset. Input is treated as bytes (UTF-8).
 */
export function goBase64Decode(input: string | Uint8Array, url = false, padded = true): Buffer {
  const src = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const t = url ? URL_T : STD_T;
  const out: number[] = [];
  let si = 0;
  const n = src.length;
  const isNL = (c: number) => c === 10 || c === 13;
  while (si < n) {
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    let j = 0;
    let end = false;
    for (j = 0; j < 4; j++) {
      if (si === n) {
        if (j === 0) return Buffer.from(out);
        if (j === 1 || padded) throw new Base64Error(si - j);
        dlen = j;
        end = true;
        break;
      }
      const c = src[si]!;
      si++;
      if (isNL(c)) {
        j--;
        continue;
      }
      const v = t[c]!;
      if (v >= 0) {
        dbuf[j] = v;
        continue;
      }
      if (c !== 61 || !padded) throw new Base64Error(si - 1);
      // Padding.
      if (j === 0 || j === 1) throw new Base64Error(si - 1);
      if (j === 2) {
        while (si < n && isNL(src[si]!)) si++;
        if (si === n) throw new Base64Error(n);
        if (src[si] !== 61) throw new Base64Error(si - 1);
        si++;
      }
      while (si < n && isNL(src[si]!)) si++;
      if (si < n) throw new Base64Error(si);
      dlen = j;
      end = true;
      break;
    }
    const val = (dbuf[0]! << 18) | (dbuf[1]! << 12) | (dbuf[2]! << 6) | dbuf[3]!;
    if (dlen >= 2) out.push((val >> 16) & 0xff);
    if (dlen >= 3) out.push((val >> 8) & 0xff);
    if (dlen >= 4) out.push(val & 0xff);
    if (end) break;
  }
  return Buffer.from(out);
}

/** OPA's base64url.decode: restores missing padding (RFC 7515 appendix C). */
export function opaBase64UrlDecode(s: string): Buffer {
  let x = s;
  if (!x.endsWith('=')) {
    switch (x.length % 4) {
      case 0:
        break;
      case 2:
        x += '==';
        break;
      case 3:
        x += '=';
        break;
      default:
        throw new BuiltinError(`illegal base64url string: ${s}`);
    }
  }
  return goBase64Decode(x, true, true);
}

/** Wraps a Base64Error into a BuiltinError (message unchanged). */
export function b64OrError(f: () => Buffer): Buffer {
  try {
    return f();
  } catch (e) {
    if (e instanceof Base64Error) throw new BuiltinError(e.message);
    throw e;
  }
}

export interface PemBlock {
  type: string;
  headers: Record<string, string>;
  bytes: Buffer;
}

/**
 * Go's pem.Decode: find the first PEM block in `data`; returns the block (or
 * undefined when none decodes) and the rest of the input after it.
 */
export function pemDecode(data: string): { block?: PemBlock; rest: string } {
  let rest = data;
  for (;;) {
    const start = rest.startsWith('-----BEGIN ') ? 0 : rest.indexOf('\n-----BEGIN ');
    if (start < 0) return { rest: data };
    const at = start === 0 && rest.startsWith('-----BEGIN ') ? 0 : start + 1;
    const after = rest.slice(at + 11);
    const lineEnd = after.indexOf('\n');
    const typeLine = (lineEnd < 0 ? after : after.slice(0, lineEnd)).replace(/\r$/, '').replace(/[ \t]+$/, '');
    if (!typeLine.endsWith('-----')) {
      rest = after;
      continue;
    }
    const type = typeLine.slice(0, -5);
    const body = lineEnd < 0 ? '' : after.slice(lineEnd + 1);
    const endMarker = `-----END ${type}-----`;
    const endIdx = body.indexOf(endMarker);
    if (endIdx < 0 || (endIdx > 0 && body[endIdx - 1] !== '\n')) {
      rest = after;
      continue;
    }
    let content = body.slice(0, endIdx);
    const headers: Record<string, string> = {};
    // Optional RFC 1421 headers, terminated by a blank line.
    const lines = content.split('\n');
    if (lines.length > 0 && lines[0]!.includes(':')) {
      let i = 0;
      for (; i < lines.length; i++) {
        const l = lines[i]!.replace(/\r$/, '');
        if (l.trim() === '') break;
        const c = l.indexOf(':');
        if (c < 0) break;
        headers[l.slice(0, c).trim()] = l.slice(c + 1).trim();
      }
      content = lines.slice(i).join('\n');
    }
    let bytes: Buffer;
    try {
      bytes = goBase64Decode(content.replace(/[ \t\r\n]/g, ''));
    } catch {
      rest = after;
      continue;
    }
    let tail = body.slice(endIdx + endMarker.length);
    const nl = tail.match(/^[ \t\r]*\n/);
    if (nl) tail = tail.slice(nl[0].length);
    else if (/^[ \t\r]*$/.test(tail)) tail = '';
    return { block: { type, headers, bytes }, rest: tail };
  }
}

/** Split concatenated DER TLVs; throws on a truncated or malformed header. */
export function splitDer(buf: Uint8Array): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  while (i < buf.length) {
    if (buf.length - i < 2) throw new Error('truncated');
    let len = buf[i + 1]!;
    let hdr = 2;
    if (len & 0x80) {
      const nb = len & 0x7f;
      if (nb === 0 || nb > 4 || buf.length - i < 2 + nb) throw new Error('bad length');
      len = 0;
      for (let k = 0; k < nb; k++) len = len * 256 + buf[i + 2 + k]!;
      hdr += nb;
    }
    if (buf[i] !== 0x30 || i + hdr + len > buf.length) throw new Error('malformed');
    out.push(Buffer.from(buf.subarray(i, i + hdr + len)));
    i += hdr + len;
  }
  return out;
}

export const b64url = (b: Uint8Array): string => Buffer.from(b).toString('base64url');
export const b64std = (b: Uint8Array): string => Buffer.from(b).toString('base64');
