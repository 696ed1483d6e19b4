// Time zones for the time builtins: UTC, Local and IANA zones. UTC offsets come
// from the Intl API (node ships full ICU); zone abbreviations (the `MST` layout
// token) come from the system's TZif files when present, which is where Go reads
// them too, with an Intl-based fallback. Names are validated as Go's LoadLocation does.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { daysFromCivil } from './time-calendar.js';
import { BuiltinError } from './errors.js';

export interface ZoneInfo {
  /** Seconds east of UTC. */
  offset: number;
  abbrev: string;
}

export interface Location {
  name: string;
  lookup(unixSec: number): ZoneInfo;
}

export const UTC: Location = { name: 'UTC', lookup: () => ({ offset: 0, abbrev: 'UTC' }) };

const ZONEINFO_DIR = '/usr/share/zoneinfo';

interface Tzif {
  times: number[];
  idx: number[];
  types: { utoff: number; abbrev: string }[];
}

function parseTzif(buf: Buffer): Tzif | undefined {
  if (buf.length < 44 || buf.toString('latin1', 0, 4) !== 'TZif') return undefined;
  const read = (base: number, timeSize: number): { tz: Tzif; end: number } => {
    const cnt = (i: number): number => buf.readUInt32BE(base + 20 + i * 4);
    const [isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt] = [0, 1, 2, 3, 4, 5].map(cnt) as number[];
    let p = base + 44;
    const times: number[] = [];
    for (let i = 0; i < timecnt!; i++, p += timeSize)
      times.push(timeSize === 8 ? Number(buf.readBigInt64BE(p)) : buf.readInt32BE(p));
    const idx: number[] = [];
    for (let i = 0; i < timecnt!; i++) idx.push(buf.readUInt8(p++));
    const raw: { utoff: number; ai: number }[] = [];
    for (let i = 0; i < typecnt!; i++, p += 6) raw.push({ utoff: buf.readInt32BE(p), ai: buf.readUInt8(p + 5) });
    const chars = buf.toString('latin1', p, p + charcnt!);
    p += charcnt! + leapcnt! * (timeSize + 4) + isstdcnt! + isutcnt!;
    const types = raw.map((t) => ({ utoff: t.utoff, abbrev: chars.slice(t.ai, chars.indexOf('\0', t.ai)) }));
    return { tz: { times, idx, types }, end: p };
  };
  const v1 = read(0, 4);
  if (buf[4] !== 0 && buf.length >= v1.end + 44 && buf.toString('latin1', v1.end, v1.end + 4) === 'TZif')
    return read(v1.end, 8).tz;
  return v1.tz;
}

/** The abbreviation in effect at `sec` whose offset is `offset`, from TZif data. */
function tzifAbbrev(tz: Tzif, sec: number, offset: number): string | undefined {
  let lo = 0;
  let hi = tz.times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tz.times[mid]! <= sec) lo = mid + 1;
    else hi = mid;
  }
  // lo - 1 is the last transition at or before `sec`.
  for (let i = lo - 1; i >= 0; i--) {
    const t = tz.types[tz.idx[i]!];
    if (t && t.utoff === offset) return t.abbrev;
  }
  return tz.types.find((t) => t.utoff === offset)?.abbrev;
}

function numericAbbrev(offset: number): string {
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 3600)).padStart(2, '0');
  const mm = Math.floor((abs % 3600) / 60);
  return mm === 0 ? sign + hh : sign + hh + String(mm).padStart(2, '0');
}

function loadTzif(zone: string): Tzif | undefined {
  try {
    const path = join(ZONEINFO_DIR, zone);
    if (!existsSync(path) || !statSync(path).isFile()) return undefined;
    return parseTzif(readFileSync(path));
  } catch {
    return undefined;
  }
}

/** An IANA zone: offsets from Intl, abbreviations from TZif (or Intl). */
function ianaLocation(name: string, zone: string): Location {
  const dtf = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    era: 'short',
  });
  let names: Intl.DateTimeFormat | undefined;
  let tzif: Tzif | null | undefined;
  const offsetAt = (sec: number): number => {
    const f: Record<string, string> = {};
    for (const p of dtf.formatToParts(new Date(sec * 1000))) f[p.type] = p.value;
    let year = Number(f.year);
    if (f.era === 'BC' || f.era === 'B') year = 1 - year;
    const wall =
      daysFromCivil(year, Number(f.month), Number(f.day)) * 86400 +
      Number(f.hour) * 3600 +
      Number(f.minute) * 60 +
      Number(f.second);
    return wall - sec;
  };
  return {
    name,
    lookup(sec: number): ZoneInfo {
      const offset = offsetAt(sec);
      if (tzif === undefined) tzif = loadTzif(zone) ?? null;
      let abbrev = tzif ? tzifAbbrev(tzif, sec, offset) : undefined;
      if (abbrev === undefined) {
        names ??= new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' });
        const part = names.formatToParts(new Date(sec * 1000)).find((p) => p.type === 'timeZoneName');
        abbrev = part && /^[A-Z]{3,5}$/.test(part.value) ? part.value : numericAbbrev(offset);
      }
      return { offset, abbrev };
    },
  };
}

function intlAccepts(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const cache = new Map<string, Location>();
let localLoc: Location | undefined;

function localLocation(): Location {
  if (localLoc) return localLoc;
  const zone = process.env.TZ || Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  localLoc =
    zone === 'UTC' || zone === 'Etc/UTC' || !intlAccepts(zone)
      ? { name: 'Local', lookup: UTC.lookup }
      : ianaLocation('Local', zone);
  return localLoc;
}

/** Go's time.LoadLocation, with its error messages. */
export function loadLocation(name: string): Location {
  if (name === '' || name === 'UTC') return UTC;
  if (name === 'Local') return localLocation();
  const hit = cache.get(name);
  if (hit) return hit;
  if (name.includes('..') || name[0] === '/' || name[0] === '\\') {
    throw new BuiltinError('time: invalid location name');
  }
  // Go looks zone files up by exact (case-sensitive) name; ICU is case-insensitive.
  const haveDir = existsSync(ZONEINFO_DIR);
  const fileOk = !haveDir || (existsSync(join(ZONEINFO_DIR, name)) && statSync(join(ZONEINFO_DIR, name)).isFile());
  if (!fileOk || !intlAccepts(name)) throw new BuiltinError(`unknown time zone ${name}`);
  const loc = ianaLocation(name, name);
  cache.set(name, loc);
  return loc;
}
