// The printer behind `regent fmt` (compiler/ast/print.ts): canonical output for
// terms, bodies and modules, and printing as a fixed point of parsing.
import { describe, it, expect } from 'vitest';
import { formatBody, formatModule, formatTerm } from '../../../compiler/ast/print.js';
import { parseModule, parseQuery, parseTerm } from '../../../compiler/parser/index.js';
import { mod, strip } from './helpers.js';

const fmt = (src: string, v0 = false) => formatModule(mod(src, v0));

describe('printer', () => {
  it('prints canonical v1 with tabs, if and contains', () => {
    expect(fmt('package a.b\nimport data.x as y\np[x] { x = 1 }\nq { true }\ndefault r = false', true)).toBe(
      'package a.b\n\nimport data.x as y\n\np contains x if {\n\tx = 1\n}\n\nq if {\n\ttrue\n}\n\ndefault r = false\n',
    );
  });

  it('prints else chains, functions and ref heads', () => {
    const src = 'package p\n\nf(x) := 1 if {\n\tx > 0\n} else := 2 if {\n\tx < 0\n} else := 3\n\na.b[k].c contains v if {\n\tsome k, v in input\n}\n';
    expect(fmt(src)).toBe(src);
  });

  it('prints operators with minimal parentheses', () => {
    const cases = ['(1 + 2) * 3', '1 + 2 * 3', 'a - (b - c)', 'a - b - c', 'x | y & z', '(x | y) & z', 'x in a == b', '(x in a) == b',
      '[(a | b), c]', '(k, v in o) == true', 'f((k, v in o))'];
    for (const c of cases) expect(formatBody(parseQuery(`x := ${c}`))).toBe(`x := ${c}`);
    expect(formatBody(parseQuery('x := ((1 + 2))'))).toBe('x := 1 + 2');
  });

  it('round-trips terms', () => {
    for (const src of ['{1, 2}', 'set()', '{}', '[x | some x in xs]', '{k: v | some k, v in o}', '{"a": [1, {2}]}', '`raw`',
      '"esc\\n\\"q"', 'f(x).y[0]', '[1, 2][0]', '$"a\\{b{x + 1}c"', 'data.foo["a-b"].in', '-1.5e3', 'io.jwt.decode(t)']) {
      expect(formatTerm(parseTerm(src))).toBe(src);
    }
  });

  it('preserves comments in place', () => {
    const src = '# head\npackage p\n\n# about p\np if {\n\t# inside\n\tinput.x # trailing\n\tinput.y\n}\n\n# tail\n';
    expect(fmt(src)).toBe(src);
  });

  it('prints every and some-in bodies', () => {
    const src = 'package p\n\np if {\n\tevery k, v in input {\n\t\tv > k\n\t}\n\tsome x in [1]\n\tnot q with input as {"a": 1}\n}\n';
    expect(fmt(src)).toBe(src);
  });

  it('printing is idempotent and preserves the AST', () => {
    const src = 'package p\nimport future.keywords\nr[x] = y { x := 1; y := {z | z := [1,2][_]} }\nf(a, _) = b { b := a * -1 }\ns := $"x{1}"';
    const m1 = mod(src, true);
    const p1 = formatModule(m1);
    const m2 = parseModule(p1, 'test.rego');
    expect(formatModule(m2)).toBe(p1);
    expect(strip(m2.rules.map((r) => r.head))).toEqual(strip(m1.rules.map((r) => r.head)));
  });
});
