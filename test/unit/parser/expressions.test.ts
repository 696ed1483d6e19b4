// Expressions and bodies: operator precedence as OPA parses it, literals, `with`,
// `not`, `some`/`every`, checked by printing the parsed body back.
import { describe, it, expect } from 'vitest';
import { parseQuery } from '../../../compiler/parser/index.js';
import { formatBody } from '../../../compiler/ast/print.js';
import { q, strip, sx } from './helpers.js';

describe('operator precedence (OPA parseTermIn > Relation > Or > And > Arith > Factor)', () => {
  it('desugars every operator to its builtin name', () => {
    expect(q('a + b')).toBe('plus(a, b)');
    expect(q('a - b')).toBe('minus(a, b)');
    expect(q('a * b')).toBe('mul(a, b)');
    expect(q('a / b')).toBe('div(a, b)');
    expect(q('a % b')).toBe('rem(a, b)');
    expect(q('a & b')).toBe('and(a, b)');
    expect(q('a | b')).toBe('or(a, b)');
    expect(q('a == b')).toBe('equal(a, b)');
    expect(q('a != b')).toBe('neq(a, b)');
    expect(q('a < b')).toBe('lt(a, b)');
    expect(q('a <= b')).toBe('lte(a, b)');
    expect(q('a > b')).toBe('gt(a, b)');
    expect(q('a >= b')).toBe('gte(a, b)');
    expect(q('a = b')).toBe('eq(a, b)');
    expect(q('a := b')).toBe('assign(a, b)');
    expect(q('a in b')).toBe('internal["member_2"](a, b)');
    expect(q('a, b in c')).toBe('internal["member_3"](a, b, c)');
  });

  it('binds factor over arith over and over or over relations over in', () => {
    expect(q('1 + 2 * 3')).toBe('plus(1, mul(2, 3))');
    expect(q('1 * 2 + 3')).toBe('plus(mul(1, 2), 3)');
    expect(q('a | b & c')).toBe('or(a, and(b, c))');
    expect(q('a & b + c')).toBe('and(a, plus(b, c))');
    expect(q('a + b == c | d')).toBe('equal(plus(a, b), or(c, d))');
    expect(q('x in a | b')).toBe('internal["member_2"](x, or(a, b))');
    expect(q('x == y in s')).toBe('internal["member_2"](equal(x, y), s)');
    expect(q('x := 1 + 2 * 3 == 7')).toBe('assign(x, equal(plus(1, mul(2, 3)), 7))');
  });

  it('is left associative', () => {
    expect(q('a - b - c')).toBe('minus(minus(a, b), c)');
    expect(q('a / b * c')).toBe('mul(div(a, b), c)');
    expect(q('a == b == c')).toBe('equal(equal(a, b), c)');
    expect(q('a in b in c')).toBe('internal["member_2"](internal["member_2"](a, b), c)');
  });

  it('honours parentheses', () => {
    expect(q('(1 + 2) * 3')).toBe('mul(plus(1, 2), 3)');
    expect(q('x := (k, v in obj)')).toBe('assign(x, internal["member_3"](k, v, obj))');
  });

  it('distinguishes negative literals from subtraction', () => {
    expect(q('x - 1')).toBe('minus(x, 1)');
    expect(q('x -1')).toBe('minus(x, 1)');
    expect(q('x := [-1, - 2]')).toBe('assign(x, [-1, -2])');
    expect(q('x * -1')).toBe('mul(x, -1)');
  });

  it('treats call arguments as full infix terms', () => {
    expect(q('f(a + 1, b in c)')).toBe('f(plus(a, 1), internal["member_2"](b, c))');
  });
});

describe('literals and bodies', () => {
  it('parses some declarations', () => {
    expect(strip(parseQuery('some x, y')[0]!.body)).toEqual({ type: 'some', vars: [{ kind: 'var', name: 'x' }, { kind: 'var', name: 'y' }] });
    expect(strip(parseQuery('some x in xs')[0]!.body)).toEqual({ type: 'somein', value: { kind: 'var', name: 'x' }, collection: { kind: 'var', name: 'xs' } });
    const kv = parseQuery('some k, v in obj')[0]!.body;
    expect(kv.type === 'somein' && [sx(kv.key!), sx(kv.value), sx(kv.collection)]).toEqual(['k', 'v', 'obj']);
    const pat = parseQuery('some [a, _] in xs')[0]!.body;
    expect(pat.type === 'somein' && pat.value.kind).toBe('array');
  });

  it('parses every', () => {
    const e = parseQuery('every k, v in xs { v > k; true }')[0]!.body;
    expect(e.type).toBe('every');
    if (e.type !== 'every') return;
    expect([e.key?.name, e.value.name, sx(e.domain), e.body.length]).toEqual(['k', 'v', 'xs', 2]);
    const e2 = parseQuery('every x in [1, 2] {\n x > 0\n}')[0]!.body;
    expect(e2.type === 'every' && e2.key).toBeUndefined();
  });

  it('parses not and with', () => {
    const [e] = parseQuery('not f(x) with input.x as 1 with data.y as {"a": 2}');
    expect(e!.negated).toBe(true);
    expect(e!.with.map((w) => [sx(w.target), sx(w.value)])).toEqual([['input["x"]', '1'], ['data["y"]', '{"a": 2}']]);
    expect(parseQuery('x with input as 1')[0]!.with[0]!.target.kind).toBe('ref');
  });

  it('separates literals by newlines or semicolons', () => {
    expect(parseQuery('a; b\nc\n\n  d').length).toBe(4);
    expect(() => parseQuery('a b')).toThrow(/expected \\n or ; or eof/);
  });

  it('records expression locations', () => {
    const body = parseQuery('x := 1\n  not y');
    expect(body.map((e) => [e.loc.row, e.loc.col])).toEqual([[1, 1], [2, 3]]);
  });

  it('formats queries back to text', () => {
    expect(formatBody(parseQuery('x := 1 + 2 * 3 == 7; k, v in obj; not f(x) with input as 1'))).toBe(
      'x := 1 + 2 * 3 == 7; k, v in obj; not f(x) with input as 1',
    );
  });

  it('rejects negated some/every', () => {
    expect(() => parseQuery('not some x')).toThrow(/illegal negation of 'some'/);
    expect(() => parseQuery('not every x in y { x }')).toThrow(/illegal negation of 'every'/);
  });

  it('requires every bodies and var bindings', () => {
    expect(() => parseQuery('every x in y')).toThrow(/missing body/);
    expect(() => parseQuery('every [x] in y { true }')).toThrow(/value to be a variable/);
    expect(() => parseQuery('some x == y')).toThrow(/expected `x in xs`/);
  });
});
