// Unit tests for glob.match / glob.quote_meta (gobwas/glob semantics via RE2).
import { describe, expect, it } from 'vitest';
import type { Value } from '../../../runtime/value/value.js';
import { parseNumber } from '../../../runtime/value/number.js';
import { registryCaller, callErrors } from './helpers.js';

const call = registryCaller();
const err = callErrors(call);
void parseNumber;

const g = (p: string, d: unknown, s: string): Value | undefined => call('glob.match', p, d, s);

describe('glob.match', () => {
  it('delimiters: null = none, [] = ["."]', () => {
    expect(g('*', [], 'foo.bar')).toBe(false);
    expect(g('*', null, 'foo.bar')).toBe(true);
    expect(g('*:github:com', [':'], 'api:github:com')).toBe(true);
    expect(g('*.github.com', ['.'], 'api.not-github.com')).toBe(false);
    expect(g('*', ['.', '/'], 'a/b')).toBe(false);
    expect(g('*?*', ['.', '/'], 'abc')).toBe(true);
  });
  it('super wildcard, single, classes, alternatives', () => {
    expect(g('a/**/b', null, 'a//b')).toBe(true);
    expect(g('a/**/b', null, 'a/b')).toBe(false);
    expect(g('**.com', ['.'], 'a.b.com')).toBe(true);
    expect(g('?at', ['f'], 'fat')).toBe(false);
    expect(g('?', null, '😀')).toBe(true);
    expect(g('[!abc]at', [], 'fat')).toBe(true);
    expect(g('[a-c]at', [], 'bat')).toBe(true);
    expect(g('[!a-c]at', [], 'bat')).toBe(false);
    expect(g('{cat,bat,[fr]at}', [], 'rat')).toBe(true);
    expect(g('{cat,bat,[fr]at}', [], 'at')).toBe(false);
    expect(g('{**/,}x', null, 'x')).toBe(true);
    expect(g('***', ['.'], '')).toBe(true);
    expect(g('\\*', null, '*')).toBe(true);
    expect(g('\\*', null, 'a')).toBe(false);
    expect(g('a.b(c)+$', null, 'a.b(c)+$')).toBe(true);
    expect(g('', null, '')).toBe(true);
  });
  it('reports gobwas errors and operand types', () => {
    expect(err('glob.match', '[a', null, 'a')).toBe('eval_builtin_error: glob.match: unexpected end of input');
    expect(err('glob.match', '[]', null, 'a')).toBe('eval_builtin_error: glob.match: could not parse range');
    expect(err('glob.match', '[z-a]', null, 'a')).toBe("eval_builtin_error: glob.match: hi character 'a' should be greater than lo 'z'");
    expect(err('glob.match', '[a-z0]', null, 'a')).toBe('eval_builtin_error: glob.match: expected close range character');
    expect(err('glob.match', '*', 'x', 'a')).toBe('eval_type_error: glob.match: operand 2 must be one of {array, null} but got string');
    expect(err('glob.match', '*', [1], 'a')).toBe('eval_type_error: glob.match: operand 2 must be array of strings but got array containing number');
    expect(err('glob.match', '*', ['ab'], 'a')).toBe('eval_type_error: glob.match: operand 2 must be array of runes but got array containing string');
  });
  it('is linear on long inputs', () => {
    const s = 'a'.repeat(100_000);
    const t0 = Date.now();
    expect(g('*a*a*a*a*a*b', null, s)).toBe(false);
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});

describe('glob.quote_meta', () => {
  it('escapes gobwas specials', () => {
    expect(call('glob.quote_meta', '*.github.com')).toBe('\\*.github.com');
    expect(call('glob.quote_meta', '[a]{b}?\\')).toBe('\\[a\\]\\{b\\}\\?\\\\');
    expect(call('glob.quote_meta', '')).toBe('');
  });
});
