// Regent's Wasm runtime: the JSON parser (opa_json_parse; also Rego value text for
// opa_value_parse: set(), {a, b} sets, non-string keys) over the value model in
// values.ts. It returns 0 on any syntax error (never traps), so a malformed input or
// data document is reported through the ABI. The printer is in dump.ts.
import {
  alloc, mkNull, mkBool, mkNumRaw, mkStr, mkArr, mkObj, mkSet, arrPush, objPut, setAdd,
} from './values';

let pos: usize = 0;
let end: usize = 0;
let depth: i32 = 0;

function ws(): void {
  while (pos < end) {
    const c = load<u8>(pos);
    if (c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09) pos++;
    else break;
  }
}

function lit(word: string): bool {
  const n = <usize>word.length;
  if (pos + n > end) return false;
  for (let i: usize = 0; i < n; i++) if (<i32>load<u8>(pos + i) != word.charCodeAt(<i32>i)) return false;
  pos += n;
  return true;
}

function hex(c: i32): i32 {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

function hex4(): i32 {
  if (pos + 4 > end) return -1;
  let r = 0;
  for (let i = 0; i < 4; i++) {
    const h = hex(load<u8>(pos + i));
    if (h < 0) return -1;
    r = (r << 4) | h;
  }
  pos += 4;
  return r;
}

function parseString(): usize {
  pos++; // opening quote
  // Worst case the decoded text is as long as the source.
  let scan = pos;
  while (scan < end && load<u8>(scan) != 0x22) scan += load<u8>(scan) == 0x5c ? 2 : 1;
  if (scan >= end) return 0;
  const out = alloc(scan - pos + 1);
  let o = out;
  while (true) {
    if (pos >= end) return 0;
    const c = load<u8>(pos);
    if (c == 0x22) break;
    if (c < 0x20) return 0;
    if (c != 0x5c) {
      store<u8>(o++, c);
      pos++;
      continue;
    }
    pos++;
    if (pos >= end) return 0;
    const e = load<u8>(pos++);
    let cp: i32 = -1;
    if (e == 0x22 || e == 0x5c || e == 0x2f) cp = e;
    else if (e == 0x62) cp = 8;
    else if (e == 0x66) cp = 12;
    else if (e == 0x6e) cp = 10;
    else if (e == 0x72) cp = 13;
    else if (e == 0x74) cp = 9;
    else if (e == 0x75) {
      cp = hex4();
      if (cp < 0) return 0;
      if (cp >= 0xd800 && cp < 0xdc00 && pos + 6 <= end && load<u8>(pos) == 0x5c && load<u8>(pos + 1) == 0x75) {
        pos += 2;
        const lo = hex4();
        if (lo >= 0xdc00 && lo < 0xe000) cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        else cp = 0xfffd;
      } else if (cp >= 0xd800 && cp < 0xe000) cp = 0xfffd;
    } else return 0;
    if (cp < 0x80) store<u8>(o++, <u8>cp);
    else if (cp < 0x800) {
      store<u8>(o++, <u8>(0xc0 | (cp >> 6)));
      store<u8>(o++, <u8>(0x80 | (cp & 63)));
    } else if (cp < 0x10000) {
      store<u8>(o++, <u8>(0xe0 | (cp >> 12)));
      store<u8>(o++, <u8>(0x80 | ((cp >> 6) & 63)));
      store<u8>(o++, <u8>(0x80 | (cp & 63)));
    } else {
      store<u8>(o++, <u8>(0xf0 | (cp >> 18)));
      store<u8>(o++, <u8>(0x80 | ((cp >> 12) & 63)));
      store<u8>(o++, <u8>(0x80 | ((cp >> 6) & 63)));
      store<u8>(o++, <u8>(0x80 | (cp & 63)));
    }
  }
  pos++; // closing quote
  return mkStr(out, <i32>(o - out));
}

function digits(): i32 {
  let n = 0;
  while (pos < end) {
    const c = load<u8>(pos);
    if (c < 48 || c > 57) break;
    pos++;
    n++;
  }
  return n;
}

/** Decimal text → f64 (mantissa up to 19 digits, then scaled: close, not always exact). */
export function textToF64(p: usize, n: usize): f64 {
  let i: usize = 0;
  let neg = false;
  if (i < n && load<u8>(p) == 0x2d) { neg = true; i++; }
  let m: f64 = 0;
  let scale: i32 = 0;
  let seenDot = false;
  let sig = 0;
  for (; i < n; i++) {
    const c = load<u8>(p + i);
    if (c == 0x2e) { seenDot = true; continue; }
    if (c == 0x65 || c == 0x45) break;
    if (sig < 19) {
      m = m * 10 + <f64>(c - 48);
      if (m != 0) sig++;
      if (seenDot) scale--;
    } else if (!seenDot) scale++;
  }
  if (i < n) {
    i++;
    let eneg = false;
    if (load<u8>(p + i) == 0x2d) { eneg = true; i++; } else if (load<u8>(p + i) == 0x2b) i++;
    let e = 0;
    for (; i < n; i++) e = e * 10 + (load<u8>(p + i) - 48);
    scale += eneg ? -e : e;
  }
  const x = scale >= 0 ? m * Math.pow(10, scale) : m / Math.pow(10, -scale);
  return neg ? -x : x;
}

/** More than 15 significant digits, or an exponent a double cannot reach exactly. */
export function inexactText(p: usize, n: usize): bool {
  let sig = 0;
  let lead = true;
  let trailingZeros = 0;
  let i: usize = 0;
  for (; i < n; i++) {
    const c = load<u8>(p + i);
    if (c == 0x65 || c == 0x45) break;
    if (c < 48 || c > 57) continue;
    if (lead && c == 48) continue;
    lead = false;
    sig++;
    trailingZeros = c == 48 ? trailingZeros + 1 : 0;
  }
  if (sig - trailingZeros > 15) return true;
  const x = Math.abs(textToF64(p, n));
  return (x != 0 && x < 1e-300) || x > 1e300 || (x == 0 && sig > 0);
}

function parseNumber(): usize {
  const start = pos;
  if (load<u8>(pos) == 0x2d) pos++;
  if (digits() == 0) return 0;
  if (pos < end && load<u8>(pos) == 0x2e) {
    pos++;
    if (digits() == 0) return 0;
  }
  if (pos < end && (load<u8>(pos) | 0x20) == 0x65) {
    pos++;
    if (pos < end && (load<u8>(pos) == 0x2b || load<u8>(pos) == 0x2d)) pos++;
    if (digits() == 0) return 0;
  }
  const n = pos - start;
  const raw = alloc(n);
  memory.copy(raw, start, n);
  return mkNumRaw(textToF64(start, n), raw, <i32>n, inexactText(start, n) ? 1 : 0);
}

function parseValue(): usize {
  ws();
  if (pos >= end) return 0;
  const c = load<u8>(pos);
  if (c == 0x22) return parseString();
  if (c == 0x2d || (c >= 48 && c <= 57)) return parseNumber();
  if (c == 0x6e) return lit('null') ? mkNull() : 0;
  if (c == 0x74) return lit('true') ? mkBool(1) : 0;
  if (c == 0x66) return lit('false') ? mkBool(0) : 0;
  if (c == 0x73) return lit('set()') ? mkSet() : 0;
  if (++depth > 1000) return 0;
  if (c == 0x5b) {
    pos++;
    const a = mkArr(4);
    ws();
    if (pos < end && load<u8>(pos) == 0x5d) { pos++; depth--; return a; }
    while (true) {
      const x = parseValue();
      if (x == 0) return 0;
      arrPush(a, x);
      ws();
      if (pos >= end) return 0;
      const d = load<u8>(pos++);
      if (d == 0x5d) break;
      if (d != 0x2c) return 0;
    }
    depth--;
    return a;
  }
  if (c == 0x7b) {
    // an object, or a set (Rego value syntax, for opa_value_parse): decided by the first ':'
    pos++;
    ws();
    if (pos < end && load<u8>(pos) == 0x7d) { pos++; depth--; return mkObj(); }
    let o: usize = 0;
    let s: usize = 0;
    while (true) {
      const k = parseValue();
      if (k == 0) return 0;
      ws();
      if (pos < end && load<u8>(pos) == 0x3a && s == 0) {
        pos++;
        const v = parseValue();
        if (v == 0) return 0;
        if (o == 0) o = mkObj();
        objPut(o, k, v);
      } else {
        if (o != 0) return 0;
        if (s == 0) s = mkSet();
        setAdd(s, k);
      }
      ws();
      if (pos >= end) return 0;
      const d = load<u8>(pos++);
      if (d == 0x7d) break;
      if (d != 0x2c) return 0;
    }
    depth--;
    return o != 0 ? o : s;
  }
  return 0;
}

/** Parse `n` bytes of JSON at `p`; 0 when they are not exactly one JSON value. */
export function parseJSON(p: usize, n: usize): usize {
  pos = p;
  end = p + n;
  depth = 0;
  const v = parseValue();
  if (v == 0) return 0;
  ws();
  return pos == end ? v : 0;
}

