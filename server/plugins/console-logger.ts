// OPA's console logger (plugins.Manager.ConsoleLogger): where `decision_logs.console`
// and `status.console` print. OPA writes these with logrus' JSON formatter to stderr at
// level info, whatever --log-level says: one line per entry, the entry's fields plus
// `level`, `msg` and `time` (RFC 3339, seconds, local zone), keys sorted at every
// depth (Go's encoding of a map), HTML characters escaped, exact numbers kept. A
// decision log line looks like
//   {"decision_id":"…","input":{…},"labels":{…},"level":"info","msg":"Decision Log",
//    "path":"example/allow","result":true,"time":"2026-01-02T03:04:05Z",
//    "timestamp":"…","type":"openpolicyagent.org/decision_logs"}
// Field names that clash with level/msg/time are renamed `fields.<name>`, as logrus does.
import { BigNum, RObject, RSet, formatNumber, toJSONText, type Value } from '../../runtime/index.js';
import type { PluginLogger } from './util.js';

/** Go's json.Marshal of a string (HTML-safe). */
function quote(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** Compact JSON with sorted object keys: Rego values (exact numbers) and plain JS data. */
export function sortedJSON(x: unknown): string {
  if (x === null || x === undefined) return 'null';
  switch (typeof x) {
    case 'boolean':
      return x ? 'true' : 'false';
    case 'number':
      return Number.isFinite(x) ? formatNumber(x) : 'null';
    case 'bigint':
      return x.toString();
    case 'string':
      return quote(x);
    case 'object':
      break;
    default:
      return 'null';
  }
  if (x instanceof BigNum) return formatNumber(x);
  if (x instanceof Date) return quote(x.toISOString());
  if (Array.isArray(x)) return '[' + x.map(sortedJSON).join(',') + ']';
  if (x instanceof RSet) return '[' + x.values().map(sortedJSON).join(',') + ']';
  let entries: [string, unknown][];
  if (x instanceof RObject) entries = x.entries().map(([k, v]) => [typeof k === 'string' ? k : toJSONText(k as Value), v]);
  else entries = Object.entries(x as Record<string, unknown>).filter(([, v]) => v !== undefined);
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return '{' + entries.map(([k, v]) => quote(k) + ':' + sortedJSON(v)).join(',') + '}';
}

/** Go's time.RFC3339 (`2006-01-02T15:04:05Z07:00`) of a local time. */
export function rfc3339Seconds(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  const off = -d.getTimezoneOffset();
  const zone = off === 0 ? 'Z' : `${off > 0 ? '+' : '-'}${p(Math.floor(Math.abs(off) / 60))}:${p(Math.abs(off) % 60)}`;
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}${zone}`;
}

/** The fields of an entry: an RObject's or a plain object's members. */
function fieldsOf(obj: object): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (obj instanceof RObject) {
    for (const [k, v] of obj.entries()) out.set(typeof k === 'string' ? k : toJSONText(k as Value), v);
  } else {
    for (const [k, v] of Object.entries(obj)) if (v !== undefined) out.set(k, v);
  }
  return out;
}

const LEVELS = { debug: 0, info: 1, warn: 2, error: 3 } as const;
const LEVEL_NAMES = { debug: 'debug', info: 'info', warn: 'warning', error: 'error' } as const;

/** One logrus JSON line (with its newline). */
export function logrusLine(level: keyof typeof LEVELS, obj: object, msg: string, now: Date = new Date()): string {
  const fields = fieldsOf(obj);
  for (const clash of ['time', 'msg', 'level']) {
    if (fields.has(clash)) {
      fields.set('fields.' + clash, fields.get(clash));
      fields.delete(clash);
    }
  }
  fields.set('time', rfc3339Seconds(now));
  fields.set('msg', msg);
  fields.set('level', LEVEL_NAMES[level]);
  return sortedJSON(Object.fromEntries(fields)) + '\n';
}

/**
 * A PluginLogger printing logrus JSON lines through `write` (default: stderr), from
 * `minLevel` up (OPA's console logger: info).
 */
export function consoleLogger(write: (line: string) => void = (l) => void process.stderr.write(l), minLevel: keyof typeof LEVELS = 'info'): PluginLogger {
  const at =
    (level: keyof typeof LEVELS) =>
    (obj: object, msg = ''): void => {
      if (LEVELS[level] >= LEVELS[minLevel]) write(logrusLine(level, obj, msg));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
