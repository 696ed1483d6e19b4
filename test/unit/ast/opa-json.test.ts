// moduleToJSON / bodyToJSON / termToJSON against the JSON OPA produces for the same
// source. Expected strings are taken from OPA's v1/ast/marshal_test.go (rule, head,
// expr, every, with, package, import, ref-head cases) and OPA's term encoding
// (null as {}, sorted objects/sets, operators as refs, `$N` wildcards).
import { describe, it, expect } from 'vitest';
import { parseModule, parseQuery, parseTerm } from '../../../compiler/parser/index.js';
import { bodyToJSON, moduleToJSON, stringifyOpaJSON, termToJSON, termToValue } from '../../../compiler/index.js';
import { RObject, RSet } from '../../../runtime/value/collections.js';

const compact = (x: unknown) => stringifyOpaJSON(x, '');
const mod = (src: string, file = 'example.rego', v0 = false) => parseModule(src, file, { v0Compatible: v0 });
const term = (src: string) => compact(termToJSON(parseTerm(src)));
const ALLOW = '\n\tpackage foo\n\n\t# comment\n\n\tallow if { true }\n\t';

describe('OPA JSON AST: rules and heads (marshal_test.go)', () => {
  it('rule without locations', () => {
    const j = moduleToJSON(mod(ALLOW));
    expect(compact((j.rules as unknown[])[0])).toBe(
      '{"body":[{"index":0,"terms":{"type":"boolean","value":true}}],"head":{"name":"allow","value":{"type":"boolean","value":true},"ref":[{"type":"var","value":"allow"}]}}',
    );
  });

  it('rule, head and expr locations', () => {
    const r = (moduleToJSON(mod(ALLOW), { locations: true }).rules as Record<string, unknown>[])[0]!;
    expect(r.location).toEqual({ file: 'example.rego', row: 6, col: 2 });
    expect((r.head as Record<string, unknown>).location).toEqual({ file: 'example.rego', row: 6, col: 2 });
    expect((r.body as Record<string, unknown>[])[0]!.location).toEqual({ file: 'example.rego', row: 6, col: 13 });
  });

  it('package and comments', () => {
    const j = moduleToJSON(mod(ALLOW));
    expect(compact(j.package)).toBe('{"path":[{"type":"var","value":"data"},{"type":"string","value":"foo"}]}');
    expect(j.comments).toEqual([{ Text: 'IGNvbW1lbnQ=', Location: { file: 'example.rego', row: 4, col: 2 } }]);
    expect(moduleToJSON(mod(ALLOW), { comments: false }).comments).toBeUndefined();
    expect(Object.keys(j)).toEqual(['package', 'rules', 'comments']);
  });

  it('ref head with a multi-value key (TestRuleHeadRefWithTermLocations)', () => {
    const src = 'package test\n\nimport rego.v1\n\nref.head[rule].test contains "value" if {\n\trule := "rule"\n}';
    const j = moduleToJSON(mod(src, 'test.rego'), { locations: true });
    const head = (j.rules as Record<string, unknown>[])[0]!.head;
    expect(compact(head)).toBe(
      '{"key":{"location":{"file":"test.rego","row":5,"col":30},"type":"string","value":"value"},"ref":[{"location":{"file":"test.rego","row":5,"col":1},"type":"var","value":"ref"},{"location":{"file":"test.rego","row":5,"col":5},"type":"string","value":"head"},{"location":{"file":"test.rego","row":5,"col":10},"type":"var","value":"rule"},{"location":{"file":"test.rego","row":5,"col":16},"type":"string","value":"test"}],"location":{"file":"test.rego","row":5,"col":1}}',
    );
    expect(compact(moduleToJSON(mod(src)).imports)).toBe('[{"path":{"type":"ref","value":[{"type":"var","value":"rego"},{"type":"string","value":"v1"}]}}]');
  });

  it('functions, assignments, defaults and else chains', () => {
    const src = 'package p\n\ndefault d := 1\n\nf(x) := 2 if { x > 0 } else := 3\n\ns contains 1';
    const rules = moduleToJSON(mod(src)).rules as Record<string, unknown>[];
    expect(compact(rules[0])).toBe(
      '{"body":[{"index":0,"terms":{"type":"boolean","value":true}}],"default":true,"head":{"name":"d","value":{"type":"number","value":1},"assign":true,"ref":[{"type":"var","value":"d"}]}}',
    );
    const f = rules[1]!;
    expect(compact((f.head as Record<string, unknown>).args)).toBe('[{"type":"var","value":"x"}]');
    const els = f.else as Record<string, unknown>;
    expect(compact(els.head)).toBe(
      '{"name":"f","args":[{"type":"var","value":"x"}],"value":{"type":"number","value":3},"assign":true,"ref":[{"type":"var","value":"f"}]}',
    );
    expect(compact(rules[2]!.head)).toBe('{"name":"s","key":{"type":"number","value":1},"ref":[{"type":"var","value":"s"}]}');
  });

  it('v0 partial object rules keep the key', () => {
    const rules = moduleToJSON(mod('package p\np[k] = v { k := "a"; v := 1 }', 'x.rego', true)).rules as Record<string, unknown>[];
    const head = rules[0]!.head as Record<string, unknown>;
    expect(head.name).toBe('p');
    expect(compact(head.key)).toBe('{"type":"var","value":"k"}');
    expect((head.ref as unknown[]).length).toBe(2);
  });
});

describe('OPA JSON AST: expressions', () => {
  it('every (TestEvery_MarshalJSON)', () => {
    const src = '\npackage foo\n\nallow if {\n\tevery e in [1,2,3] {\n\t\te == 1\n    }\n}\n';
    const rule = (moduleToJSON(mod(src)).rules as Record<string, unknown>[])[0]!;
    expect(compact((rule.body as Record<string, unknown>[])[0]!.terms)).toBe(
      '{"body":[{"index":0,"terms":[{"type":"ref","value":[{"type":"var","value":"equal"}]},{"type":"var","value":"e"},{"type":"number","value":1}]}],"domain":{"type":"array","value":[{"type":"number","value":1},{"type":"number","value":2},{"type":"number","value":3}]},"key":null,"value":{"type":"var","value":"e"}}',
    );
    const withLoc = (moduleToJSON(mod(src), { locations: true }).rules as Record<string, unknown>[])[0]!;
    const every = (withLoc.body as Record<string, unknown>[])[0]!.terms as Record<string, unknown>;
    expect(every.location).toEqual({ file: 'example.rego', row: 5, col: 2 });
  });

  it('with (TestWith_MarshalJSON)', () => {
    const src = '\npackage foo\n\na if {input}\n\nb if {\n\ta with input as 1\n}\n';
    const rule = (moduleToJSON(mod(src), { locations: true }).rules as Record<string, unknown>[])[1]!;
    const w = ((rule.body as Record<string, unknown>[])[0]!.with as Record<string, unknown>[])[0]!;
    expect(w.location).toEqual({ file: 'example.rego', row: 7, col: 4 });
    const plain = (moduleToJSON(mod(src)).rules as Record<string, unknown>[])[1]!;
    expect(compact((plain.body as Record<string, unknown>[])[0]!.with)).toBe(
      '[{"target":{"type":"ref","value":[{"type":"var","value":"input"}]},"value":{"type":"number","value":1}}]',
    );
  });

  it('operators are calls with OPA builtin names', () => {
    const b = bodyToJSON(parseQuery('x == y; x := 1; x = 2; not x != 3; z := 1 + 2 * 3'));
    const ops = b.map((e) => ((e.terms as Record<string, unknown>[])[0]!.value as Record<string, unknown>[])[0]!.value);
    expect(ops).toEqual(['equal', 'assign', 'eq', 'neq', 'assign']);
    expect(b[3]!.negated).toBe(true);
    expect(b.map((e) => e.index)).toEqual([0, 1, 2, 3, 4]);
    expect(compact((b[4]!.terms as unknown[])[2])).toBe(
      '{"type":"call","value":[{"type":"ref","value":[{"type":"var","value":"plus"}]},{"type":"number","value":1},{"type":"call","value":[{"type":"ref","value":[{"type":"var","value":"mul"}]},{"type":"number","value":2},{"type":"number","value":3}]}]}',
    );
  });

  it('some declarations and some-in', () => {
    const b = bodyToJSON(parseQuery('some x; some k, v in input.xs; x in [1]'));
    expect(compact(b[0]!.terms)).toBe('{"symbols":[{"type":"var","value":"x"}]}');
    expect(compact(b[1]!.terms)).toBe(
      '{"symbols":[{"type":"call","value":[{"type":"ref","value":[{"type":"var","value":"internal"},{"type":"string","value":"member_3"}]},{"type":"var","value":"k"},{"type":"var","value":"v"},{"type":"ref","value":[{"type":"var","value":"input"},{"type":"string","value":"xs"}]}]}]}',
    );
    expect(compact((b[2]!.terms as unknown[])[0])).toBe('{"type":"ref","value":[{"type":"var","value":"internal"},{"type":"string","value":"member_2"}]}');
  });

  it('builtin calls with dotted names', () => {
    const b = bodyToJSON(parseQuery('io.jwt.decode(t, x)'));
    expect(compact((b[0]!.terms as unknown[])[0])).toBe(
      '{"type":"ref","value":[{"type":"var","value":"io"},{"type":"string","value":"jwt"},{"type":"string","value":"decode"}]}',
    );
  });

  it('wildcards print as $N', () => {
    const b = bodyToJSON(parseQuery('_ = 1; input[_] = 2'));
    expect(compact((b[0]!.terms as unknown[])[1])).toBe('{"type":"var","value":"$0"}');
  });
});

describe('OPA JSON AST: terms', () => {
  it('scalars; null is {} and numbers keep their text', () => {
    expect(term('null')).toBe('{"type":"null","value":{}}');
    expect(term('true')).toBe('{"type":"boolean","value":true}');
    expect(term('"a"')).toBe('{"type":"string","value":"a"}');
    expect(term('1.50')).toBe('{"type":"number","value":1.50}');
    expect(term('1e3')).toBe('{"type":"number","value":1e3}');
    expect(term('12345678901234567890123')).toBe('{"type":"number","value":12345678901234567890123}');
  });

  it('objects and sets are sorted in OPA term order', () => {
    expect(term('{"b": 1, "a": 2}')).toBe(
      '{"type":"object","value":[[{"type":"string","value":"a"},{"type":"number","value":2}],[{"type":"string","value":"b"},{"type":"number","value":1}]]}',
    );
    expect(term('{3, "x", 1, null}')).toBe(
      '{"type":"set","value":[{"type":"null","value":{}},{"type":"number","value":1},{"type":"number","value":3},{"type":"string","value":"x"}]}',
    );
  });

  it('comprehensions', () => {
    expect(term('[x | x := 1]')).toBe(
      '{"type":"arraycomprehension","value":{"term":{"type":"var","value":"x"},"body":[{"index":0,"terms":[{"type":"ref","value":[{"type":"var","value":"assign"}]},{"type":"var","value":"x"},{"type":"number","value":1}]}]}}',
    );
    expect(JSON.parse(term('{k: 1 | k := 2}')).type).toBe('objectcomprehension');
    expect(Object.keys(JSON.parse(term('{k: 1 | k := 2}')).value)).toEqual(['key', 'value', 'body']);
    expect(JSON.parse(term('{k | k := 2}')).type).toBe('setcomprehension');
  });

  it('refs and nested calls', () => {
    expect(term('data.a[x].b')).toBe(
      '{"type":"ref","value":[{"type":"var","value":"data"},{"type":"string","value":"a"},{"type":"var","value":"x"},{"type":"string","value":"b"}]}',
    );
    expect(term('count(x)')).toBe('{"type":"call","value":[{"type":"ref","value":[{"type":"var","value":"count"}]},{"type":"var","value":"x"}]}');
  });

  it('template strings', () => {
    const j = JSON.parse(term('$"a{x}b"'));
    expect(j.type).toBe('templatestring');
    expect(j.value).toEqual({
      parts: [{ type: 'string', value: 'a' }, { index: 0, terms: { type: 'var', value: 'x' } }, { type: 'string', value: 'b' }],
      multi_line: false,
    });
    expect(JSON.parse(term('$`a{x}`')).value.multi_line).toBe(true);
  });
});

describe('termToValue', () => {
  it('converts ground terms', () => {
    expect(termToValue(parseTerm('[1, "a", null, true]'))).toEqual([1, 'a', null, true]);
    const o = termToValue(parseTerm('{"a": {1, 2}}'));
    expect(o).toBeInstanceOf(RObject);
    expect((o as RObject).get('a')).toBeInstanceOf(RSet);
    expect(((o as RObject).get('a') as RSet).size).toBe(2);
    expect(() => termToValue(parseTerm('x'))).toThrow();
  });
});
