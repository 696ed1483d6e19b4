// Regent's Wasm runtime: semver.is_valid and semver.compare natively, as
// runtime/builtins/semver.ts: strict SemVer 2.0.0 (no leading zeros in numeric
// identifiers, non-empty identifiers), an optional leading "v", major/minor/patch at
// most int64's maximum, build metadata ignored for precedence.
import { alloc, mkBool, mkNum, len, strData, isStr } from './values';

// A parsed version: [ok, p, majS, majL, minS, minL, patS, patL, preS, preE] as i32 offsets into p
// (preS = -1 without a pre-release).
const S_OK = 0;

function isDigit(c: i32): bool { return c >= 48 && c <= 57; }
function isIdent(c: i32): bool { return isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 0x2d; }
function at(p: usize, i: i32): i32 { return <i32>load<u8>(p + <usize>i); }

/** Identifiers between a and b separated by dots: each non-empty, [0-9A-Za-z-]; numeric ones without leading zeros when `pre`. */
function identsOk(p: usize, a: i32, b: i32, pre: bool): bool {
  let start = a;
  for (let i = a; i <= b; i++) {
    if (i < b && at(p, i) != 0x2e) {
      if (!isIdent(at(p, i))) return false;
      continue;
    }
    if (i == start) return false;
    if (pre) {
      let numeric = true;
      for (let j = start; j < i; j++) if (!isDigit(at(p, j))) numeric = false;
      if (numeric && i - start > 1 && at(p, start) == 48) return false;
    }
    start = i + 1;
  }
  return true;
}

/** Digits without leading zeros, at most 9223372036854775807. */
function numericOk(p: usize, a: i32, b: i32): bool {
  if (b <= a) return false;
  for (let i = a; i < b; i++) if (!isDigit(at(p, i))) return false;
  if (b - a > 1 && at(p, a) == 48) return false;
  if (b - a < 19) return true;
  if (b - a > 19) return false;
  const max = '9223372036854775807';
  for (let i = 0; i < 19; i++) {
    const c = at(p, a + i);
    const m = <i32>max.charCodeAt(i);
    if (c != m) return c < m;
  }
  return true;
}

function parse(v: usize): usize {
  const out = alloc(40);
  store<i32>(out, 0);
  const p = strData(v);
  let n = len(v);
  let a = 0;
  if (n > 0 && at(p, 0) == 0x76) a = 1;
  // build metadata
  for (let i = a; i < n; i++) {
    if (at(p, i) == 0x2b) {
      if (!identsOk(p, i + 1, n, false)) return out;
      n = i;
      break;
    }
  }
  let preS = -1;
  for (let i = a; i < n; i++) {
    if (at(p, i) == 0x2d) {
      if (!identsOk(p, i + 1, n, true)) return out;
      preS = i + 1;
      break;
    }
  }
  const coreEnd = preS >= 0 ? preS - 1 : n;
  let part = 0;
  let s = a;
  for (let i = a; i <= coreEnd; i++) {
    if (i < coreEnd && at(p, i) != 0x2e) continue;
    if (part >= 3 || !numericOk(p, s, i)) return out;
    store<i32>(out + (<usize>(2 + part * 2) << 2), s);
    store<i32>(out + (<usize>(3 + part * 2) << 2), i - s);
    part++;
    s = i + 1;
  }
  if (part != 3) return out;
  store<i32>(out, 1);
  store<i32>(out, <i32>p, 4);
  store<i32>(out, preS, 32);
  store<i32>(out, n, 36);
  return out;
}

function cmpNumeric(p: usize, a: i32, la: i32, q: usize, b: i32, lb: i32): i32 {
  if (la != lb) return la < lb ? -1 : 1;
  for (let i = 0; i < la; i++) {
    const x = at(p, a + i);
    const y = at(q, b + i);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

function allDigits(p: usize, a: i32, b: i32): bool {
  for (let i = a; i < b; i++) if (!isDigit(at(p, i))) return false;
  return true;
}

function compareParsed(x: usize, y: usize): i32 {
  const p = <usize>load<i32>(x, 4);
  const q = <usize>load<i32>(y, 4);
  for (let k = 0; k < 3; k++) {
    const c = cmpNumeric(p, load<i32>(x + (<usize>(2 + k * 2) << 2)), load<i32>(x + (<usize>(3 + k * 2) << 2)),
      q, load<i32>(y + (<usize>(2 + k * 2) << 2)), load<i32>(y + (<usize>(3 + k * 2) << 2)));
    if (c != 0) return c;
  }
  const xs = load<i32>(x, 32);
  const ys = load<i32>(y, 32);
  if (xs < 0 && ys < 0) return 0;
  if (xs < 0) return 1;
  if (ys < 0) return -1;
  const xe = load<i32>(x, 36);
  const ye = load<i32>(y, 36);
  let i = xs;
  let j = ys;
  while (i <= xe && j <= ye) {
    let i2 = i;
    while (i2 < xe && at(p, i2) != 0x2e) i2++;
    let j2 = j;
    while (j2 < ye && at(q, j2) != 0x2e) j2++;
    const xn = allDigits(p, i, i2);
    const yn = allDigits(q, j, j2);
    let r = 0;
    if (xn && yn) r = cmpNumeric(p, i, i2 - i, q, j, j2 - j);
    else if (xn) r = -1;
    else if (yn) r = 1;
    else {
      const m = i2 - i < j2 - j ? i2 - i : j2 - j;
      for (let k = 0; k < m && r == 0; k++) if (at(p, i + k) != at(q, j + k)) r = at(p, i + k) < at(q, j + k) ? -1 : 1;
      if (r == 0 && i2 - i != j2 - j) r = i2 - i < j2 - j ? -1 : 1;
    }
    if (r != 0) return r;
    i = i2 + 1;
    j = j2 + 1;
  }
  // more pre-release identifiers sort later
  const xMore = i <= xe;
  const yMore = j <= ye;
  return xMore == yMore ? 0 : xMore ? 1 : -1;
}

export function rtb_semver_is_valid(v: usize): usize {
  if (!isStr(v)) return mkBool(0);
  return mkBool(load<i32>(parse(v), S_OK));
}

export function rtb_semver_compare(a: usize, b: usize): usize {
  if (!isStr(a) || !isStr(b)) return 0;
  const x = parse(a);
  const y = parse(b);
  if (load<i32>(x) == 0 || load<i32>(y) == 0) return 0;
  return mkNum(<f64>compareParsed(x, y));
}
