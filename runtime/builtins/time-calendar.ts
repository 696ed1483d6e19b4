// Proleptic Gregorian calendar arithmetic as Go's `time` package does it: civil
// dates from day counts and back, Go's Date() normalisation, and the
// nanosecond ↔ (seconds, nanos) split used by every time builtin.
// Seconds since the epoch stay within ±9.3e9 for int64 nanoseconds, so plain
// doubles are exact for them; nanosecond totals use bigint.

export const NS_PER_SEC = 1_000_000_000n;
export const MIN_INT64 = -(1n << 63n);
export const MAX_INT64 = (1n << 63n) - 1n;

export const LONG_DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const LONG_MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** An instant: whole seconds since the epoch (floored) and nanoseconds in [0, 1e9). */
export interface Instant {
  sec: number;
  nsec: number;
}

export function instantFromNs(ns: bigint): Instant {
  let sec = ns / NS_PER_SEC;
  let nsec = ns % NS_PER_SEC;
  if (nsec < 0n) {
    nsec += NS_PER_SEC;
    sec -= 1n;
  }
  return { sec: Number(sec), nsec: Number(nsec) };
}

export function instantToNs(t: Instant): bigint {
  return BigInt(t.sec) * NS_PER_SEC + BigInt(t.nsec);
}

export function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const DAYS_BEFORE = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];

/** Days in `month` (1-12) of `year`. */
export function daysIn(month: number, year: number): number {
  if (month === 2 && isLeap(year)) return 29;
  return DAYS_BEFORE[month]! - DAYS_BEFORE[month - 1]!;
}

/** Days before the first of `month` (1-13) in a non-leap year. */
export function daysBefore(month: number): number {
  return DAYS_BEFORE[month - 1]!;
}

const floorDiv = (a: number, b: number): number => Math.floor(a / b);

/** Days since 1970-01-01 of the civil date (month 1-12, day 1-31). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = floorDiv(y, 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = floorDiv(153 * mp + 2, 5) + day - 1;
  const doe = yoe * 365 + floorDiv(yoe, 4) - floorDiv(yoe, 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Civil date of a day count since 1970-01-01. */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = floorDiv(z, 146097);
  const doe = z - era * 146097;
  const yoe = floorDiv(doe - floorDiv(doe, 1460) + floorDiv(doe, 36524) - floorDiv(doe, 146096), 365);
  const doy = doe - (365 * yoe + floorDiv(yoe, 4) - floorDiv(yoe, 100));
  const mp = floorDiv(5 * doy + 2, 153);
  const day = doy - floorDiv(153 * mp + 2, 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}

/** Broken-down wall-clock fields of local seconds (unix seconds + zone offset). */
export interface WallFields {
  year: number;
  month: number;
  day: number;
  yday: number; // 1-366
  weekday: number; // 0 = Sunday
  hour: number;
  minute: number;
  second: number;
}

export function wallFields(localSec: number): WallFields {
  const days = floorDiv(localSec, 86400);
  const secOfDay = localSec - days * 86400;
  const { year, month, day } = civilFromDays(days);
  const yday = days - daysFromCivil(year, 1, 1) + 1;
  const weekday = (((days + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
  return {
    year,
    month,
    day,
    yday,
    weekday,
    hour: floorDiv(secOfDay, 3600),
    minute: floorDiv(secOfDay % 3600, 60),
    second: secOfDay % 60,
  };
}

/**
 * Go's Date() normalisation without the zone step: month, day, hour … may be out
 * of range and carry over. Returns the local (wall) seconds since the epoch and the
 * normalised nanoseconds.
 */
export function wallSeconds(
  year: number,
  month: number,
  day: number,
  hour: number,
  min: number,
  sec: number,
  nsec: number,
): { local: number; nsec: number } {
  let m = month - 1;
  year += floorDiv(m, 12);
  m -= floorDiv(m, 12) * 12;
  sec += floorDiv(nsec, 1e9);
  nsec -= floorDiv(nsec, 1e9) * 1e9;
  const days = daysFromCivil(year, m + 1, 1) + (day - 1);
  return { local: days * 86400 + hour * 3600 + min * 60 + sec, nsec };
}
