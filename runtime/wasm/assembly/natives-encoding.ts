// Regent's Wasm runtime: native decoding builtins (base64.decode/is_valid,
// base64url.decode, hex.encode/decode, urlquery.encode/decode/encode_object/
// decode_object) with the semantics of
// runtime/builtins/encoding.ts (Go's padded base64 with newlines ignored, Go's
// url.QueryEscape/QueryUnescape). Decoded bytes that are not valid UTF-8 (the JS
// runtime substitutes U+FFFD) are left to the host: the native answers 1.
import { T_ARR, T_SET, T_OBJ, alloc, mkBool, mkStr, mkArr, mkObj, arrPush, objPut, objGet, tag, len, item, objKey, objVal, strData, isStr } from './values';

const HOST: usize = 1;

function b64val(c: i32, url: bool): i32 {
  if (c >= 65 && c <= 90) return c - 65;
  if (c >= 97 && c <= 122) return c - 71;
  if (c >= 48 && c <= 57) return c + 4;
  if (c == (url ? 45 : 43)) return 62;
  if (c == (url ? 95 : 47)) return 63;
  return -1;
}

function isNL(c: i32): bool { return c == 10 || c == 13; }

let outLen = 0;

/** Go's padded base64 decoding of n bytes at p (newlines ignored); 0 when corrupt. */
function b64decode(p: usize, n: i32, url: bool): usize {
  const out = alloc(<usize>(n * 3 / 4 + 3));
  let o = 0;
  let si = 0;
  while (si < n) {
    let d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    let dlen = 4;
    let end = false;
    for (let j = 0; j < 4; j++) {
      if (si == n) {
        if (j == 0) { outLen = o; return out; }
        return 0;
      }
      const c = <i32>load<u8>(p + si++);
      const d = b64val(c, url);
      if (d >= 0) {
        if (j == 0) d0 = d; else if (j == 1) d1 = d; else if (j == 2) d2 = d; else d3 = d;
        continue;
      }
      if (isNL(c)) { j--; continue; }
      if (c != 61 || j == 0 || j == 1) return 0;
      if (j == 2) {
        while (si < n && isNL(<i32>load<u8>(p + si))) si++;
        if (si == n || load<u8>(p + si) != 61) return 0;
        si++;
      }
      while (si < n && isNL(<i32>load<u8>(p + si))) si++;
      if (si < n) return 0;
      dlen = j;
      end = true;
      break;
    }
    const v = (d0 << 18) | (d1 << 12) | (d2 << 6) | d3;
    store<u8>(out + o++, <u8>((v >> 16) & 255));
    if (dlen > 2) store<u8>(out + o++, <u8>((v >> 8) & 255));
    if (dlen > 3) store<u8>(out + o++, <u8>(v & 255));
    if (end) break;
  }
  outLen = o;
  return out;
}

/** Strict UTF-8 (no overlongs, surrogates or code points past U+10FFFF). */
function validUTF8(p: usize, n: i32): bool {
  let i = 0;
  while (i < n) {
    const c = <i32>load<u8>(p + i);
    if (c < 0x80) { i++; continue; }
    let k = 0;
    let min = 0;
    let r = 0;
    if (c >= 0xc2 && c <= 0xdf) { k = 1; min = 0x80; r = c & 31; }
    else if (c >= 0xe0 && c <= 0xef) { k = 2; min = 0x800; r = c & 15; }
    else if (c >= 0xf0 && c <= 0xf4) { k = 3; min = 0x10000; r = c & 7; }
    else return false;
    for (let j = 1; j <= k; j++) {
      if (i + j >= n) return false;
      const d = <i32>load<u8>(p + i + j);
      if ((d & 0xc0) != 0x80) return false;
      r = (r << 6) | (d & 63);
    }
    if (r < min || r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff)) return false;
    i += k + 1;
  }
  return true;
}

function decoded(out: usize): usize {
  if (out == 0) return 0;
  return validUTF8(out, outLen) ? mkStr(out, outLen) : HOST;
}

export function rtb_base64_decode(s: usize): usize {
  if (!isStr(s)) return 0;
  return decoded(b64decode(strData(s), len(s), false));
}

export function rtb_base64_is_valid(s: usize): usize {
  if (!isStr(s)) return mkBool(0);
  return mkBool(b64decode(strData(s), len(s), false) != 0 ? 1 : 0);
}

/** base64url.decode: missing padding is added first (a length ≡ 1 mod 4 is an error). */
export function rtb_base64url_decode(s: usize): usize {
  if (!isStr(s)) return 0;
  let n = len(s);
  const p = alloc(<usize>n + 2);
  memory.copy(p, strData(s), <usize>n);
  if (n == 0 || load<u8>(p + n - 1) != 61) {
    const r = n % 4;
    if (r == 1) return 0;
    if (r == 2) { store<u8>(p + n, 61); store<u8>(p + n + 1, 61); n += 2; }
    else if (r == 3) { store<u8>(p + n, 61); n += 1; }
  }
  return decoded(b64decode(p, n, true));
}

function hexVal(c: i32): i32 {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

export function rtb_hex_encode(s: usize): usize {
  if (!isStr(s)) return 0;
  const out = alloc(<usize>len(s) * 2);
  for (let i = 0; i < len(s); i++) {
    const b = <i32>load<u8>(strData(s) + i);
    const hi = b >> 4;
    const lo = b & 15;
    store<u8>(out + i * 2, <u8>(hi < 10 ? 48 + hi : 87 + hi));
    store<u8>(out + i * 2 + 1, <u8>(lo < 10 ? 48 + lo : 87 + lo));
  }
  return mkStr(out, len(s) * 2);
}

export function rtb_hex_decode(s: usize): usize {
  if (!isStr(s) || len(s) % 2 == 1) return 0;
  const out = alloc(<usize>(len(s) >> 1) + 1);
  for (let i = 0; i < len(s); i += 2) {
    const a = hexVal(<i32>load<u8>(strData(s) + i));
    const b = hexVal(<i32>load<u8>(strData(s) + i + 1));
    if (a < 0 || b < 0) return 0;
    store<u8>(out + (i >> 1), <u8>((a << 4) | b));
  }
  outLen = len(s) >> 1;
  return decoded(out);
}

/** Go's url.QueryEscape: unreserved bytes kept, space as `+`, the rest `%XX`. */
export function rtb_urlquery_encode(s: usize): usize {
  if (!isStr(s)) return 0;
  const out = alloc(<usize>len(s) * 3);
  let o = 0;
  for (let i = 0; i < len(s); i++) {
    const b = <i32>load<u8>(strData(s) + i);
    if ((b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b == 45 || b == 95 || b == 46 || b == 126) {
      store<u8>(out + o++, <u8>b);
    } else if (b == 32) store<u8>(out + o++, 0x2b);
    else {
      store<u8>(out + o++, 0x25);
      const hi = b >> 4;
      const lo = b & 15;
      store<u8>(out + o++, <u8>(hi < 10 ? 48 + hi : 55 + hi));
      store<u8>(out + o++, <u8>(lo < 10 ? 48 + lo : 55 + lo));
    }
  }
  return mkStr(out, o);
}

/** Go's url.QueryUnescape of n bytes at p: a string, 0 (a bad `%` escape) or HOST (not UTF-8). */
function unescape(p: usize, n: i32): usize {
  const out = alloc(<usize>n + 1);
  let o = 0;
  for (let i = 0; i < n;) {
    const c = <i32>load<u8>(p + i);
    if (c == 0x25) {
      if (i + 2 >= n) return 0;
      const a = hexVal(<i32>load<u8>(p + i + 1));
      const b = hexVal(<i32>load<u8>(p + i + 2));
      if (a < 0 || b < 0) return 0;
      store<u8>(out + o++, <u8>((a << 4) | b));
      i += 3;
    } else {
      store<u8>(out + o++, <u8>(c == 0x2b ? 32 : c));
      i++;
    }
  }
  outLen = o;
  return decoded(out);
}

/** Go's url.QueryUnescape (`+` is a space; a bad `%` escape is an error). */
export function rtb_urlquery_decode(s: usize): usize {
  if (!isStr(s)) return 0;
  return unescape(strData(s), len(s));
}

/** Go's url.Values.Encode: keys in order, `k=v` for a string or each member of an array/set. */
export function rtb_urlquery_encode_object(o: usize): usize {
  if (tag(o) != T_OBJ) return 0;
  const parts = mkArr(4);
  for (let i = 0; i < len(o); i++) {
    const k = objKey(o, i);
    if (!isStr(k)) return HOST; // the JS runtime's key text and order for non-string keys
    for (let j = 0; j < len(k); j++) if (load<u8>(strData(k) + j) >= 0x80) return HOST; // UTF-16 order there
    const ek = rtb_urlquery_encode(k);
    const v = objVal(o, i);
    const t = tag(v);
    if (isStr(v)) arrPush(parts, pair(ek, rtb_urlquery_encode(v)));
    else if (t == T_ARR || t == T_SET) {
      for (let j = 0; j < len(v); j++) {
        if (!isStr(item(v, j))) return 0;
        arrPush(parts, pair(ek, rtb_urlquery_encode(item(v, j))));
      }
    } else return 0;
  }
  let n = 0;
  for (let i = 0; i < len(parts); i++) n += len(item(parts, i)) + 1;
  const out = alloc(<usize>n + 1);
  let w = 0;
  for (let i = 0; i < len(parts); i++) {
    if (i > 0) store<u8>(out + w++, 0x26);
    const x = item(parts, i);
    memory.copy(out + w, strData(x), <usize>len(x));
    w += len(x);
  }
  return mkStr(out, w);
}

function pair(k: usize, v: usize): usize {
  const out = alloc(<usize>(len(k) + len(v) + 1));
  memory.copy(out, strData(k), <usize>len(k));
  store<u8>(out + len(k), 0x3d);
  memory.copy(out + len(k) + 1, strData(v), <usize>len(v));
  return mkStr(out, len(k) + len(v) + 1);
}

/** Go's url.ParseQuery: `&`-separated `k=v` pairs into an object of arrays (a `;` is an error). */
export function rtb_urlquery_decode_object(s: usize): usize {
  if (!isStr(s)) return 0;
  const p = strData(s);
  const n = len(s);
  const out = mkObj();
  let bad = false;
  let host = false;
  let a = 0;
  for (let i = 0; i <= n; i++) {
    if (i < n && load<u8>(p + i) != 0x26) continue;
    if (i > a) {
      let eq = -1;
      let semi = false;
      for (let j = a; j < i; j++) {
        const c = load<u8>(p + j);
        if (c == 0x3b) semi = true;
        if (c == 0x3d && eq < 0) eq = j;
      }
      if (semi) bad = true;
      else {
        const k = unescape(p + a, (eq < 0 ? i : eq) - a);
        const v = eq < 0 ? unescape(p, 0) : unescape(p + eq + 1, i - eq - 1);
        if (k == 0 || v == 0) bad = true;
        else if (k == HOST || v == HOST) host = true;
        else {
          let list = objGet(out, k);
          if (list == 0) { list = mkArr(2); objPut(out, k, list); }
          arrPush(list, v);
        }
      }
    }
    a = i + 1;
  }
  if (bad) return 0;
  return host ? HOST : out;
}
