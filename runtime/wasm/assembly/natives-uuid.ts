// Regent's Wasm runtime: uuid.parse natively, as runtime/builtins/uuid.ts (google/uuid's
// accepted forms: 36-character, `urn:uuid:` + 36, `{…}` 38, and 32 hex digits; OPA's
// result object with version and variant, plus time, node id, MAC variables and clock
// sequence for versions 1 and 2, and id and domain for version 2). Invalid text is
// undefined, as in OPA.
import { alloc, mkNum, mkStr, mkObj, objPut, len, strData, isStr } from './values';
import { bdLit, bdMul, bdToNum, bdParse } from './bigdec';

function lit(s: string): usize {
  const p = alloc(<usize>s.length);
  for (let i = 0; i < s.length; i++) store<u8>(p + i, <u8>s.charCodeAt(i));
  return mkStr(p, s.length);
}

function hexVal(c: i32): i32 {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** 32 hex digits at the given offsets into 16 bytes; 0 when one is not a hex digit. */
function bytesAt(p: usize, offsets: usize): usize {
  const out = alloc(16);
  for (let i = 0; i < 16; i++) {
    const o = <usize>load<i32>(offsets + (<usize>i << 2));
    const a = hexVal(<i32>load<u8>(p + o));
    const b = hexVal(<i32>load<u8>(p + o + 1));
    if (a < 0 || b < 0) return 0;
    store<u8>(out + i, <u8>((a << 4) | b));
  }
  return out;
}

/** google/uuid.Parse: the 16 bytes, or 0. */
function parseUUID(s: usize): usize {
  let p = strData(s);
  const n = len(s);
  for (let i = 0; i < n; i++) if (load<u8>(p + i) >= 0x80) return 0;
  const offs = alloc(64);
  if (n == 32) {
    for (let i = 0; i < 16; i++) store<i32>(offs + (<usize>i << 2), i * 2);
    return bytesAt(p, offs);
  }
  if (n == 45) {
    const urn = 'urn:uuid:';
    for (let i = 0; i < 9; i++) if ((<i32>load<u8>(p + i) | 0x20) != <i32>urn.charCodeAt(i)) return 0;
    p += 9;
  } else if (n == 38) p += 1;
  else if (n != 36) return 0;
  if (load<u8>(p + 8) != 0x2d || load<u8>(p + 13) != 0x2d || load<u8>(p + 18) != 0x2d || load<u8>(p + 23) != 0x2d) return 0;
  // groups 8-4-4-4-12
  let k = 0;
  for (let i = 0; i < 36 && k < 16; i += 2) {
    if (i == 8 || i == 13 || i == 18 || i == 23) i++;
    store<i32>(offs + (<usize>k << 2), i);
    k++;
  }
  return bytesAt(p, offs);
}

function byte(u: usize, i: i32): i32 { return <i32>load<u8>(u + i); }

function variant(b: i32): string {
  if ((b & 0xc0) == 0x80) return 'RFC4122';
  if ((b & 0xe0) == 0xc0) return 'Microsoft';
  if ((b & 0xe0) == 0xe0) return 'Future';
  return 'Reserved';
}

function macVars(b: i32): string {
  if ((b & 3) == 3) return 'local:multicast';
  if ((b & 1) == 1) return 'global:multicast';
  if ((b & 2) == 2) return 'local:unicast';
  return 'global:unicast';
}

/** A signed 64-bit integer as a BigDec (through its decimal text). */
function i64Dec(x: i64): usize {
  const buf = alloc(24);
  let o = 24;
  let u: u64 = x < 0 ? <u64>(-x) : <u64>x;
  do { store<u8>(buf + --o, <u8>(48 + <i32>(u % 10))); u /= 10; } while (u > 0);
  if (x < 0) store<u8>(buf + --o, 0x2d);
  return bdParse(buf + o, 24 - o);
}

export function rtb_uuid_parse(s: usize): usize {
  if (!isStr(s)) return 0;
  const u = parseUUID(s);
  if (u == 0) return 0;
  const o = mkObj();
  const version = byte(u, 6) >> 4;
  objPut(o, lit('version'), mkNum(<f64>version));
  objPut(o, lit('variant'), lit(variant(byte(u, 8))));
  if (version == 1 || version == 2) {
    const t: i64 = <i64>((<u32>byte(u, 0) << 24) | (<u32>byte(u, 1) << 16) | (<u32>byte(u, 2) << 8) | <u32>byte(u, 3))
      | (<i64>((byte(u, 4) << 8) | byte(u, 5)) << 32)
      | (<i64>(((byte(u, 6) << 8) | byte(u, 7)) & 0xfff) << 48);
    const rel: i64 = t - 122192928000000000;
    // (rel / 10^7) * 10^9 + (rel % 10^7) * 100 is rel * 100 (truncated division)
    objPut(o, lit('time'), bdToNum(bdMul(i64Dec(rel), bdLit('100'))));
    const node = alloc(17);
    const H = '0123456789abcdef';
    for (let i = 0; i < 6; i++) {
      const b = byte(u, 10 + i);
      store<u8>(node + i * 3, <u8>H.charCodeAt(b >> 4));
      store<u8>(node + i * 3 + 1, <u8>H.charCodeAt(b & 15));
      if (i < 5) store<u8>(node + i * 3 + 2, 0x2d);
    }
    objPut(o, lit('nodeid'), mkStr(node, 17));
    objPut(o, lit('macvariables'), lit(macVars(byte(u, 10))));
    objPut(o, lit('clocksequence'), mkNum(<f64>(((byte(u, 8) << 8) | byte(u, 9)) & 0x3fff)));
    if (version == 2) {
      const id = (<u32>byte(u, 0) << 24) | (<u32>byte(u, 1) << 16) | (<u32>byte(u, 2) << 8) | <u32>byte(u, 3);
      objPut(o, lit('id'), mkNum(<f64>id));
      const d = byte(u, 9);
      if (d == 0) objPut(o, lit('domain'), lit('Person'));
      else if (d == 1) objPut(o, lit('domain'), lit('Group'));
      else if (d == 2) objPut(o, lit('domain'), lit('Org'));
      else {
        // `Domain<d>`
        const buf = alloc(9);
        const pre = 'Domain';
        for (let i = 0; i < 6; i++) store<u8>(buf + i, <u8>pre.charCodeAt(i));
        let m = 6;
        if (d >= 100) store<u8>(buf + m++, <u8>(48 + d / 100));
        if (d >= 10) store<u8>(buf + m++, <u8>(48 + (d / 10) % 10));
        store<u8>(buf + m++, <u8>(48 + d % 10));
        objPut(o, lit('domain'), mkStr(buf, m));
      }
    }
  }
  return o;
}
