// A small command-line flag parser for the regent CLI (and the conformance runner).
// Flags are declared up front; the parser accepts `--flag value`, `--flag=value`,
// short forms `-f value`, `-f=value`, `-fvalue`, grouped boolean shorts (`-ab`),
// `--no-flag` / `--flag=false` for booleans, repeatable flags (values collected into
// a list), and `--` to end flag parsing. Unknown flags and missing values throw
// UsageError, which the commands report through usage.ts (`Error: …`, the usage, exit code 1).
// Also Go's time.ParseDuration, for the duration flags opa's commands take (pflag's DurationVar).

export type FlagType = 'boolean' | 'string';

export interface FlagSpec {
  /** Long name without dashes, e.g. `data`. */
  name: string;
  /** One-letter short name without the dash, e.g. `d`. */
  short?: string;
  type: FlagType;
  /** Collect every occurrence into a list (string flags only). */
  repeatable?: boolean;
  /** Allowed values (string flags). */
  choices?: string[];
  /** Default for string flags (booleans default to false). */
  default?: string;
  /** Placeholder for the value in help text, e.g. `PATH`. */
  metavar?: string;
  description: string;
}

export type FlagValue = boolean | string | string[] | undefined;

export interface ParsedArgs {
  flags: Record<string, FlagValue>;
  positionals: string[];
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

const TRUE = new Set(['true', '1', 'yes', 'on', '']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/** Parse argv (without the command name) against the flag specs. */
export function parseArgs(argv: string[], specs: FlagSpec[]): ParsedArgs {
  const byLong = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.short).map((s) => [s.short!, s]));
  const flags: Record<string, FlagValue> = {};
  for (const s of specs) {
    if (s.type === 'boolean') flags[s.name] = false;
    else if (s.repeatable) flags[s.name] = [];
    else flags[s.name] = s.default;
  }
  const positionals: string[] = [];

  const set = (spec: FlagSpec, value: string | boolean, shown: string): void => {
    if (spec.type === 'boolean') {
      if (typeof value === 'boolean') flags[spec.name] = value;
      else if (TRUE.has(value.toLowerCase())) flags[spec.name] = true;
      else if (FALSE.has(value.toLowerCase())) flags[spec.name] = false;
      else throw new UsageError(`invalid boolean value ${JSON.stringify(value)} for ${shown}`);
      return;
    }
    const v = String(value);
    if (spec.choices && !spec.choices.includes(v))
      throw new UsageError(`invalid value ${JSON.stringify(v)} for ${shown}: must be one of ${spec.choices.join(', ')}`);
    if (spec.repeatable) (flags[spec.name] as string[]).push(v);
    else flags[spec.name] = v;
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      let name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      const inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
      let spec = byLong.get(name);
      if (!spec && name.startsWith('no-') && inline === undefined) {
        const neg = byLong.get(name.slice(3));
        if (neg?.type === 'boolean') {
          flags[neg.name] = false;
          continue;
        }
      }
      if (!spec) throw new UsageError(`unknown flag: --${name}`);
      name = `--${name}`;
      if (spec.type === 'boolean') set(spec, inline ?? true, name);
      else if (inline !== undefined) set(spec, inline, name);
      else if (i + 1 < argv.length) set(spec, argv[++i]!, name);
      else throw new UsageError(`flag needs an argument: ${name}`);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      // -f, -f=value, -fvalue, -abc (booleans)
      for (let j = 1; j < arg.length; j++) {
        const ch = arg[j]!;
        const spec = byShort.get(ch);
        if (!spec) throw new UsageError(`unknown shorthand flag: '${ch}' in ${arg}`);
        const shown = `-${ch}`;
        const rest = arg.slice(j + 1);
        if (spec.type === 'boolean') {
          if (rest.startsWith('=')) {
            set(spec, rest.slice(1), shown);
            break;
          }
          set(spec, true, shown);
          continue;
        }
        if (rest !== '') set(spec, rest.startsWith('=') ? rest.slice(1) : rest, shown);
        else if (i + 1 < argv.length) set(spec, argv[++i]!, shown);
        else throw new UsageError(`flag needs an argument: ${shown}`);
        break;
      }
      continue;
    }
    positionals.push(arg);
  }
  return { flags, positionals };
}

/** Typed accessors for parsed flags. */
export function str(p: ParsedArgs, name: string): string | undefined {
  const v = p.flags[name];
  return typeof v === 'string' ? v : undefined;
}

export function list(p: ParsedArgs, name: string): string[] {
  const v = p.flags[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}

export function bool(p: ParsedArgs, name: string): boolean {
  return p.flags[name] === true;
}

/** Help text for a command: usage line, description and the flag table. */
export function formatHelp(usage: string, description: string, specs: FlagSpec[]): string {
  const rows = specs.map((s) => {
    const short = s.short ? `-${s.short}, ` : '    ';
    const value = s.type === 'string' ? ` ${s.metavar ?? (s.choices ? `{${s.choices.join(',')}}` : 'VALUE')}` : '';
    const extra = [s.repeatable ? 'repeatable' : '', s.default !== undefined ? `default ${s.default}` : ''].filter(Boolean).join('; ');
    return [`  ${short}--${s.name}${value}`, s.description + (extra ? ` (${extra})` : '')] as const;
  });
  const width = Math.max(0, ...rows.map(([l]) => l.length));
  const flagLines = rows.map(([l, d]) => `${l.padEnd(width)}  ${d}`);
  return [`Usage: ${usage}`, '', description, ...(flagLines.length ? ['', 'Flags:', ...flagLines] : [])].join('\n');
}

const DURATION_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1e3, m: 60e3, h: 3600e3 };

/** Go's time.ParseDuration (messages included), in milliseconds. */
export function parseGoDuration(text: string): number {
  const quoted = JSON.stringify(text);
  let s = text;
  const neg = s.startsWith('-');
  if (s.startsWith('-') || s.startsWith('+')) s = s.slice(1);
  if (s === '0') return 0;
  if (s === '') throw new Error(`time: invalid duration ${quoted}`);
  let total = 0;
  while (s !== '') {
    const num = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    if (num[0] === '' || num[0] === '.' || (num[1] === '' && !num[2])) throw new Error(`time: invalid duration ${quoted}`);
    s = s.slice(num[0].length);
    const unit = /^[^\d.]*/.exec(s)![0];
    if (unit === '') throw new Error(`time: missing unit in duration ${quoted}`);
    const scale = DURATION_UNITS[unit];
    if (scale === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    total += Number(num[0]) * scale;
    s = s.slice(unit.length);
  }
  return neg ? -total : total;
}
