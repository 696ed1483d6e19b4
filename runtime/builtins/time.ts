// Builtins of the `time` family. Declarations sit next to implementations.
// Timestamps are int64 nanoseconds (bigint inside, BigNum/number outside);
// the [ns, tz] and [ns, tz, layout] operand forms follow OPA's tzTime.
import type { Value } from '../value/value.js';
import { typeName } from '../value/value.js';
import { BigNum, parseNumber, type RNumber } from '../value/number.js';
import type { BuiltinDef, TypeSpec } from './types.js';
import { T } from './types.js';
import { BuiltinError, OperandTypeError, operandError } from './errors.js';
import { asInteger, asString } from './args.js';
import {
  LONG_DAY_NAMES,
  MAX_INT64,
  MIN_INT64,
  daysIn,
  instantFromNs,
  instantToNs,
  wallFields,
  wallSeconds,
  type Instant,
} from './time-calendar.js';
import { UTC, loadLocation, type Location } from './time-zones.js';
import { NAMED_LAYOUTS, formatTime } from './time-layout.js';
import { goQuote, parseTime } from './time-parse.js';

// --- Go's time.ParseDuration: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, exact to the
// nanosecond with Go's uint64 overflow rules, float64 fraction scaling and messages.
const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  'µs': 1000n, // U+00B5 micro sign
  'μs': 1000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const LIMIT = 1n << 63n;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Nanoseconds of a Go duration string. */
function parseDuration(orig: string): bigint {
  const invalid = (): BuiltinError => new BuiltinError(`time: invalid duration ${goQuote(orig)}`);
  let s = orig;
  let d = 0n;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) throw invalid();
    // Integer part (Go's leadingInt, which fails on overflow).
    let i = 0;
    let v = 0n;
    for (; isDigit(s[i]); i++) {
      if (v > LIMIT / 10n) throw invalid();
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > LIMIT) throw invalid();
    }
    const pre = i > 0;
    s = s.slice(i);
    // Fraction (Go's leadingFraction: stops accumulating on overflow).
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      for (; isDigit(s[j]); j++) {
        if (overflow) continue;
        if (f > (LIMIT - 1n) / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
        if (y > LIMIT) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) throw invalid();
    // Unit: everything up to the next digit or '.'.
    let k = 0;
    while (k < s.length && s[k] !== '.' && !isDigit(s[k])) k++;
    if (k === 0) throw new BuiltinError(`time: missing unit in duration ${goQuote(orig)}`);
    const u = s.slice(0, k);
    s = s.slice(k);
    const unit = UNITS[u];
    if (unit === undefined) throw new BuiltinError(`time: unknown unit ${goQuote(u)} in duration ${goQuote(orig)}`);
    if (v > LIMIT / unit) throw invalid();
    v *= unit;
    if (f > 0n) {
      // float64 arithmetic, as Go does, to stay nanosecond-accurate for hours.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > LIMIT) throw invalid();
    }
    d += v;
    if (d > LIMIT) throw invalid();
  }
  if (neg) return -d;
  if (d > LIMIT - 1n) throw invalid();
  return d;
}

const nsResult = (ns: bigint): Value => parseNumber(ns.toString());

/** An exact int64 from a Rego number, else OPA's "timestamp too big". */
function toInt64(n: RNumber): bigint {
  let b: bigint;
  if (typeof n === 'number') {
    if (!Number.isInteger(n)) throw new BuiltinError('timestamp too big');
    b = BigInt(n);
  } else {
    if (!n.dec.isInteger()) throw new BuiltinError('timestamp too big');
    b = BigInt(n.dec.toFixed(0));
  }
  if (b < MIN_INT64 || b > MAX_INT64) throw new BuiltinError('timestamp too big');
  return b;
}

/** A time in the range OPA can return as nanoseconds, else "time outside of valid range". */
function safeNs(t: Instant): Value {
  const ns = instantToNs(t);
  if (ns < MIN_INT64 || ns > MAX_INT64) throw new BuiltinError('time outside of valid range');
  return nsResult(ns);
}

const isNum = (v: Value): v is RNumber => typeof v === 'number' || v instanceof BigNum;
const TZ_EXPECTED = 'either number (ns) or [number (ns), string (tz)]';

interface TzTime {
  t: Instant;
  loc: Location;
  layout: string;
}

/** OPA's tzTime: a number of ns, or [ns], [ns, tz] or [ns, tz, layout]. Errors always name operand 1. */
function tzTime(a: Value): TzTime {
  let n: Value;
  let loc = UTC;
  let layout = '';
  if (Array.isArray(a)) {
    if (a.length === 0) throw new OperandTypeError(`operand 1 must be ${TZ_EXPECTED} but got ${typeName(a)}`);
    n = a[0]!;
    if (!isNum(n)) throw operandError(1, 'number', n);
    if (a.length > 1) loc = loadLocation(asString(a[1]!, 1));
    if (a.length > 2) layout = asString(a[2]!, 1);
  } else if (isNum(a)) {
    n = a;
  } else {
    throw new OperandTypeError(`operand 1 must be ${TZ_EXPECTED} but got ${typeName(a)}`);
  }
  return { t: instantFromNs(toInt64(n as RNumber)), loc, layout };
}

const localFields = (t: Instant, loc: Location) => wallFields(t.sec + loc.lookup(t.sec).offset);

/** Go's time.Date in a location: wall-clock fields (normalised) to an instant. */
function dateIn(
  loc: Location,
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  ns: number,
): Instant {
  const w = wallSeconds(y, mo, d, h, mi, s, ns);
  let unix = w.local;
  const off1 = loc.lookup(unix).offset;
  if (off1 !== 0) unix -= loc.lookup(unix - off1).offset;
  return { sec: unix, nsec: w.nsec };
}

const N = T.number;
const S = T.string;
const nsOrTz: TypeSpec = T.anyOf(N, T.tuple(N, S));
const def = (decl: BuiltinDef['decl'], impl: BuiltinDef['impl']): BuiltinDef => ({ decl, impl });

export const builtins: BuiltinDef[] = [
  def(
    {
      name: 'time.now_ns',
      args: [],
      result: N,
      nondeterministic: true,
      description: 'Returns the current time since epoch in nanoseconds.',
    },
    (_args, ctx) => nsResult(ctx.nowNs),
  ),
  def(
    {
      name: 'time.parse_ns',
      args: [S, S],
      result: N,
      description: 'Returns the time in nanoseconds parsed from the string in the given format.',
    },
    ([layout, value]) => {
      const l = asString(layout!, 1);
      const v = asString(value!, 2);
      return safeNs(parseTime(NAMED_LAYOUTS[l] ?? l, v));
    },
  ),
  def(
    {
      name: 'time.parse_rfc3339_ns',
      args: [S],
      result: N,
      description: 'Returns the time in nanoseconds parsed from the string in RFC3339 format.',
    },
    ([value]) => safeNs(parseTime(NAMED_LAYOUTS.RFC3339!, asString(value!, 1))),
  ),
  def(
    {
      name: 'time.parse_duration_ns',
      args: [S],
      result: N,
      description: 'Returns the duration in nanoseconds represented by a string.',
    },
    ([value]) => nsResult(parseDuration(asString(value!, 1))),
  ),
  def(
    {
      name: 'time.format',
      args: [T.anyOf(N, T.tuple(N, S), T.tuple(N, S, S))],
      result: S,
      description: 'Returns the formatted timestamp for the nanoseconds since epoch.',
    },
    ([x]) => {
      const { t, loc, layout } = tzTime(x!);
      const l = layout === '' ? NAMED_LAYOUTS.RFC3339Nano! : (NAMED_LAYOUTS[layout] ?? layout);
      return formatTime(t, loc, l);
    },
  ),
  def(
    {
      name: 'time.date',
      args: [nsOrTz],
      result: T.tuple(N, N, N),
      description: 'Returns the `[year, month, day]` for the nanoseconds since epoch.',
    },
    ([x]) => {
      const { t, loc } = tzTime(x!);
      const w = localFields(t, loc);
      return [w.year, w.month, w.day];
    },
  ),
  def(
    {
      name: 'time.clock',
      args: [nsOrTz],
      result: T.tuple(N, N, N),
      description: 'Returns the `[hour, minute, second]` of the day for the nanoseconds since epoch.',
    },
    ([x]) => {
      const { t, loc } = tzTime(x!);
      const w = localFields(t, loc);
      return [w.hour, w.minute, w.second];
    },
  ),
  def(
    {
      name: 'time.weekday',
      args: [nsOrTz],
      result: S,
      description: 'Returns the day of the week (Monday, Tuesday, ...) for the nanoseconds since epoch.',
    },
    ([x]) => {
      const { t, loc } = tzTime(x!);
      return LONG_DAY_NAMES[localFields(t, loc).weekday]!;
    },
  ),
  def(
    {
      name: 'time.add_date',
      args: [N, N, N, N],
      result: N,
      description:
        'Returns the nanoseconds since epoch after adding years, months and days to nanoseconds. Month & day values outside their usual ranges after the operation and will be normalized - for example, October 32 would become November 1.',
    },
    ([x, years, months, days]) => {
      const { t, loc } = tzTime(x!);
      const ys = Number(asInteger(years!, 2));
      const ms = Number(asInteger(months!, 3));
      const ds = Number(asInteger(days!, 4));
      const w = localFields(t, loc);
      // Anything this far out is outside the int64 range; avoid float blow-ups.
      if (Math.abs(ys) > 1e6 || Math.abs(ms) > 1e7 || Math.abs(ds) > 1e9) {
        throw new BuiltinError('time outside of valid range');
      }
      return safeNs(dateIn(loc, w.year + ys, w.month + ms, w.day + ds, w.hour, w.minute, w.second, t.nsec));
    },
  ),
  def(
    {
      name: 'time.diff',
      args: [nsOrTz, nsOrTz],
      result: T.tuple(N, N, N, N, N, N),
      description:
        'Returns the difference between two unix timestamps in nanoseconds (with optional timezone strings).',
    },
    ([a, b]) => {
      const x = tzTime(a!);
      const y = tzTime(b!);
      const loc = x.loc; // the second time is shown in the first one's zone
      let t1 = x.t;
      let t2 = y.t;
      if (t1.sec > t2.sec || (t1.sec === t2.sec && t1.nsec > t2.nsec)) [t1, t2] = [t2, t1];
      const f1 = localFields(t1, loc);
      const f2 = localFields(t2, loc);
      let year = f2.year - f1.year;
      let month = f2.month - f1.month;
      let day = f2.day - f1.day;
      let hour = f2.hour - f1.hour;
      let min = f2.minute - f1.minute;
      let sec = f2.second - f1.second;
      if (sec < 0) {
        sec += 60;
        min--;
      }
      if (min < 0) {
        min += 60;
        hour--;
      }
      if (hour < 0) {
        hour += 24;
        day--;
      }
      if (day < 0) {
        day += daysIn(f1.month, f1.year);
        month--;
      }
      if (month < 0) {
        month += 12;
        year--;
      }
      return [year, month, day, hour, min, sec];
    },
  ),
];
