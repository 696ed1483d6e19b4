// Unit tests for the regex builtins: RE2 semantics, Go error texts, linear-time matching.
import { describe, expect, it } from 'vitest';
import { parseNumber } from '../../../runtime/value/number.js';
import { registryCaller, callErrors } from './helpers.js';

const call = registryCaller();
const err = callErrors(call);
void parseNumber;

describe('regex.match / is_valid', () => {
  it('matches unanchored with RE2 syntax', () => {
    expect(call('regex.match', '^[a-z]+\\[[0-9]+\\]$', 'foo[1]')).toBe(true);
    expect(call('re_match', 'b+', 'abbc')).toBe(true);
    expect(call('regex.match', '(?i)ABC', 'xabcx')).toBe(true);
    expect(call('regex.match', '^\\p{Greek}+$', 'αβγ')).toBe(true);
    expect(call('regex.match', '', '')).toBe(true);
  });
  it('reports Go parse errors', () => {
    expect(err('regex.match', '[', 'x')).toBe('eval_builtin_error: regex.match: error parsing regexp: missing closing ]: `[`');
    expect(err('regex.match', 'a**', 'x')).toBe('eval_builtin_error: regex.match: error parsing regexp: invalid nested repetition operator: `**`');
    expect(err('regex.match', '(?=x)', 'x')).toMatch(/^eval_builtin_error: regex.match: error parsing regexp: /);
    expect(err('regex.match', 1, 'x')).toBe('eval_type_error: regex.match: operand 1 must be string but got number');
    expect(call('regex.is_valid', '[')).toBe(false);
    expect(call('regex.is_valid', 'a+')).toBe(true);
    expect(call('regex.is_valid', 5)).toBe(false);
  });
  it('runs catastrophic-backtracking patterns in linear time', () => {
    const s = 'a'.repeat(50_000) + 'b';
    const t0 = Date.now();
    expect(call('regex.match', '(a+)+$', s)).toBe(false);
    expect(call('regex.match', '(a+)+b', s)).toBe(true);
    expect(call('regex.match', '^(a+)+$', s)).toBe(false);
    expect(call('regex.match', '^(a|a)*$', s)).toBe(false);
    expect(call('regex.find_n', '(a*)*b', s, -1)).toEqual([s]);
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});

describe('regex.split / find_n / find_all_string_submatch_n / replace', () => {
  it('split like Go', () => {
    expect(call('regex.split', 'a', 'banana')).toEqual(['b', 'n', 'n', '']);
    expect(call('regex.split', 'z+', 'pizza')).toEqual(['pi', 'a']);
    expect(call('regex.split', '^[a-z]+$', '')).toEqual(['']);
    expect(call('regex.split', '^[a-z ]+$', 'foobar baz')).toEqual(['', '']);
    expect(call('regex.split', '', 'abc')).toEqual(['a', 'b', 'c']);
    expect(call('regex.split', '', '')).toEqual([]);
  });
  it('find_n', () => {
    expect(call('regex.find_n', 'a.', 'paranormal', -1)).toEqual(['ar', 'an', 'al']);
    expect(call('regex.find_n', 'a.', 'paranormal', 2)).toEqual(['ar', 'an']);
    expect(call('regex.find_n', 'a.', 'paranormal', 0)).toEqual([]);
    expect(call('regex.find_n', 'a*', 'baaab', -1)).toEqual(['', 'aaa', '']);
    expect(call('regex.find_n', '.', '😀é', -1)).toEqual(['😀', 'é']);
    expect(err('regex.find_n', 'a', 'a', 1.5)).toBe('eval_type_error: regex.find_n: operand 3 must be integer number but got floating-point number');
  });
  it('find_all_string_submatch_n', () => {
    expect(call('regex.find_all_string_submatch_n', 'a(x*)b', '-ab-axb-', -1)).toEqual([['ab', ''], ['axb', 'x']]);
    expect(call('regex.find_all_string_submatch_n', '[^aouiye]([aouiye])([^aouiye])?', 'somestri', -1)).toEqual([['som', 'o', 'm'], ['ri', 'i', '']]);
    expect(call('regex.find_all_string_submatch_n', 'a(x*)b', '-', -1)).toEqual([]);
  });
  it('replace with Go $-expansion', () => {
    expect(call('regex.replace', '-wy-wxxy-', 'w(x*)y', '0')).toBe('-0-0-');
    expect(call('regex.replace', 'foo', '(foo)', '$1$1')).toBe('foofoo');
    expect(call('regex.replace', 'foo', '(?P<w>o)', '[${w}]')).toBe('f[o][o]');
    // `$1x` names group "1x" (absent → empty), `$$` is `$`, a trailing `$` is literal.
    expect(call('regex.replace', 'foo', '(o)', '$1x|$$|$')).toBe('f|$|$|$|$');
    expect(call('regex.replace', 'baaab', 'a*', 'X')).toBe('XbXbX');
    expect(err('regex.replace', 'foo', '[', '$1')).toBe('eval_builtin_error: regex.replace: error parsing regexp: missing closing ]: `[`');
  });
});

describe('regex.template_match / regex.globs_match', () => {
  it('template_match', () => {
    expect(call('regex.template_match', 'urn:foo:{.*}', 'urn:foo:bar:baz', '{', '}')).toBe(true);
    expect(call('regex.template_match', 'urn:foo.bar.com:{.*}', 'urn:foo.com:bar:baz', '{', '}')).toBe(false);
    expect(call('regex.template_match', 'urn:foo:<[0-9]{2}>', 'urn:foo:42', '<', '>')).toBe(true);
    expect(err('regex.template_match', 'urn:{a', 'x', '{', '}')).toBe('eval_builtin_error: regex.template_match: unbalanced braces in "urn:{a"');
    expect(err('regex.template_match', 'x', 'x', '{{', '}')).toBe('eval_builtin_error: regex.template_match: start delimiter has to be exactly one character long but is 2 long');
  });
  it('globs_match decides intersection', () => {
    expect(call('regex.globs_match', 'a.a.[0-9]+z', '.b.b2359825792*594823z')).toBe(true);
    expect(call('regex.globs_match', '[a-z]+', '[0-9]*')).toBe(false);
    expect(call('regex.globs_match', '[a-z]+', '[0-9a-c]*')).toBe(true);
    expect(call('regex.globs_match', '[a-z]+', '[0-9]+')).toBe(false);
    expect(call('regex.globs_match', 'foo.*', 'bar.*')).toBe(false);
    expect(call('regex.globs_match', 'a*b', 'a+c*b')).toBe(true);
    expect(err('regex.globs_match', '*a', 'a')).toBe("eval_builtin_error: regex.globs_match: pos:1:flag '*' must be preceded by a non-flag: the input provided is invalid");
    expect(err('regex.globs_match', 'a[b', 'a')).toMatch(/found \[ without matching \]: the input provided is invalid$/);
  });
});

describe('regex.match over more patterns than the compiled-pattern cache holds', () => {
  // 1,000 patterns tested in turn, three times: the compiled programs cycle out of the
  // 256-entry cache, and later rounds test through the kept native forms
  // (regex-cache.ts); results, long inputs (past a native form's length bound) and
  // parse errors must not change.
  it('answers as the first round did', () => {
    const patterns = Array.from({ length: 1000 }, (_, i) => `^/api/v1/resourcetype-${i}/.*$`);
    const rounds = [0, 1, 2].map(() => patterns.map((p, i) => [call('regex.match', p, `/api/v1/resourcetype-${i}/x`), call('regex.match', p, `/api/v1/resourcetype-${i + 1}/x`)]));
    expect(rounds[0]!.every(([hit, miss]) => hit === true && miss === false)).toBe(true);
    expect(rounds[1]).toEqual(rounds[0]);
    expect(rounds[2]).toEqual(rounds[0]);
    const long = '/api/v1/resourcetype-7/' + 'x'.repeat(100_000);
    expect(call('regex.match', patterns[7]!, long)).toBe(true);
    expect(call('regex.match', patterns[8]!, long)).toBe(false);
    expect(err('regex.match', '[', 'x')).toBe('eval_builtin_error: regex.match: error parsing regexp: missing closing ]: `[`');
  });
});
