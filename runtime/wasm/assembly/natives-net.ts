// Regent's Wasm runtime: net.cidr_contains, net.cidr_overlap (its deprecated alias),
// net.cidr_intersects and net.cidr_contains_matches natively for IPv4, as
// runtime/builtins/net.ts (Go's netip grammar: four decimal fields 0–255 without
// leading zeros; a prefix length of 1–7 digits, at most 32). Text with `:` or `%`
// (IPv6, zones: Go's 4-in-6 rules) is left to the host: these answer HOST (1), and the
// compiled call then goes through opa_builtinN (compiler/codegen/wasm/exprs.ts).
import {
  T_ARR, T_SET, T_OBJ,
  mkBool, mkNum, mkArr, mkSet, arrPush, setAdd,
  tag, len, item, objKey, objVal, strData, isStr,
} from './values';

// a parsed address or network: ip (u32), prefix length (32 for an address); ok = false when malformed
let pIP: u32 = 0;
let pLen = 0;

function at(p: usize, i: i32): i32 { return <i32>load<u8>(p + <usize>i); }

/** The answer for inputs left to the host. */
const HOST: usize = 1;
let deferred = false;

/** False for IPv6 or zones (deferred is set) and for non-strings. */
function v4Only(v: usize): bool {
  if (!isStr(v)) return false;
  for (let i = 0; i < len(v); i++) {
    const c = at(strData(v), i);
    if (c == 0x3a || c == 0x25) { deferred = true; return false; }
  }
  return true;
}

/** Four decimal fields in [a, b) into pIP. */
function parseAddr(p: usize, a: i32, b: i32): bool {
  let ip: u32 = 0;
  let field = 0;
  let s = a;
  for (let i = a; i <= b; i++) {
    if (i < b && at(p, i) != 0x2e) {
      const c = at(p, i);
      if (c < 48 || c > 57) return false;
      continue;
    }
    const n = i - s;
    if (n < 1 || n > 3 || (n > 1 && at(p, s) == 48) || field >= 4) return false;
    let x = 0;
    for (let j = s; j < i; j++) x = x * 10 + at(p, j) - 48;
    if (x > 255) return false;
    ip = (ip << 8) | <u32>x;
    field++;
    s = i + 1;
  }
  if (field != 4) return false;
  pIP = ip;
  return true;
}

function parseIP(v: usize): bool {
  if (!parseAddr(strData(v), 0, len(v))) return false;
  pLen = 32;
  return true;
}

/** "a.b.c.d/n": the network (masked address) and n. */
function parseCIDR(v: usize): bool {
  const p = strData(v);
  let slash = -1;
  for (let i = 0; i < len(v) && slash < 0; i++) if (at(p, i) == 0x2f) slash = i;
  if (slash < 0 || !parseAddr(p, 0, slash)) return false;
  const digits = len(v) - slash - 1;
  if (digits < 1 || digits > 7) return false;
  let n = 0;
  for (let i = slash + 1; i < len(v); i++) {
    const c = at(p, i);
    if (c < 48 || c > 57) return false;
    n = n * 10 + c - 48;
  }
  if (n > 32) return false;
  pLen = n;
  pIP = pIP & mask(n);
  return true;
}

function mask(n: i32): u32 { return n == 0 ? 0 : <u32>(0xffffffff << (32 - n)); }

/** cidrContains(a, b) → 1, 0, or -1 for an error (undefined). */
function contains(a: usize, b: usize): i32 {
  if (!v4Only(a) || !v4Only(b)) return -1;
  if (!parseCIDR(a)) return -1;
  const net = pIP;
  const m = mask(pLen);
  if (parseIP(b)) return (pIP & m) == net ? 1 : 0;
  if (!parseCIDR(b)) return -1;
  const first = pIP;
  const last = pIP | ~mask(pLen);
  return (first & m) == net && (last & m) == net ? 1 : 0;
}

export function rtb_net_cidr_contains(a: usize, b: usize): usize {
  deferred = false;
  const r = contains(a, b);
  if (deferred) return HOST;
  return r < 0 ? 0 : mkBool(r);
}
export function rtb_net_cidr_overlap(a: usize, b: usize): usize { return rtb_net_cidr_contains(a, b); }

export function rtb_net_cidr_intersects(a: usize, b: usize): usize {
  deferred = false;
  if (!v4Only(a) || !v4Only(b)) return deferred ? HOST : 0;
  if (!parseCIDR(a)) return 0;
  const na = pIP;
  const ma = mask(pLen);
  if (!parseCIDR(b)) return 0;
  const nb = pIP;
  const mb = mask(pLen);
  return mkBool((nb & ma) == na || (na & mb) == nb ? 1 : 0);
}

/** [cidr, index] pairs of a cidr_contains_matches operand (0 when a member is malformed). */
function pairs(v: usize): usize {
  const out = mkArr(4);
  const t = tag(v);
  if (isStr(v)) { arrPush(out, v); arrPush(out, v); return out; }
  if (t != T_ARR && t != T_SET && t != T_OBJ) return out;
  for (let i = 0; i < len(v); i++) {
    const x = t == T_OBJ ? objVal(v, i) : item(v, i);
    let c = x;
    if (!isStr(x)) {
      if (tag(x) != T_ARR || len(x) == 0) return 0;
      c = item(x, 0);
    }
    arrPush(out, c);
    arrPush(out, t == T_ARR ? mkNum(<f64>i) : t == T_OBJ ? objKey(v, i) : x);
  }
  return out;
}

export function rtb_net_cidr_contains_matches(a: usize, b: usize): usize {
  deferred = false;
  const xs = pairs(a);
  const ys = pairs(b);
  if (xs == 0 || ys == 0) return 0;
  const out = mkSet();
  for (let i = 0; i < len(xs); i += 2) {
    for (let j = 0; j < len(ys); j += 2) {
      const r = contains(item(xs, i), item(ys, j));
      if (deferred) return HOST;
      if (r < 0) return 0;
      if (r == 1) {
        const pair = mkArr(2);
        arrPush(pair, item(xs, i + 1));
        arrPush(pair, item(ys, j + 1));
        setAdd(out, pair);
      }
    }
  }
  return out;
}
