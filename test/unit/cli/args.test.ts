// Tests of the CLI flag parser: long/short forms, inline values, repeatable flags,
// boolean negation, choices, `--` and the errors for bad input.
import { describe, expect, it } from 'vitest';
import { UsageError, bool, formatHelp, list, parseArgs, str, type FlagSpec } from '../../../cli/args.js';

const SPECS: FlagSpec[] = [
  { name: 'data', short: 'd', type: 'string', repeatable: true, description: 'data paths' },
  { name: 'input', short: 'i', type: 'string', description: 'input file' },
  { name: 'format', short: 'f', type: 'string', choices: ['json', 'pretty', 'raw'], default: 'json', description: 'format' },
  { name: 'fail', type: 'boolean', description: 'fail if undefined' },
  { name: 'verbose', short: 'v', type: 'boolean', description: 'verbose' },
  { name: 'quiet', short: 'q', type: 'boolean', description: 'quiet' },
];

describe('parseArgs', () => {
  it('applies defaults', () => {
    const p = parseArgs([], SPECS);
    expect(p.flags).toEqual({ data: [], input: undefined, format: 'json', fail: false, verbose: false, quiet: false });
    expect(p.positionals).toEqual([]);
  });

  it('accepts --flag value and --flag=value, collecting repeatable flags', () => {
    const p = parseArgs(['--data', 'a.rego', '--data=b.json', '-d', 'c', '-dd.yaml', '-d=e', 'q'], SPECS);
    expect(list(p, 'data')).toEqual(['a.rego', 'b.json', 'c', 'd.yaml', 'e']);
    expect(p.positionals).toEqual(['q']);
  });

  it('keeps the last value of a non-repeatable flag', () => {
    const p = parseArgs(['-i', 'one.json', '--input', 'two.json'], SPECS);
    expect(str(p, 'input')).toBe('two.json');
  });

  it('handles booleans: bare, =false, --no-, grouped shorts', () => {
    expect(bool(parseArgs(['--fail'], SPECS), 'fail')).toBe(true);
    expect(bool(parseArgs(['--fail=false'], SPECS), 'fail')).toBe(false);
    expect(bool(parseArgs(['--fail', '--no-fail'], SPECS), 'fail')).toBe(false);
    const g = parseArgs(['-vq'], SPECS);
    expect(bool(g, 'verbose') && bool(g, 'quiet')).toBe(true);
    // a boolean flag does not swallow the next argument
    expect(parseArgs(['--fail', 'data.x'], SPECS).positionals).toEqual(['data.x']);
  });

  it('lets a value start with a dash and stops at --', () => {
    const p = parseArgs(['-i', '-weird.json', '--', '--fail', '-x'], SPECS);
    expect(str(p, 'input')).toBe('-weird.json');
    expect(bool(p, 'fail')).toBe(false);
    expect(p.positionals).toEqual(['--fail', '-x']);
  });

  it('mixes positionals and flags in any order', () => {
    const p = parseArgs(['data.a.b', '--format', 'raw', 'extra'], SPECS);
    expect(p.positionals).toEqual(['data.a.b', 'extra']);
    expect(str(p, 'format')).toBe('raw');
  });

  it('rejects unknown flags, missing values and bad choices', () => {
    expect(() => parseArgs(['--nope'], SPECS)).toThrow(UsageError);
    expect(() => parseArgs(['-z'], SPECS)).toThrow(/unknown shorthand flag: 'z'/);
    expect(() => parseArgs(['--input'], SPECS)).toThrow(/needs an argument: --input/);
    expect(() => parseArgs(['-d'], SPECS)).toThrow(/needs an argument: -d/);
    expect(() => parseArgs(['--format', 'xml'], SPECS)).toThrow(/must be one of json, pretty, raw/);
    expect(() => parseArgs(['--fail=maybe'], SPECS)).toThrow(/invalid boolean/);
  });
});

describe('formatHelp', () => {
  it('lists every flag with its short form and notes', () => {
    const help = formatHelp('regent eval [flags] <query>', 'Evaluate.', SPECS);
    expect(help.split('\n')[0]).toBe('Usage: regent eval [flags] <query>');
    expect(help).toMatch(/-d, --data VALUE\s+data paths \(repeatable\)/);
    expect(help).toMatch(/--format \{json,pretty,raw\}\s+format \(default json\)/);
    expect(help).toMatch(/^\s+--fail\s+fail if undefined$/m);
  });
});
