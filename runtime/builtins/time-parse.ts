// Go's time.Parse (with Local = UTC, as OPA runs in containers) and
// time.ParseDuration, with Go's error messages. Returns instants; zone
// abbreviations other than "UTC" do not move the instant, exactly as in Go.
import { BuiltinError } from './errors.js';
import { daysBefore, daysIn, isLeap, wallSeconds, type Instant } from './time-calendar.js';
import { isDigitAt, nextStdChunk, S } from './time-layout.js';

/** Go's time-package quote: ASCII as is, other bytes as \xNN. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0x80 || cp < 0x20) {
      for (const b of Buffer.from(ch, 'utf8')) out += '\\x' + b.toString(16).padStart(2, '0');
    } else {
      if (ch === '"' || ch === '\\') out += '\\';
      out += ch;
    }
  }
  return out + '"';
}

class Bad extends Error {}
const BAD = new Bad();

function parseError(layout: string, value: string, layoutElem: string, valueElem: string, message: string): BuiltinError {
  if (message === '') {
    return new BuiltinError(
      `parsing time ${goQuote(value)} as ${goQuote(layout)}: cannot parse ${goQuote(valueElem)} as ${goQuote(layoutElem)}`,
    );
  }
  return new BuiltinError(`parsing time ${goQuote(value)}${message}`);
}

/** Leading [0-9]* as a bigint; throws BAD on uint64-ish overflow (Go's leadingInt). */
function leadingInt(s: string): { x: bigint; rem: string } {
  let i = 0;
  let x = 0n;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c < '0' || c > '9') break;
    if (x > (1n << 63n) / 10n) throw BAD;
    x = x * 10n + BigInt(c.charCodeAt(0) - 48);
    if (x > 1n << 63n) throw BAD;
  }
  return { x, rem: s.slice(i) };
}

function atoi(s: string): number {
  let neg = false;
  if (s.length > 0 && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  const { x, rem } = leadingInt(s);
  if (rem.length > 0) throw BAD;
  return neg ? -Number(x) : Number(x);
}

function getnum(s: string, fixed: boolean): [number, string] {
  if (!isDigitAt(s, 0)) throw BAD;
  if (!isDigitAt(s, 1)) {
    if (fixed) throw BAD;
    return [s.charCodeAt(0) - 48, s.slice(1)];
  }
  return [(s.charCodeAt(0) - 48) * 10 + (s.charCodeAt(1) - 48), s.slice(2)];
}

function getnum3(s: string, fixed: boolean): [number, string] {
  let n = 0;
  let i = 0;
  for (; i < 3 && isDigitAt(s, i); i++) n = n * 10 + (s.charCodeAt(i) - 48);
  if (i === 0 || (fixed && i !== 3)) throw BAD;
  return [n, s.slice(i)];
}

function skip(value: string, prefix: string): string {
  while (prefix.length > 0) {
    if (prefix[0] === ' ') {
      if (value.length > 0 && value[0] !== ' ') throw BAD;
      prefix = prefix.replace(/^ +/, '');
      value = value.replace(/^ +/, '');
      continue;
    }
    if (value.length === 0 || value[0] !== prefix[0]) throw BAD;
    prefix = prefix.slice(1);
    value = value.slice(1);
  }
  return value;
}

const SHORT_DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const SHORT_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const LONG_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function lookup(tab: string[], val: string): [number, string] {
  for (let i = 0; i < tab.length; i++) {
    const v = tab[i]!;
    if (val.length >= v.length && val.slice(0, v.length).toLowerCase() === v.toLowerCase()) return [i, val.slice(v.length)];
  }
  throw BAD;
}

const commaOrPeriod = (c: string | undefined): boolean => c === '.' || c === ',';

function parseNanoseconds(value: string, nbytes: number): { ns: number; range: string } {
  if (!commaOrPeriod(value[0])) throw BAD;
  if (nbytes > 10) nbytes = 10;
  let ns = atoi(value.slice(1, nbytes));
  if (ns < 0) return { ns, range: 'fractional second' };
  for (let i = 0; i < 10 - nbytes; i++) ns *= 10;
  return { ns, range: '' };
}

function parseSignedOffset(value: string): number {
  if (value[0] !== '-' && value[0] !== '+') return 0;
  let r: { x: bigint; rem: string };
  try {
    r = leadingInt(value.slice(1));
  } catch {
    return 0;
  }
  if (r.rem === value.slice(1) || r.x > 23n) return 0;
  return value.length - r.rem.length;
}

function parseTimeZone(value: string): number {
  if (value.length < 3) return -1;
  if (value.startsWith('ChST') || value.startsWith('MeST')) return 4;
  if (value.startsWith('GMT')) return value.length === 3 ? 3 : 3 + parseSignedOffset(value.slice(3));
  if (value[0] === '+' || value[0] === '-') {
    const n = parseSignedOffset(value);
    return n > 0 ? n : -1;
  }
  let n = 0;
  while (n < 6 && n < value.length && value[n]! >= 'A' && value[n]! <= 'Z') n++;
  if (n === 3) return 3;
  if (n === 4 && (value[3] === 'T' || value.startsWith('WITA'))) return 4;
  if (n === 5 && value[4] === 'T') return 5;
  return -1;
}

/** Go's time.Parse(layout, value) with Local = UTC. */
export function parseTime(layout: string, value: string): Instant {
  const alayout = layout;
  const avalue = value;
  let range = '';
  let amSet = false;
  let pmSet = false;
  let year = 0;
  let month = -1;
  let day = -1;
  let yday = -1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let zoneOffset: number | undefined;
  let utc = false;
  for (;;) {
    const ch = nextStdChunk(layout);
    const stdstr = layout.slice(ch.prefix.length, layout.length - ch.suffix.length);
    try {
      value = skip(value, ch.prefix);
    } catch {
      throw parseError(alayout, avalue, ch.prefix, value, '');
    }
    if (ch.std === S.none) {
      if (value.length !== 0) throw parseError(alayout, avalue, '', value, `: extra text: ${goQuote(value)}`);
      break;
    }
    layout = ch.suffix;
    const hold = value;
    try {
      switch (ch.std) {
        case S.year: {
          if (value.length < 2) throw BAD;
          const p = value.slice(0, 2);
          value = value.slice(2);
          year = atoi(p);
          year += year >= 69 ? 1900 : 2000;
          break;
        }
        case S.longYear:
          if (value.length < 4 || !isDigitAt(value, 0)) throw BAD;
          year = atoi(value.slice(0, 4));
          value = value.slice(4);
          break;
        case S.month:
        case S.longMonth:
          [month, value] = lookup(ch.std === S.month ? SHORT_MONTHS : LONG_MONTHS, value);
          month++;
          break;
        case S.numMonth:
        case S.zeroMonth:
          [month, value] = getnum(value, ch.std === S.zeroMonth);
          if (month <= 0 || month > 12) range = 'month';
          break;
        case S.weekDay:
        case S.longWeekDay:
          value = lookup(ch.std === S.weekDay ? SHORT_DAYS : LONG_DAYS, value)[1];
          break;
        case S.day:
        case S.underDay:
        case S.zeroDay:
          if (ch.std === S.underDay && value[0] === ' ') value = value.slice(1);
          [day, value] = getnum(value, ch.std === S.zeroDay);
          break;
        case S.underYearDay:
        case S.zeroYearDay:
          for (let i = 0; i < 2; i++) if (ch.std === S.underYearDay && value[0] === ' ') value = value.slice(1);
          [yday, value] = getnum3(value, ch.std === S.zeroYearDay);
          break;
        case S.hour:
          [hour, value] = getnum(value, false);
          if (hour >= 24) range = 'hour';
          break;
        case S.hour12:
        case S.zeroHour12:
          [hour, value] = getnum(value, ch.std === S.zeroHour12);
          if (hour > 12) range = 'hour';
          break;
        case S.minute:
        case S.zeroMinute:
          [min, value] = getnum(value, ch.std === S.zeroMinute);
          if (min >= 60) range = 'minute';
          break;
        case S.second:
        case S.zeroSecond: {
          [sec, value] = getnum(value, ch.std === S.zeroSecond);
          if (sec >= 60) {
            range = 'second';
            break;
          }
          // A fractional second in the input but not in the layout.
          if (value.length >= 2 && commaOrPeriod(value[0]) && isDigitAt(value, 1)) {
            const next = nextStdChunk(layout).std;
            if (next === S.fracSecond0 || next === S.fracSecond9) break;
            let n = 2;
            while (n < value.length && isDigitAt(value, n)) n++;
            ({ ns: nsec, range } = parseNanoseconds(value, n));
            value = value.slice(n);
          }
          break;
        }
        case S.PM:
        case S.pm: {
          if (value.length < 2) throw BAD;
          const p = value.slice(0, 2);
          value = value.slice(2);
          const [PM, AM] = ch.std === S.PM ? ['PM', 'AM'] : ['pm', 'am'];
          if (p === PM) pmSet = true;
          else if (p === AM) amSet = true;
          else throw BAD;
          break;
        }
        case S.TZ: {
          if (value.startsWith('UTC')) {
            value = value.slice(3);
            utc = true;
            break;
          }
          const n = parseTimeZone(value);
          if (n < 0) throw BAD;
          value = value.slice(n); // an abbreviation unknown to Local (UTC): offset 0
          break;
        }
        case S.fracSecond0: {
          const ndigit = 1 + ch.digits;
          if (value.length < ndigit) throw BAD;
          ({ ns: nsec, range } = parseNanoseconds(value, ndigit));
          value = value.slice(ndigit);
          break;
        }
        case S.fracSecond9: {
          if (value.length < 2 || !commaOrPeriod(value[0]) || !isDigitAt(value, 1)) break;
          let i = 0;
          while (i + 1 < value.length && isDigitAt(value, i + 1)) i++;
          ({ ns: nsec, range } = parseNanoseconds(value, 1 + i));
          value = value.slice(1 + i);
          break;
        }
        default: {
          // Numeric zones; the ISO 8601 forms also accept "Z".
          const iso = ch.std >= S.iso8601TZ && ch.std <= S.iso8601ColonSecondsTZ;
          if (iso && value[0] === 'Z') {
            value = value.slice(1);
            utc = true;
            break;
          }
          let hh: string, mm: string, ss: string, sign: string;
          if (ch.std === S.iso8601ColonTZ || ch.std === S.numColonTZ) {
            if (value.length < 6 || value[3] !== ':') throw BAD;
            [sign, hh, mm, ss, value] = [value[0]!, value.slice(1, 3), value.slice(4, 6), '00', value.slice(6)];
          } else if (ch.std === S.numShortTZ || ch.std === S.iso8601ShortTZ) {
            if (value.length < 3) throw BAD;
            [sign, hh, mm, ss, value] = [value[0]!, value.slice(1, 3), '00', '00', value.slice(3)];
          } else if (ch.std === S.iso8601ColonSecondsTZ || ch.std === S.numColonSecondsTZ) {
            if (value.length < 9 || value[3] !== ':' || value[6] !== ':') throw BAD;
            [sign, hh, mm, ss, value] = [value[0]!, value.slice(1, 3), value.slice(4, 6), value.slice(7, 9), value.slice(9)];
          } else if (ch.std === S.iso8601SecondsTZ || ch.std === S.numSecondsTZ) {
            if (value.length < 7) throw BAD;
            [sign, hh, mm, ss, value] = [value[0]!, value.slice(1, 3), value.slice(3, 5), value.slice(5, 7), value.slice(7)];
          } else {
            if (value.length < 5) throw BAD;
            [sign, hh, mm, ss, value] = [value[0]!, value.slice(1, 3), value.slice(3, 5), '00', value.slice(5)];
          }
          let hr = 0;
          let mi = 0;
          let se = 0;
          let bad = false;
          try {
            hr = getnum(hh, true)[0];
            mi = getnum(mm, true)[0];
            se = getnum(ss, true)[0];
          } catch {
            bad = true;
          }
          if (hr > 24) range = 'time zone offset hour';
          if (mi > 60) range = 'time zone offset minute';
          if (se > 60) range = 'time zone offset second';
          zoneOffset = (hr * 60 + mi) * 60 + se;
          if (sign === '-') zoneOffset = -zoneOffset;
          else if (sign !== '+') bad = true;
          if (bad) throw BAD;
        }
      }
    } catch (e) {
      if (!(e instanceof Bad)) throw e;
      if (range !== '') throw parseError(alayout, avalue, stdstr, value, `: ${range} out of range`);
      throw parseError(alayout, avalue, stdstr, hold, '');
    }
    if (range !== '') throw parseError(alayout, avalue, stdstr, value, `: ${range} out of range`);
  }
  if (pmSet && hour < 12) hour += 12;
  else if (amSet && hour === 12) hour = 0;

  if (yday >= 0) {
    let d = 0;
    let m = 0;
    if (isLeap(year)) {
      if (yday === 31 + 29) {
        m = 2;
        d = 29;
      } else if (yday > 31 + 29) yday--;
    }
    if (yday < 1 || yday > 365) throw parseError(alayout, avalue, '', value, ': day-of-year out of range');
    if (m === 0) {
      m = Math.floor((yday - 1) / 31) + 1;
      if (daysBefore(m + 1) < yday) m++;
      d = yday - daysBefore(m);
    }
    if (month >= 0 && month !== m) throw parseError(alayout, avalue, '', value, ': day-of-year does not match month');
    month = m;
    if (day >= 0 && day !== d) throw parseError(alayout, avalue, '', value, ': day-of-year does not match day');
    day = d;
  } else {
    if (month < 0) month = 1;
    if (day < 0) day = 1;
  }
  if (day < 1 || day > daysIn(month, year)) throw parseError(alayout, avalue, '', value, ': day out of range');
  const w = wallSeconds(year, month, day, hour, min, sec, nsec);
  return { sec: w.local - (utc ? 0 : (zoneOffset ?? 0)), nsec: w.nsec };
}
