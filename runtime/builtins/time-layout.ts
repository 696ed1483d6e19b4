// Go's time layout language: splitting a layout into reference-time tokens
// (nextStdChunk) and formatting an instant with it (Time.Format). Parsing lives
// in time-parse.ts and shares the tokenizer.
import { LONG_DAY_NAMES, LONG_MONTH_NAMES, wallFields, type Instant } from './time-calendar.js';
import type { Location } from './time-zones.js';

export const S = {
  none: 0,
  longMonth: 1, // January
  month: 2, // Jan
  numMonth: 3, // 1
  zeroMonth: 4, // 01
  longWeekDay: 5, // Monday
  weekDay: 6, // Mon
  day: 7, // 2
  underDay: 8, // _2
  zeroDay: 9, // 02
  underYearDay: 10, // __2
  zeroYearDay: 11, // 002
  hour: 12, // 15
  hour12: 13, // 3
  zeroHour12: 14, // 03
  minute: 15, // 4
  zeroMinute: 16, // 04
  second: 17, // 5
  zeroSecond: 18, // 05
  longYear: 19, // 2006
  year: 20, // 06
  PM: 21, // PM
  pm: 22, // pm
  TZ: 23, // MST
  iso8601TZ: 24, // Z0700
  iso8601SecondsTZ: 25, // Z070000
  iso8601ShortTZ: 26, // Z07
  iso8601ColonTZ: 27, // Z07:00
  iso8601ColonSecondsTZ: 28, // Z07:00:00
  numTZ: 29, // -0700
  numSecondsTZ: 30, // -070000
  numShortTZ: 31, // -07
  numColonTZ: 32, // -07:00
  numColonSecondsTZ: 33, // -07:00:00
  fracSecond0: 34, // .000
  fracSecond9: 35, // .999
} as const;

export interface Chunk {
  prefix: string;
  std: number;
  /** Digits of a fractional-second token. */
  digits: number;
  /** Separator of a fractional-second token: '.' or ','. */
  sep: string;
  suffix: string;
}

const STD0X = [S.zeroMonth, S.zeroDay, S.zeroHour12, S.zeroMinute, S.zeroSecond, S.year];
const isLower = (s: string, i: number): boolean => i < s.length && s[i]! >= 'a' && s[i]! <= 'z';
export const isDigitAt = (s: string, i: number): boolean => i < s.length && s[i]! >= '0' && s[i]! <= '9';

/** The first reference-time token in `layout`, with the text before and after it. */
export function nextStdChunk(layout: string): Chunk {
  const at = (i: number, std: number, len: number, pre = i): Chunk => ({
    prefix: layout.slice(0, pre),
    std,
    digits: 0,
    sep: '.',
    suffix: layout.slice(i + len),
  });
  const has = (i: number, s: string): boolean => layout.startsWith(s, i);
  for (let i = 0; i < layout.length; i++) {
    const c = layout[i]!;
    switch (c) {
      case 'J':
        if (has(i, 'Jan')) {
          if (has(i, 'January')) return at(i, S.longMonth, 7);
          if (!isLower(layout, i + 3)) return at(i, S.month, 3);
        }
        break;
      case 'M':
        if (has(i, 'Mon')) {
          if (has(i, 'Monday')) return at(i, S.longWeekDay, 6);
          if (!isLower(layout, i + 3)) return at(i, S.weekDay, 3);
        }
        if (has(i, 'MST')) return at(i, S.TZ, 3);
        break;
      case '0': {
        const n = layout[i + 1];
        if (n !== undefined && n >= '1' && n <= '6') return at(i, STD0X[n.charCodeAt(0) - 49]!, 2);
        if (has(i, '002')) return at(i, S.zeroYearDay, 3);
        break;
      }
      case '1':
        if (layout[i + 1] === '5') return at(i, S.hour, 2);
        return at(i, S.numMonth, 1);
      case '2':
        if (has(i, '2006')) return at(i, S.longYear, 4);
        return at(i, S.day, 1);
      case '_':
        if (layout[i + 1] === '2') {
          // _2006 is a literal _ followed by the long year.
          if (has(i + 1, '2006')) return at(i + 1, S.longYear, 4, i + 1);
          return at(i, S.underDay, 2);
        }
        if (has(i, '__2')) return at(i, S.underYearDay, 3);
        break;
      case '3':
        return at(i, S.hour12, 1);
      case '4':
        return at(i, S.minute, 1);
      case '5':
        return at(i, S.second, 1);
      case 'P':
        if (layout[i + 1] === 'M') return at(i, S.PM, 2);
        break;
      case 'p':
        if (layout[i + 1] === 'm') return at(i, S.pm, 2);
        break;
      case '-':
        if (has(i, '-070000')) return at(i, S.numSecondsTZ, 7);
        if (has(i, '-07:00:00')) return at(i, S.numColonSecondsTZ, 9);
        if (has(i, '-0700')) return at(i, S.numTZ, 5);
        if (has(i, '-07:00')) return at(i, S.numColonTZ, 6);
        if (has(i, '-07')) return at(i, S.numShortTZ, 3);
        break;
      case 'Z':
        if (has(i, 'Z070000')) return at(i, S.iso8601SecondsTZ, 7);
        if (has(i, 'Z07:00:00')) return at(i, S.iso8601ColonSecondsTZ, 9);
        if (has(i, 'Z0700')) return at(i, S.iso8601TZ, 5);
        if (has(i, 'Z07:00')) return at(i, S.iso8601ColonTZ, 6);
        if (has(i, 'Z07')) return at(i, S.iso8601ShortTZ, 3);
        break;
      case '.':
      case ',': {
        const ch = layout[i + 1];
        if (ch === '0' || ch === '9') {
          let j = i + 1;
          while (j < layout.length && layout[j] === ch) j++;
          // The run of digits must end here: only a fractional second is all digits.
          if (!isDigitAt(layout, j)) {
            return {
              prefix: layout.slice(0, i),
              std: ch === '0' ? S.fracSecond0 : S.fracSecond9,
              digits: j - (i + 1),
              sep: c,
              suffix: layout.slice(j),
            };
          }
        }
        break;
      }
    }
  }
  return { prefix: layout, std: S.none, digits: 0, sep: '.', suffix: '' };
}

/** Go's appendInt: decimal with zero padding to `width` (sign not counted). */
export function pad(x: number, width: number): string {
  const s = String(Math.abs(x)).padStart(width, '0');
  return x < 0 ? '-' + s : s;
}

function appendNano(nsec: number, std: number, digits: number, sep: string): string {
  const trim = std === S.fracSecond9;
  if (trim && (digits === 0 || nsec === 0)) return '';
  let s = sep + pad(nsec, 9);
  if (digits < 9) s = s.slice(0, s.length - 9 + digits);
  if (trim) {
    s = s.replace(/0+$/, '');
    if (s === sep) s = '';
  }
  return s;
}

function formatOffset(offset: number, std: number): string {
  const isISO =
    std === S.iso8601TZ ||
    std === S.iso8601ColonTZ ||
    std === S.iso8601SecondsTZ ||
    std === S.iso8601ShortTZ ||
    std === S.iso8601ColonSecondsTZ;
  if (offset === 0 && isISO) return 'Z';
  let zone = Math.trunc(offset / 60);
  let absOffset = offset;
  let out = '+';
  if (zone < 0) {
    out = '-';
    zone = -zone;
    absOffset = -absOffset;
  }
  out += pad(Math.floor(zone / 60), 2);
  const colon = std === S.iso8601ColonTZ || std === S.numColonTZ || std === S.iso8601ColonSecondsTZ || std === S.numColonSecondsTZ;
  if (colon) out += ':';
  if (std !== S.numShortTZ && std !== S.iso8601ShortTZ) out += pad(zone % 60, 2);
  if (std === S.iso8601SecondsTZ || std === S.numSecondsTZ || std === S.numColonSecondsTZ || std === S.iso8601ColonSecondsTZ) {
    if (std === S.numColonSecondsTZ || std === S.iso8601ColonSecondsTZ) out += ':';
    out += pad(absOffset % 60, 2);
  }
  return out;
}

/** Go's Time.Format for `t` shown in `loc`. */
export function formatTime(t: Instant, loc: Location, layout: string): string {
  const { offset, abbrev } = loc.lookup(t.sec);
  const w = wallFields(t.sec + offset);
  let out = '';
  while (layout !== '') {
    const ch = nextStdChunk(layout);
    out += ch.prefix;
    if (ch.std === S.none) break;
    layout = ch.suffix;
    switch (ch.std) {
      case S.year:
        out += pad(Math.abs(w.year) % 100, 2);
        break;
      case S.longYear:
        out += pad(w.year, 4);
        break;
      case S.month:
        out += LONG_MONTH_NAMES[w.month - 1]!.slice(0, 3);
        break;
      case S.longMonth:
        out += LONG_MONTH_NAMES[w.month - 1]!;
        break;
      case S.numMonth:
        out += String(w.month);
        break;
      case S.zeroMonth:
        out += pad(w.month, 2);
        break;
      case S.weekDay:
        out += LONG_DAY_NAMES[w.weekday]!.slice(0, 3);
        break;
      case S.longWeekDay:
        out += LONG_DAY_NAMES[w.weekday]!;
        break;
      case S.day:
        out += String(w.day);
        break;
      case S.underDay:
        out += (w.day < 10 ? ' ' : '') + String(w.day);
        break;
      case S.zeroDay:
        out += pad(w.day, 2);
        break;
      case S.underYearDay:
        out += (w.yday < 100 ? (w.yday < 10 ? '  ' : ' ') : '') + String(w.yday);
        break;
      case S.zeroYearDay:
        out += pad(w.yday, 3);
        break;
      case S.hour:
        out += pad(w.hour, 2);
        break;
      case S.hour12:
      case S.zeroHour12: {
        const hr = w.hour % 12 === 0 ? 12 : w.hour % 12;
        out += ch.std === S.hour12 ? String(hr) : pad(hr, 2);
        break;
      }
      case S.minute:
        out += String(w.minute);
        break;
      case S.zeroMinute:
        out += pad(w.minute, 2);
        break;
      case S.second:
        out += String(w.second);
        break;
      case S.zeroSecond:
        out += pad(w.second, 2);
        break;
      case S.PM:
        out += w.hour >= 12 ? 'PM' : 'AM';
        break;
      case S.pm:
        out += w.hour >= 12 ? 'pm' : 'am';
        break;
      case S.TZ:
        if (abbrev !== '') out += abbrev;
        else out += formatOffset(offset, S.numTZ);
        break;
      case S.fracSecond0:
      case S.fracSecond9:
        out += appendNano(t.nsec, ch.std, ch.digits, ch.sep);
        break;
      default:
        out += formatOffset(offset, ch.std);
    }
  }
  return out;
}

/** Layout names OPA accepts in place of a layout (Go's constants). */
export const NAMED_LAYOUTS: Record<string, string> = {
  ANSIC: 'Mon Jan _2 15:04:05 2006',
  UnixDate: 'Mon Jan _2 15:04:05 MST 2006',
  RubyDate: 'Mon Jan 02 15:04:05 -0700 2006',
  RFC822: '02 Jan 06 15:04 MST',
  RFC822Z: '02 Jan 06 15:04 -0700',
  RFC850: 'Monday, 02-Jan-06 15:04:05 MST',
  RFC1123: 'Mon, 02 Jan 2006 15:04:05 MST',
  RFC1123Z: 'Mon, 02 Jan 2006 15:04:05 -0700',
  RFC3339: '2006-01-02T15:04:05Z07:00',
  RFC3339Nano: '2006-01-02T15:04:05.999999999Z07:00',
};
