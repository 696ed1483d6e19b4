// Regent's Wasm runtime: glob.match and glob.quote_meta natively, with the semantics of
// runtime/builtins/glob.ts (gobwas/glob v0.2, as OPA): `*` any run of non-delimiter
// runes, `**` any run, `?` one non-delimiter rune, `[abc]`/`[!abc]`/`[a-z]`/`[!a-z]` one
// rune, `{a,b}` alternatives (an unclosed `{` closes at the end), `\` escapes; NUL ends
// the pattern, U+FFFD is gobwas's "could not read rune". The pattern is parsed into
// nodes and matched by backtracking over code points (0 = a pattern error: undefined).
import {
  T_ARR, T_NULL,
  alloc, mkBool, mkStr, mkArr, arrPush, tag, len, item, strData, isStr,
} from './values';

const LIT = 0;
const ANY = 1;
const STAR = 2;
const SUPER = 3;
const CLASS = 4;
const ALT = 5;

/** Node [kind, a, b, c, d]: LIT a = rune; CLASS a = negated, b..c = range or d = [count, runes…]; ALT a = alternatives. */
function node(kind: i32, a: i32, b: i32, c: i32, d: i32): usize {
  const p = alloc(20);
  store<i32>(p, kind); store<i32>(p, a, 4); store<i32>(p, b, 8); store<i32>(p, c, 12); store<i32>(p, d, 16);
  return p;
}
function kind(n: usize): i32 { return load<i32>(n); }
function fa(n: usize): i32 { return load<i32>(n, 4); }
function fb(n: usize): i32 { return load<i32>(n, 8); }
function fc(n: usize): i32 { return load<i32>(n, 12); }
function fd(n: usize): usize { return <usize>load<i32>(n, 16); }

/** UTF-8 → code points (i32 array); returns the count in `runeCount`. */
let runeCount = 0;
function decode(p: usize, n: i32): usize {
  const out = alloc(<usize>(n + 1) << 2);
  let k = 0;
  let i = 0;
  while (i < n) {
    const c = <i32>load<u8>(p + i);
    let r = c;
    let extra = 0;
    if (c >= 0xf0) { r = c & 7; extra = 3; } else if (c >= 0xe0) { r = c & 15; extra = 2; } else if (c >= 0xc0) { r = c & 31; extra = 1; }
    i++;
    for (let j = 0; j < extra && i < n; j++) r = (r << 6) | (<i32>load<u8>(p + i++) & 63);
    store<i32>(out + (<usize>k << 2), r);
    k++;
  }
  runeCount = k;
  return out;
}
function rune(rs: usize, i: i32): i32 { return load<i32>(rs + (<usize>i << 2)); }

// ---------------------------------------------------------------- parser

let pr: usize = 0; // pattern runes
let pn = 0;        // pattern length (up to a NUL)
let pi = 0;        // read position
let bad = false;   // a parse error

function isBreaker(r: i32, inAlt: bool): bool {
  return r == 0x3f || r == 0x2a || r == 0x5b || r == 0x7b || (inAlt && (r == 0x7d || r == 0x2c));
}

/** Runes up to a breaker (or `]` in a class when `cls`), with `\` escapes. */
function text(seq: usize, inAlt: bool, cls: bool, into: usize): void {
  let escaped = false;
  while (pi < pn) {
    const r = rune(pr, pi++);
    if (!escaped) {
      if (r == 0x5c) { escaped = true; continue; }
      if (cls ? r == 0x5d : isBreaker(r, inAlt)) { pi--; break; }
    }
    escaped = false;
    if (cls) {
      const cnt = load<i32>(into);
      store<i32>(into + (<usize>(cnt + 1) << 2), r);
      store<i32>(into, cnt + 1);
    } else arrPush(seq, node(LIT, r, 0, 0, 0));
  }
}

function parseClass(seq: usize): void {
  let not = 0;
  let lo = 0;
  let hi = 0;
  const chars = alloc(<usize>(pn + 2) << 2);
  store<i32>(chars, 0);
  let wantHi = false;
  let wantClose = false;
  while (true) {
    if (pi >= pn) { bad = true; return; }
    const r = rune(pr, pi++);
    if (wantClose) {
      if (r != 0x5d) bad = true;
      break;
    }
    if (wantHi) {
      hi = r;
      if (hi < lo) { bad = true; return; }
      wantClose = true;
      continue;
    }
    if (not == 0 && r == 0x21 && load<i32>(chars) == 0 && lo == 0) { not = 1; continue; }
    if (pi < pn && rune(pr, pi) == 0x2d) { pi++; lo = r; wantHi = true; continue; }
    pi--;
    text(0, false, true, chars);
    wantClose = true;
  }
  const isRange = lo != 0 && hi != 0;
  if ((load<i32>(chars) > 0) == isRange) { bad = true; return; }
  arrPush(seq, node(CLASS, not, lo, hi, isRange ? 0 : <i32>chars));
}

/** A sequence of nodes; inside `{…}` it stops before `,` or `}`. */
function parseSeq(inAlt: bool): usize {
  const seq = mkArr(4);
  while (pi < pn && !bad) {
    const r = rune(pr, pi++);
    if (r == 0x7b) {
      const alts = mkArr(2);
      while (true) {
        arrPush(alts, parseSeq(true));
        if (bad || pi >= pn) break; // an unclosed group closes at the end
        const c = rune(pr, pi++);
        if (c == 0x7d) break;
      }
      arrPush(seq, node(ALT, <i32>alts, 0, 0, 0));
    } else if (inAlt && (r == 0x2c || r == 0x7d)) {
      pi--;
      return seq;
    } else if (r == 0x5b) parseClass(seq);
    else if (r == 0x3f) arrPush(seq, node(ANY, 0, 0, 0, 0));
    else if (r == 0x2a) {
      if (pi < pn && rune(pr, pi) == 0x2a) { pi++; arrPush(seq, node(SUPER, 0, 0, 0, 0)); }
      else arrPush(seq, node(STAR, 0, 0, 0, 0));
    } else {
      pi--;
      text(seq, inAlt, false, 0);
    }
  }
  return seq;
}

// ---------------------------------------------------------------- matcher

let delims: usize = 0; // [count, runes…]
let sr: usize = 0;     // subject runes
let sn = 0;

function isDelim(r: i32): bool {
  const n = load<i32>(delims);
  for (let i = 0; i < n; i++) if (load<i32>(delims + (<usize>(i + 1) << 2)) == r) return true;
  return false;
}

function classHas(nd: usize, r: i32): bool {
  let hit = false;
  if (fd(nd) == 0) hit = r >= fb(nd) && r <= fc(nd);
  else {
    const cs = fd(nd);
    for (let i = 0; i < load<i32>(cs) && !hit; i++) hit = load<i32>(cs + (<usize>(i + 1) << 2)) == r;
  }
  return fa(nd) != 0 ? !hit : hit;
}

function matchSeq(seq: usize, k: i32, pos: i32, depth: i32): bool {
  if (depth > 100000) return false;
  if (k == len(seq)) return pos == sn;
  const nd = item(seq, k);
  const kd = kind(nd);
  if (kd == LIT) return pos < sn && rune(sr, pos) == fa(nd) && matchSeq(seq, k + 1, pos + 1, depth + 1);
  if (kd == ANY) return pos < sn && !isDelim(rune(sr, pos)) && matchSeq(seq, k + 1, pos + 1, depth + 1);
  if (kd == CLASS) return pos < sn && classHas(nd, rune(sr, pos)) && matchSeq(seq, k + 1, pos + 1, depth + 1);
  if (kd == STAR || kd == SUPER) {
    for (let j = pos; j <= sn; j++) {
      if (matchSeq(seq, k + 1, j, depth + 1)) return true;
      if (j < sn && kd == STAR && isDelim(rune(sr, j))) return false;
    }
    return false;
  }
  // ALT: each alternative followed by the rest of this sequence
  const alts = <usize>fa(nd);
  for (let i = 0; i < len(alts); i++) {
    const alt = item(alts, i);
    const joined = mkArr(len(alt) + len(seq) - k);
    for (let j = 0; j < len(alt); j++) arrPush(joined, item(alt, j));
    for (let j = k + 1; j < len(seq); j++) arrPush(joined, item(seq, j));
    if (matchSeq(joined, 0, pos, depth + 1)) return true;
  }
  return false;
}

/** glob.match(pattern, delimiters, subject). */
export function rtb_glob_match(p: usize, d: usize, s: usize): usize {
  if (!isStr(p) || !isStr(s)) return 0;
  // delimiters: null → none, [] → ["."], otherwise one rune per string
  if (tag(d) == T_NULL) {
    delims = alloc(4);
    store<i32>(delims, 0);
  } else if (tag(d) == T_ARR) {
    delims = alloc(<usize>(len(d) + 2) << 2);
    store<i32>(delims, len(d) == 0 ? 1 : len(d));
    store<i32>(delims + 4, 0x2e);
    for (let i = 0; i < len(d); i++) {
      const x = item(d, i);
      if (!isStr(x)) return 0;
      const rs = decode(strData(x), len(x));
      if (runeCount != 1) return 0;
      store<i32>(delims + (<usize>(i + 1) << 2), rune(rs, 0));
    }
  } else return 0;
  pr = decode(strData(p), len(p));
  pn = runeCount;
  for (let i = 0; i < pn; i++) {
    if (rune(pr, i) == 0) { pn = i; break; }
    if (rune(pr, i) == 0xfffd) return 0;
  }
  pi = 0;
  bad = false;
  const seq = parseSeq(false);
  if (bad) return 0;
  sr = decode(strData(s), len(s));
  sn = runeCount;
  return mkBool(matchSeq(seq, 0, 0, 0) ? 1 : 0);
}

/** glob.quote_meta: a backslash before * ? \ [ ] { }. */
export function rtb_glob_quote_meta(s: usize): usize {
  if (!isStr(s)) return 0;
  const out = alloc(<usize>len(s) * 2);
  let o = 0;
  for (let i = 0; i < len(s); i++) {
    const c = load<u8>(strData(s) + i);
    if (c == 0x2a || c == 0x3f || c == 0x5c || c == 0x5b || c == 0x5d || c == 0x7b || c == 0x7d) store<u8>(out + o++, 0x5c);
    store<u8>(out + o++, c);
  }
  return mkStr(out, o);
}
