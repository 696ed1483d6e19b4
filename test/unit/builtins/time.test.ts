// Unit tests for time.* (time.ts), transcribed from OPA's `time` conformance
// folder, plus Go-layout, zone, range and error-message edge cases.
import { describe, it, expect } from 'vitest';
import { builtins } from '../../../runtime/builtins/time.js';
import { parseNumber, BigNum, type Value } from '../../../runtime/value/index.js';
import { testContext, callerFor, builtinErrors, numberText as txt } from './helpers.js';

const call = callerFor(builtins, testContext({ nowNs: 1700000000123456789n }));
const err = builtinErrors(call);
const N = parseNumber;
const ns = (s: number): Value => N(`${s}000000000`);

describe('time.now_ns', () => {
  it('returns the query time, the same on every call', () => {
    expect(txt(call('time.now_ns', []))).toBe('1700000000123456789');
    expect(txt(call('time.now_ns', []))).toBe('1700000000123456789');
  });
});

describe('time.parse_rfc3339_ns', () => {
  it('parses the full int64 range', () => {
    expect(txt(call('time.parse_rfc3339_ns', ['1677-09-21T00:12:43.145224192-00:00']))).toBe('-9223372036854775808');
    expect(call('time.parse_rfc3339_ns', ['1970-01-01T00:00:00-00:00'])).toBe(0);
    expect(txt(call('time.parse_rfc3339_ns', ['2017-06-02T19:00:00-07:00']))).toBe('1496455200000000000');
    expect(txt(call('time.parse_rfc3339_ns', ['2262-04-11T23:47:16.854775807-00:00']))).toBe('9223372036854775807');
  });
  it('rejects times outside the int64 range', () => {
    expect(err('time.parse_rfc3339_ns', ['1677-09-21T00:12:43.145224191-00:00'])).toBe(
      'eval_builtin_error: time.parse_rfc3339_ns: time outside of valid range',
    );
    expect(err('time.parse_rfc3339_ns', ['2262-04-11T23:47:16.854775808-00:00'])).toBe(
      'eval_builtin_error: time.parse_rfc3339_ns: time outside of valid range',
    );
  });
  it('reports Go parse errors', () => {
    expect(err('time.parse_rfc3339_ns', ['2017-06-02'])).toBe(
      'eval_builtin_error: time.parse_rfc3339_ns: parsing time "2017-06-02" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"',
    );
    expect(err('time.parse_rfc3339_ns', ['2017-13-02T00:00:00Z'])).toBe(
      'eval_builtin_error: time.parse_rfc3339_ns: parsing time "2017-13-02T00:00:00Z": month out of range',
    );
    expect(err('time.parse_rfc3339_ns', [1])).toBe('eval_type_error: time.parse_rfc3339_ns: operand 1 must be string but got number');
  });
  it('accepts fractional seconds and comma separators', () => {
    expect(txt(call('time.parse_rfc3339_ns', ['1970-01-01T00:00:01.5Z']))).toBe('1500000000');
    expect(txt(call('time.parse_rfc3339_ns', ['1970-01-01T00:00:01,25Z']))).toBe('1250000000');
  });
});

describe('time.parse_ns', () => {
  it('parses Go layouts', () => {
    expect(txt(call('time.parse_ns', ['2006-01-02', '2020-02-02']))).toBe('1580601600000000000');
    expect(txt(call('time.parse_ns', ['RFC822Z', '02 Jan 06 15:04 -0700']))).toBe('1136239440000000000');
    expect(txt(call('time.parse_ns', ['Jan _2 2006 3:04:05.000PM', 'Feb  3 2013 7:54:00.250PM']))).toBe('1359921240250000000');
    expect(txt(call('time.parse_ns', ['January 2, 2006 15:04 -07:00', 'march 1, 2021 10:00 +05:30']))).toBe('1614573000000000000');
    expect(txt(call('time.parse_ns', ['2006-002', '2020-060']))).toBe('1582934400000000000'); // day 60 of a leap year: Feb 29
    expect(txt(call('time.parse_ns', ['06-01-02', '69-01-02']))).toBe('-31449600000000000');
  });
  it('ignores unknown zone abbreviations (Local is UTC), honours numeric offsets', () => {
    expect(txt(call('time.parse_ns', ['Jan 2 2006 3:04PM MST', 'Feb 3 2013 7:54PM PST']))).toBe('1359921240000000000');
    expect(txt(call('time.parse_ns', ['2006-01-02 15:04 Z0700', '2013-02-03 19:54 -0800']))).toBe('1359950040000000000');
  });
  it('reports Go parse errors', () => {
    expect(err('time.parse_ns', ['2006-01-02', '2021-02-29'])).toBe(
      'eval_builtin_error: time.parse_ns: parsing time "2021-02-29": day out of range',
    );
    expect(err('time.parse_ns', ['2006-01-02', 'x'])).toBe(
      'eval_builtin_error: time.parse_ns: parsing time "x" as "2006-01-02": cannot parse "x" as "2006"',
    );
    expect(err('time.parse_ns', ['2006-01-02', '2020-02-02 extra'])).toBe(
      'eval_builtin_error: time.parse_ns: parsing time "2020-02-02 extra": extra text: " extra"',
    );
    expect(err('time.parse_ns', ['15:04', '25:00'])).toBe('eval_builtin_error: time.parse_ns: parsing time "25:00": hour out of range');
    expect(err('time.parse_ns', ['2006', 'ä'])).toBe(
      'eval_builtin_error: time.parse_ns: parsing time "\\xc3\\xa4" as "2006": cannot parse "\\xc3\\xa4" as "2006"',
    );
    expect(err('time.parse_ns', [1, 'x'])).toBe('eval_type_error: time.parse_ns: operand 1 must be string but got number');
    expect(err('time.parse_ns', ['x', 2])).toBe('eval_type_error: time.parse_ns: operand 2 must be string but got number');
  });
});

describe('time.parse_duration_ns', () => {
  it('parses Go durations', () => {
    expect(call('time.parse_duration_ns', ['100ms'])).toBe(100000000);
    expect(call('time.parse_duration_ns', ['1h2m3.5s'])).toBe(3723500000000);
    expect(call('time.parse_duration_ns', ['-1.5h'])).toBe(-5400000000000);
    expect(call('time.parse_duration_ns', ['300us'])).toBe(300000);
    expect(call('time.parse_duration_ns', ['3µs'])).toBe(3000);
    expect(call('time.parse_duration_ns', ['3μs'])).toBe(3000);
    expect(call('time.parse_duration_ns', ['0'])).toBe(0);
    expect(call('time.parse_duration_ns', ['+.5s'])).toBe(500000000);
    expect(txt(call('time.parse_duration_ns', ['2562047h47m16.854775807s']))).toBe('9223372036854775807');
    expect(txt(call('time.parse_duration_ns', ['-2562047h47m16.854775808s']))).toBe('-9223372036854775808');
  });
  it('reports Go errors', () => {
    const e = (s: string): string => err('time.parse_duration_ns', [s]);
    expect(e('')).toBe('eval_builtin_error: time.parse_duration_ns: time: invalid duration ""');
    expect(e('1')).toBe('eval_builtin_error: time.parse_duration_ns: time: missing unit in duration "1"');
    expect(e('1d')).toBe('eval_builtin_error: time.parse_duration_ns: time: unknown unit "d" in duration "1d"');
    expect(e('.s')).toBe('eval_builtin_error: time.parse_duration_ns: time: invalid duration ".s"');
    expect(e('2562047h47m16.854775808s')).toBe(
      'eval_builtin_error: time.parse_duration_ns: time: invalid duration "2562047h47m16.854775808s"',
    );
  });
});

describe('time.date / time.clock / time.weekday', () => {
  it('breaks down UTC timestamps', () => {
    expect(call('time.date', [ns(1517814000)])).toEqual([2018, 2, 5]);
    expect(call('time.clock', [ns(1582977600)])).toEqual([12, 0, 0]); // 2020-02-29, a leap day
    expect(call('time.date', [ns(1582977600)])).toEqual([2020, 2, 29]);
    expect(call('time.weekday', [N('1518177600000000000')])).toBe('Friday');
    expect(call('time.date', [N('-9223372036854775808')])).toEqual([1677, 9, 21]);
    expect(call('time.date', [-1])).toEqual([1969, 12, 31]);
    expect(call('time.clock', [-1])).toEqual([23, 59, 59]);
  });
  it('uses the zone of the [ns, tz] form', () => {
    expect(call('time.clock', [[ns(1517832000), 'America/New_York']])).toEqual([7, 0, 0]);
    expect(call('time.date', [[ns(1517832000), 'Asia/Tokyo']])).toEqual([2018, 2, 5]);
    expect(call('time.weekday', [[ns(1518177600), 'Pacific/Kiritimati']])).toBe('Saturday');
    expect(call('time.clock', [[ns(1518177600), '']])).toEqual([12, 0, 0]);
    expect(call('time.clock', [[ns(1518177600), 'UTC']])).toEqual([12, 0, 0]);
  });
  it('errors on bad operands with OPA messages', () => {
    const big = N('1582977600000000000000');
    expect(err('time.date', [big])).toBe('eval_builtin_error: time.date: timestamp too big');
    expect(err('time.weekday', [big])).toBe('eval_builtin_error: time.weekday: timestamp too big');
    expect(err('time.clock', [1.5])).toBe('eval_builtin_error: time.clock: timestamp too big');
    expect(err('time.date', ['x'])).toBe(
      'eval_type_error: time.date: operand 1 must be either number (ns) or [number (ns), string (tz)] but got string',
    );
    expect(err('time.date', [[]])).toBe(
      'eval_type_error: time.date: operand 1 must be either number (ns) or [number (ns), string (tz)] but got array',
    );
    expect(err('time.date', [['x', 'UTC']])).toBe('eval_type_error: time.date: operand 1 must be number but got string');
    expect(err('time.date', [[0, 1]])).toBe('eval_type_error: time.date: operand 1 must be string but got number');
    expect(err('time.date', [[0, 'Mars/Olympus']])).toBe('eval_builtin_error: time.date: unknown time zone Mars/Olympus');
    expect(err('time.date', [[0, '../etc/passwd']])).toBe('eval_builtin_error: time.date: time: invalid location name');
    expect(err('time.date', [[0, 'america/new_york']])).toBe('eval_builtin_error: time.date: unknown time zone america/new_york');
  });
});

describe('time.add_date', () => {
  it('adds with Go normalisation', () => {
    expect(txt(call('time.add_date', [N('1585852421593912000'), 3, 9, 12]))).toBe('1705257221593912000');
    // 2021-01-31 + 1 month = "2021-02-31" = 2021-03-03
    const jan31 = N('1612051200000000000');
    expect(call('time.date', [call('time.add_date', [jan31, 0, 1, 0])!])).toEqual([2021, 3, 3]);
    // 2020-02-29 + 1 year = 2021-03-01; - 1 day = 2020-02-28
    const leap = ns(1582934400);
    expect(call('time.date', [call('time.add_date', [leap, 1, 0, 0])!])).toEqual([2021, 3, 1]);
    expect(call('time.date', [call('time.add_date', [leap, 0, 0, -1])!])).toEqual([2020, 2, 28]);
    expect(call('time.date', [call('time.add_date', [leap, 0, -14, 0])!])).toEqual([2018, 12, 29]);
  });
  it('keeps the wall clock of a zone across DST', () => {
    // 2021-03-13 12:00 New York (EST) + 1 day = 2021-03-14 12:00 EDT: 23 hours later.
    const t = ns(1615654800);
    const r = call('time.add_date', [[t, 'America/New_York'], 0, 0, 1]) as number | BigNum;
    expect(txt(r)).toBe(`${1615654800 + 23 * 3600}000000000`);
  });
  it('errors', () => {
    expect(err('time.add_date', [0, 2262, 1, 1])).toBe('eval_builtin_error: time.add_date: time outside of valid range');
    expect(err('time.add_date', [0, 1.5, 1, 1])).toBe(
      'eval_type_error: time.add_date: operand 2 must be integer number but got floating-point number',
    );
    expect(err('time.add_date', [0, 1, 'x', 1])).toBe('eval_type_error: time.add_date: operand 3 must be number but got string');
  });
});

describe('time.diff', () => {
  const p = (s: string): Value => call('time.parse_ns', ['2006-01-02', s])!;
  it('computes calendar differences (conformance time/diff)', () => {
    const now = 1700000000n * 1000000000n;
    expect(call('time.diff', [N(String(now + 61000000000n)), N(String(now))])).toEqual([0, 0, 0, 0, 1, 1]);
    expect(call('time.diff', [[N(String(now + 60000000000n)), 'UTC'], [N(String(now)), 'Asia/Shanghai']])).toEqual([
      0, 0, 0, 0, 1, 0,
    ]);
    expect(call('time.diff', [p('2020-02-02'), p('2020-03-01')])).toEqual([0, 0, 28, 0, 0, 0]);
    expect(call('time.diff', [p('2021-02-02'), p('2021-03-01')])).toEqual([0, 0, 27, 0, 0, 0]);
    expect(call('time.diff', [p('2004-02-29'), p('2005-03-01')])).toEqual([1, 0, 1, 0, 0, 0]);
  });
  it('is symmetric and handles borrows', () => {
    expect(call('time.diff', [p('2005-03-01'), p('2004-02-29')])).toEqual([1, 0, 1, 0, 0, 0]);
    expect(call('time.diff', [p('2020-01-31'), p('2020-03-01')])).toEqual([0, 1, 1, 0, 0, 0]);
    expect(call('time.diff', [0, 0])).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe('time.format', () => {
  const t = N('1670006453141828752');
  it('formats like the conformance case', () => {
    expect(call('time.format', [t])).toBe('2022-12-02T18:40:53.141828752Z');
    expect(call('time.format', [[t, 'Asia/Kolkata']])).toBe('2022-12-03T00:10:53.141828752+05:30');
    expect(call('time.format', [[t, 'Asia/Kolkata', 'Mon Jan 02 15:04:05 -0700 2006']])).toBe('Sat Dec 03 00:10:53 +0530 2022');
    expect(call('time.format', [[t, 'Asia/Kolkata', 'RFC1123Z']])).toBe('Sat, 03 Dec 2022 00:10:53 +0530');
    expect(err('time.format', [1582977600 * 10e12])).toBe('eval_builtin_error: time.format: timestamp too big');
  });
  it('supports the Go layout tokens', () => {
    expect(call('time.format', [[t, 'UTC', '2006-01-02 03:04:05.000 PM Monday January _2 __2 002']])).toBe(
      '2022-12-02 06:40:53.141 PM Friday December  2 336 336',
    );
    expect(call('time.format', [[t, 'UTC', '06/1/2 3:4:5 pm Z07:00 Z0700 -07 .999 ,00']])).toBe(
      '22/12/2 6:40:53 pm Z Z +00 .141 ,14',
    );
    expect(call('time.format', [[0, 'UTC', 'RFC3339Nano']])).toBe('1970-01-01T00:00:00Z');
    expect(call('time.format', [[0, 'America/St_Johns', '-07:00:00 Z070000 -0700']])).toBe('-03:30:00 -033000 -0330');
  });
  it('leaves look-alike words alone, as Go does', () => {
    expect(call('time.format', [[t, 'UTC', 'Month Janet _2006 Mondays']])).toBe('Month Janet _2022 Fridays');
    expect(call('time.format', [[t, 'UTC', 'no tokens here']])).toBe('no tokens here');
  });
  it('handles the extremes of the int64 range and LMT offsets', () => {
    expect(call('time.format', [N('-9223372036854775808')])).toBe('1677-09-21T00:12:43.145224192Z');
    expect(call('time.format', [[N('9223372036854775807'), 'UTC', 'RFC3339']])).toBe('2262-04-11T23:47:16Z');
    expect(call('time.format', [[N('-5000000000000000000'), 'America/New_York', 'Z07:00:00 MST']])).toBe('-04:56:02 LMT');
  });
  it('prints zone abbreviations', () => {
    expect(call('time.format', [[t, 'America/New_York', 'RFC1123']])).toBe('Fri, 02 Dec 2022 13:40:53 EST');
    expect(call('time.format', [[ns(1656000000), 'America/New_York', 'MST']])).toBe('EDT');
    expect(call('time.format', [[t, 'UTC', 'UnixDate']])).toBe('Fri Dec  2 18:40:53 UTC 2022');
  });
});
