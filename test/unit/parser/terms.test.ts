// Terms: scalars (exact numbers, strings), composites, vars and refs, and
// comprehensions, as parseTerm builds them.
import { describe, it, expect } from 'vitest';
import { parseTerm } from '../../../compiler/parser/index.js';
import { BigNum } from '../../../runtime/value/number.js';
import { strip, t, q } from './helpers.js';

describe('scalars', () => {
  it('parses null and booleans', () => {
    expect(strip(parseTerm('null'))).toEqual({ kind: 'null' });
    expect(strip(parseTerm('true'))).toEqual({ kind: 'boolean', value: true });
    expect(strip(parseTerm('false'))).toEqual({ kind: 'boolean', value: false });
  });

  it('parses numbers keeping their text', () => {
    expect(strip(parseTerm('1'))).toEqual({ kind: 'number', value: 1, text: '1' });
    expect(strip(parseTerm('-1'))).toEqual({ kind: 'number', value: -1, text: '-1' });
    expect(strip(parseTerm('1.5e10'))).toEqual({ kind: 'number', value: 1.5e10, text: '1.5e10' });
    expect(strip(parseTerm('.5'))).toEqual({ kind: 'number', value: 0.5, text: '.5' });
  });

  it('keeps big numbers exact', () => {
    const big = parseTerm('123456789012345678901234567890');
    expect(big.kind === 'number' && big.value instanceof BigNum).toBe(true);
    expect(big.kind === 'number' && String(big.value)).toBe('123456789012345678901234567890');
    const huge = parseTerm('1e400');
    expect(huge.kind === 'number' && huge.value instanceof BigNum).toBe(true);
  });

  it('parses strings and raw strings', () => {
    expect(strip(parseTerm('"a\\u0041\\n"'))).toEqual({ kind: 'string', value: 'aA\n' });
    expect(strip(parseTerm('`a\\n`'))).toEqual({ kind: 'string', value: 'a\\n', raw: true });
  });
});

describe('composites', () => {
  it('parses arrays, objects and sets', () => {
    expect(t('[1, "a", [true]]')).toBe('[1, "a", [true]]');
    expect(t('{"a": 1, x: [2]}')).toBe('{"a": 1, x: [2]}');
    expect(t('{1, 2}')).toBe('set(1, 2)');
    expect(t('set()')).toBe('set()');
    expect(t('{}')).toBe('{}');
    expect(t('[1, 2,]')).toBe('[1, 2]');
  });

  it('allows any term as object key', () => {
    expect(t('{[1]: 2, {3}: 4, 1 + 1: 5}')).toBe('{[1]: 2, set(3): 4, plus(1, 1): 5}');
  });

  it('parses comprehensions', () => {
    const a = parseTerm('[x | some x in xs]');
    expect(a.kind).toBe('arraycomp');
    const s = parseTerm('{x | x := 1; x > 0}');
    expect(s.kind === 'setcomp' && s.body.length).toBe(2);
    const o = parseTerm('{k: v | some k, v in obj}');
    expect(o.kind === 'objectcomp' && [o.key.kind, o.value.kind]).toEqual(['var', 'var']);
  });

  it('falls back to `or` when a comprehension body does not parse', () => {
    expect(t('[a | b, c]')).toBe('[or(a, b), c]');
    expect(t('{a | b, c}')).toBe('set(or(a, b), c)');
  });

  it('gives `{a | b}` to the set comprehension (OPA precedence)', () => {
    expect(parseTerm('{a | b}').kind).toBe('setcomp');
  });
});

describe('vars and refs', () => {
  it('turns wildcards into distinct $_N vars', () => {
    const a = parseTerm('[_, _, x]');
    expect(strip(a)).toEqual({
      kind: 'array',
      items: [{ kind: 'var', name: '$_0', wildcard: true }, { kind: 'var', name: '$_1', wildcard: true }, { kind: 'var', name: 'x' }],
    });
  });

  it('parses dotted and bracketed refs', () => {
    expect(strip(parseTerm('a.b[c][0]'))).toEqual({
      kind: 'ref', head: { kind: 'var', name: 'a' },
      path: [{ kind: 'string', value: 'b' }, { kind: 'var', name: 'c' }, { kind: 'number', value: 0, text: '0' }],
    });
  });

  it('makes data/input refs even alone', () => {
    expect(strip(parseTerm('input'))).toEqual({ kind: 'ref', head: { kind: 'var', name: 'input' }, path: [] });
  });

  it('parses refs on composites and calls', () => {
    expect(t('[1, 2][0]')).toBe('[1, 2][0]');
    expect(t('{"a": 1}.a')).toBe('{"a": 1}["a"]');
    expect(t('f(x).y[0]')).toBe('f(x)["y"][0]');
  });

  it('accepts keywords after dots and as ref heads', () => {
    expect(t('data.foo.in')).toBe('data["foo"]["in"]');
    expect(t('input.every')).toBe('input["every"]');
    expect(t('x.contains')).toBe('x["contains"]');
    expect(t('data.if.else')).toBe('data["if"]["else"]');
    expect(t('input.not')).toBe('input["not"]');
    expect(q('not.x == 1')).toBe('equal(not["x"], 1)');
  });

  it('does not join refs across whitespace', () => {
    expect(() => q('x := [1] [0]')).toThrow(/unexpected \[ token/);
    expect(() => parseTerm('x [0]')).toThrow();
    expect(q('x := [1][0]')).toBe('assign(x, [1][0])');
  });

  it('parses calls with dotted operators', () => {
    expect(strip(parseTerm('io.jwt.decode(t)'))).toEqual({
      kind: 'call',
      op: { kind: 'ref', head: { kind: 'var', name: 'io' }, path: [{ kind: 'string', value: 'jwt' }, { kind: 'string', value: 'decode' }] },
      args: [{ kind: 'var', name: 't' }],
    });
    expect(strip(parseTerm('count(x)'))).toEqual({ kind: 'call', op: { kind: 'var', name: 'count' }, args: [{ kind: 'var', name: 'x' }] });
    expect(t('contains("abc", "b")')).toBe('contains("abc", "b")');
    expect(t('f()')).toBe('f()');
  });

  it('desugars unary minus on refs', () => {
    expect(t('-x.y')).toBe('minus(0, x["y"])');
  });
});

describe('template strings', () => {
  it('splits chunks and embedded terms', () => {
    expect(t('$"a{x}b{1 + 2}"')).toBe('template("a", x, "b", plus(1, 2))');
    expect(t('$""')).toBe('template()');
  });

  it('handles escaped braces', () => {
    expect(t('$"\\{42}"')).toBe('template("{42}")');
    expect(t('$"foo \\{42\\} bar"')).toBe('template("foo {42} bar")');
    expect(t('$"\\{{42}"')).toBe('template("{", 42)');
    expect(t('$"{42}\\}"')).toBe('template(42, "}")');
  });

  it('allows nested braces, comprehensions and templates inside expressions', () => {
    expect(t('$"{{"a": "b"}} {{1}} {set()}"')).toBe('template({"a": "b"}, " ", set(1), " ", set())');
    expect(t('$"{[x | some x in a]}"')).toBe('template(arraycomp(x))');
    expect(t('$"{$"{a}"}"')).toBe('template(template(a))');
  });

  it('supports raw multi-line templates', () => {
    expect(t('$`<a>\n  {1 + a}\n</a>`')).toBe('template("<a>\\n  ", plus(1, a), "\\n</a>")');
    expect(t('$`\\{x}`')).toBe('template("{x}")');
  });

  it('keeps `with` modifiers of embedded expressions', () => {
    const tt = parseTerm('$"foo {a with input as {"a": 42}}"');
    expect(tt.kind === 'template' && tt.withs?.[1]?.length).toBe(1);
  });

  it('rejects assignments and negation inside templates', () => {
    expect(() => parseTerm('$"{x := 1}"')).toThrow(/assignment/);
    expect(() => parseTerm('$"{not x}"')).toThrow(/negation/);
  });
});
