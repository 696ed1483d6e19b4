// Regent's Wasm runtime: the printer behind opa_json_dump (JSON: sets as arrays,
// non-string keys as their quoted JSON text), opa_value_dump (Rego value text: sets
// as {…}/set(), keys as values) and term text as OPA prints values in template strings
// (separators with a space). Numbers print their source text when they have one.
import {
  T_NULL, T_BOOL, T_NUM, T_STR, T_OBJ, T_SET,
  alloc, mkNum, mkStr, tag, len, item, objKey, objVal, numVal, strData,
} from './values';

// ---------------------------------------------------------------- printer

let buf: usize = 0;
/** Rego value syntax (opa_value_dump): sets as {…}/set(), object keys as values. */
let rego = false;
/** Rego term text as OPA prints it (`[1, 2]`, `{"a": 1}`): separators with a space. */
let spaced = false;

function sep(c: i32): void {
  put(c);
  if (spaced) put(0x20);
}
let blen: usize = 0;
let bcap: usize = 0;

function put(c: i32): void {
  if (blen >= bcap) {
    const ncap = bcap * 2 + 64;
    const nb = alloc(ncap);
    memory.copy(nb, buf, blen);
    buf = nb;
    bcap = ncap;
  }
  store<u8>(buf + blen++, <u8>c);
}

function putText(s: string): void {
  for (let i = 0; i < s.length; i++) put(s.charCodeAt(i));
}

function putBytes(p: usize, n: usize): void {
  for (let i: usize = 0; i < n; i++) put(load<u8>(p + i));
}

function putUint(x: u64): void {
  if (x >= 10) putUint(x / 10);
  put(48 + <i32>(x % 10));
}

function putNumber(x: f64): void {
  if (!isFinite(x)) { putText('null'); return; }
  if (x < 0) { put(0x2d); x = -x; }
  if (x == Math.floor(x) && x < 1e19) { putUint(<u64>x); return; }
  // 17 significant digits in scientific notation, trailing zeros dropped.
  let e = <i32>Math.floor(Math.log10(x));
  let m = x / Math.pow(10, e);
  if (m >= 10) { m /= 10; e++; }
  if (m < 1) { m *= 10; e--; }
  let ds = <u64>Math.round(m * 1e16);
  if (ds >= 100000000000000000) { ds /= 10; e++; }
  while (ds % 10 == 0 && ds > 0) ds /= 10;
  let n = 0;
  let t = ds;
  while (t > 0) { t /= 10; n++; }
  // digits: n; value = 0.d1d2.. * 10^(e+1)
  if (e >= -5 && e < 21) {
    let digitsBuf = ds;
    const parts = alloc(20);
    for (let i = n - 1; i >= 0; i--) { store<u8>(parts + i, <u8>(48 + <i32>(digitsBuf % 10))); digitsBuf /= 10; }
    if (e < 0) {
      putText('0.');
      for (let i = 0; i < -e - 1; i++) put(48);
      putBytes(parts, n);
    } else {
      for (let i = 0; i < n || i <= e; i++) {
        if (i == e + 1) put(0x2e);
        put(i < n ? load<u8>(parts + i) : 48);
      }
    }
    return;
  }
  putUint(ds);
  put(0x65);
  putText(e - (n - 1) < 0 ? '-' : '');
  const ee = e - (n - 1);
  putUint(<u64>(ee < 0 ? -ee : ee));
}

function putString(v: usize): void {
  put(0x22);
  const p = strData(v);
  const n = <usize>len(v);
  for (let i: usize = 0; i < n; i++) {
    const c = <i32>load<u8>(p + i);
    if (c == 0x22 || c == 0x5c) { put(0x5c); put(c); }
    else if (c == 10) putText('\\n');
    else if (c == 13) putText('\\r');
    else if (c == 9) putText('\\t');
    else if (c < 0x20) {
      putText('\\u00');
      put(48 + (c >> 4));
      const l = c & 15;
      put(l < 10 ? 48 + l : 87 + l);
    } else put(c);
  }
  put(0x22);
}

function dumpValue(v: usize): void {
  switch (tag(v)) {
    case T_NULL: putText('null'); break;
    case T_BOOL: putText(len(v) != 0 ? 'true' : 'false'); break;
    case T_NUM:
      if (len(v) > 0) putBytes(<usize>load<i32>(v, 16), <usize>len(v));
      else putNumber(numVal(v));
      break;
    case T_STR: putString(v); break;
    case T_OBJ: {
      put(0x7b);
      for (let i = 0; i < len(v); i++) {
        if (i > 0) sep(0x2c);
        const k = objKey(v, i);
        if (tag(k) == T_STR) putString(k);
        else if (rego) dumpValue(k);
        else putString(dumpToString(k));
        sep(0x3a);
        dumpValue(objVal(v, i));
      }
      put(0x7d);
      break;
    }
    default: {
      // T_ARR and T_SET
      if (rego && tag(v) == T_SET) {
        if (len(v) == 0) { putText('set()'); break; }
        put(0x7b);
        for (let i = 0; i < len(v); i++) {
          if (i > 0) sep(0x2c);
          dumpValue(item(v, i));
        }
        put(0x7d);
        break;
      }
      put(0x5b);
      for (let i = 0; i < len(v); i++) {
        if (i > 0) sep(0x2c);
        dumpValue(item(v, i));
      }
      put(0x5d);
    }
  }
}

/** A key's JSON text as a string value (for objects with non-string keys). */
function dumpToString(k: usize): usize {
  const sb = buf, sl = blen, sc = bcap;
  buf = 0; blen = 0; bcap = 0;
  dumpValue(k);
  const s = mkStr(buf, <i32>blen);
  buf = sb; blen = sl; bcap = sc;
  return s;
}

/** The JSON text of `v`, NUL-terminated. */
export function dumpJSON(v: usize): usize {
  rego = false;
  return dump(v);
}

/** `v` as OPA prints a term (template strings, sprintf %v): a string value. */
export function termText(v: usize): usize {
  rego = true;
  spaced = true;
  buf = 0; blen = 0; bcap = 0;
  dumpValue(v);
  rego = false;
  spaced = false;
  return mkStr(buf, <i32>blen);
}

/** The Rego value text of `v` (sets as sets), NUL-terminated. */
export function dumpValueText(v: usize): usize {
  rego = true;
  const p = dump(v);
  rego = false;
  return p;
}

function dump(v: usize): usize {
  buf = 0; blen = 0; bcap = 0;
  if (v == 0) putText('null');
  else dumpValue(v);
  put(0);
  return buf;
}

export function dumpNumber(x: f64): usize {
  return dumpJSON(mkNum(x));
}
