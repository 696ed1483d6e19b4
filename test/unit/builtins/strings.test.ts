// Unit tests for the strings builtins (strings.ts, strings-trim.ts, strings-template.ts):
// OPA's results and messages, code-point semantics, empty and large inputs.
import { describe, expect, it } from 'vitest';
import { getBuiltin, callBuiltin } from '../../../runtime/builtins/registry.js';
import type { Value } from '../../../runtime/value/value.js';
import { RSet } from '../../../runtime/value/collections.js';
import { makeContext, registryCaller, callErrors } from './helpers.js';

const ctx = makeContext;
const call = registryCaller();
const callV = (name: string, ...args: Value[]): Value | undefined => callBuiltin(getBuiltin(name)!, args, ctx());
const err = callErrors(call);

describe('concat', () => {
  it('joins arrays and sets', () => {
    expect(call('concat', '/', ['', 'foo', 'bar', '0', 'baz'])).toBe('/foo/bar/0/baz');
    expect(callV('concat', ',', RSet.of(['2', '1', '3']))).toBe('1,2,3');
    expect(call('concat', ',', [])).toBe('');
  });
  it('reports element and operand types', () => {
    expect(err('concat', ',', ['a', 1])).toBe('eval_type_error: concat: operand 2 must be array of strings but got array containing number');
    expect(err('concat', ',', 'ab')).toBe('eval_type_error: concat: operand 2 must be one of {set, array} but got string');
    expect(err('concat', 1, ['a'])).toBe('eval_type_error: concat: operand 1 must be string but got number');
  });
  it('is non-strict undefined', () => {
    expect(callBuiltin(getBuiltin('concat')!, [1, []], ctx(false))).toBeUndefined();
  });
});

describe('indexof / indexof_n / substring (code points)', () => {
  it('indexof counts code points', () => {
    expect(call('indexof', 'μx', 'x')).toBe(1);
    expect(call('indexof', 'μ', 'μμ')).toBe(-1);
    expect(call('indexof', 'skön var våren', 'vår')).toBe(9);
    expect(call('indexof', '🍧🍨🧁🍰🍮', '🍮')).toBe(4);
    expect(err('indexof', 'abc', '')).toBe('eval_builtin_error: indexof: empty search character');
  });
  it('indexof_n finds overlapping matches', () => {
    expect(call('indexof_n', 'dogcatdogcat', 'cat')).toEqual([3, 9]);
    expect(call('indexof_n', '😇😀😇😀😇😀', '😀')).toEqual([1, 3, 5]);
    expect(call('indexof_n', 'aaa', 'aa')).toEqual([0, 1]);
    expect(call('indexof_n', 'dogcat', 'rabbit')).toEqual([]);
  });
  it('substring follows OPA rules', () => {
    expect(call('substring', 'abcdefgh', 2, -1)).toBe('cdefgh');
    expect(call('substring', 'aåäö', 2, -1)).toBe('äö');
    expect(call('substring', 'abcdefghåäö', 2, 10000)).toBe('cdefghåäö');
    expect(call('substring', 'åäö', 4, -1)).toBe('');
    expect(call('substring', '😀a😀b', 1, 2)).toBe('a😀');
    expect(call('substring', '', 0, 5)).toBe('');
    expect(err('substring', 'abc', -1, 1)).toBe('eval_builtin_error: substring: negative offset');
    expect(err('substring', 'abc', 1.5, 1)).toBe('eval_type_error: substring: operand 2 must be integer number but got floating-point number');
  });
});

describe('split, split_n, replace, replace_n', () => {
  it('split', () => {
    expect(call('split', 'foo.bar.baz', '.')).toEqual(['foo', 'bar', 'baz']);
    expect(call('split', '', '.')).toEqual(['']);
    expect(call('split', 'te😀t', '')).toEqual(['t', 'e', '😀', 't']);
    expect(call('split', '', '')).toEqual([]);
  });
  it('strings.split_n', () => {
    expect(call('strings.split_n', 'a.b.c.d', '.', 2)).toEqual(['a', 'b.c.d']);
    expect(call('strings.split_n', 'a;b;c;d', ';', -2)).toEqual(['c', 'd']);
    expect(call('strings.split_n', 'a.b', '.', -5)).toEqual(['a', 'b']);
    expect(call('strings.split_n', 'a.b.c', '.', 0)).toEqual([]);
    expect(call('strings.split_n', 'abc', '', 2)).toEqual(['a', 'bc']);
    expect(call('strings.split_n', '', '.', 2)).toEqual(['']);
  });
  it('replace', () => {
    expect(call('replace', 'foo...bar', '..', ',,')).toBe('foo,,.bar');
    expect(call('replace', 'ab', '', 'X')).toBe('XaXbX');
    expect(call('replace', '😀', '', '-')).toBe('-😀-');
    expect(call('replace', '2Gi', '', '')).toBe('2Gi');
    expect(call('replace', '500m', 'm', '')).toBe('500');
    expect(call('replace', 'abc', 'x', 'y')).toBe('abc');
    expect(call('replace', 'aaa', 'aa', 'b')).toBe('ba');
    // `$` in the replacement is literal text, as in Go.
    expect(call('replace', 'a.b.c', '.', "$&$1$$'")).toBe("a$&$1$$'b$&$1$$'c");
  });
  it('strings.replace_n uses Go Replacer priority', () => {
    expect(call('strings.replace_n', { a: 'YY', bba: 'bX' }, 'bbab')).toBe('bXb');
    expect(call('strings.replace_n', { ab: 'b', b: 'Y' }, 'baaabbbba')).toBe('YaabYYYa');
    expect(call('strings.replace_n', { a: 'b', b: 'a' }, 'abba')).toBe('baab');
    expect(call('strings.replace_n', { a: 'Xa', ab: 'X', ba: 'bYa', aaa: 'X' }, 'aaaaab')).toBe('XaXaXaXaXab');
    expect(call('strings.replace_n', { '': 'X', a: 'Y' }, 'ab')).toBe('XYXbX');
    expect(call('strings.replace_n', { '': '-', 'é': 'e' }, 'aéb')).toBe('-a-e-b-');
    expect(err('strings.replace_n', { f: 100 }, 'foo')).toBe('eval_type_error: strings.replace_n: operand 1 non-string value found in pattern object');
    expect(err('strings.replace_n', { f: 'x' }, 100)).toBe('eval_type_error: strings.replace_n: operand 2 must be string but got number');
  });
});

describe('case, count, reverse, prefix/suffix', () => {
  it('lower/upper per rune like Go', () => {
    expect(call('lower', 'AbCdEf')).toBe('abcdef');
    expect(call('upper', 'straße')).toBe('STRAßE');
    expect(call('lower', 'ΣΑΣ')).toBe('σασ');
    expect(call('lower', 'İ')).toBe('i');
  });
  it('strings.count', () => {
    expect(call('strings.count', 'cheese', 'e')).toBe(3);
    expect(call('strings.count', 'dummy', '')).toBe(6);
    expect(call('strings.count', '😀😀', '')).toBe(3);
    expect(call('strings.count', '11111', '11')).toBe(2);
  });
  it('strings.reverse keeps code points', () => {
    expect(call('strings.reverse', 'ab😀c')).toBe('c😀ba');
    expect(call('strings.reverse', '')).toBe('');
  });
  it('any_prefix_match / any_suffix_match', () => {
    expect(call('strings.any_prefix_match', ['a/b/c', 'e/f/g'], ['d/', 'e/f/g'])).toBe(true);
    expect(call('strings.any_prefix_match', 'a/b/c', 'g/')).toBe(false);
    expect(call('strings.any_suffix_match', ['a/b/c'], '/c')).toBe(true);
    expect(call('strings.any_suffix_match', [], [])).toBe(false);
    expect(err('strings.any_prefix_match', [1], ['a'])).toBe('eval_type_error: strings.any_prefix_match: operand 1 must be array of strings but got array containing number');
    expect(err('strings.any_suffix_match', ['a'], 1)).toBe('eval_type_error: strings.any_suffix_match: operand 2 must be one of {string, set, array} but got number');
  });
  it('contains/startswith/endswith', () => {
    expect(call('contains', 'abcdefgh', 'defg')).toBe(true);
    expect(call('startswith', 'abcdefgh', 'abcd')).toBe(true);
    expect(call('endswith', 'abcdefgh', 'fgh')).toBe(true);
    expect(call('contains', '', '')).toBe(true);
  });
});

describe('trim family', () => {
  it('trims code-point cutsets', () => {
    expect(call('trim', '...foo.bar...', '.o')).toBe('foo.bar');
    expect(call('trim', '¡¡¡foo, bar!!!', 'i')).toBe('¡¡¡foo, bar!!!');
    expect(call('trim_left', '¡¡¡foo', '¡')).toBe('foo');
    expect(call('trim_right', 'foo😀😀', '😀')).toBe('foo');
    expect(call('trim_prefix', '¡¡¡foo, bar!!!', '¡¡¡foo')).toBe(', bar!!!');
    expect(call('trim_suffix', '¡¡¡foo, bar!!!', ', bar!!!')).toBe('¡¡¡foo');
    expect(call('trim', '', '.')).toBe('');
  });
  it('trim_space uses Go unicode.IsSpace (not U+FEFF)', () => {
    expect(call('trim_space', ' \t\n\u00a0\u3000foo\u2029 ')).toBe('foo');
    expect(call('trim_space', '\ufefffoo')).toBe('\ufefffoo');
  });
  it('handles a huge string quickly', () => {
    const s = ' '.repeat(1_000_000) + 'x' + ' '.repeat(1_000_000);
    expect(call('trim_space', s)).toBe('x');
  });
});

describe('strings.render_template', () => {
  it('renders fields, numbers, range and if', () => {
    expect(call('strings.render_template', '{{.test}}', { test: 'hello world' })).toBe('hello world');
    expect(call('strings.render_template', '{{.test}}', { test: 2023 })).toBe('2023');
    expect(call('strings.render_template', '{{range $i, $name := .hellonames}}{{if $i}},{{end}}hello {{$name}}{{end}}', { hellonames: ['rohan', 'john doe'] }))
      .toBe('hello rohan,hello john doe');
    expect(call('strings.render_template', '{{- if eq .a 1 }} one {{- else if eq .a 2 -}} two {{- else}}x{{end}}!', { a: 2 })).toBe('two!');
    expect(call('strings.render_template', '{{ printf "%05d" .n }} {{ len .xs }} {{ .m }}', { n: 42, xs: [1, 2], m: { k: 'v' } })).toBe('00042 2 map[k:v]');
  });
  it('fails on missing keys (missingkey=error)', () => {
    expect(err('strings.render_template', '{{.nope}}', { test: 'x' })).toBe(
      'eval_builtin_error: strings.render_template: template: template:1:2: executing "template" at <.nope>: map has no entry for key "nope"',
    );
  });
});
