// Packages, imports and rule heads (complete, partial set/object, functions,
// defaults, else chains), and the Rego v1 checks on them.
import { describe, it, expect } from 'vitest';
import type { Rule, Term } from '../../../compiler/ast/nodes.js';
import { errorsOf, mod, strip, sx } from './helpers.js';
import type { RegoErrors } from '../../../compiler/source/diagnostics.js';

const rule = (src: string, v0 = false): Rule => mod(`package p\n${src}`, v0).rules[0]!;
const head = (r: Rule) => ({
  ref: r.head.ref.map(sx), args: r.head.args?.map(sx), key: r.head.key && sx(r.head.key),
  value: r.head.value && sx(r.head.value), assign: r.head.assign, contains: r.head.contains,
});

describe('package and imports', () => {
  it('parses dotted and bracketed package paths', () => {
    expect(mod('package a.b["c-d"]').package.path.map(sx)).toEqual(['data', '"a"', '"b"', '"c-d"']);
    expect(mod('package x').package.path.map(sx)).toEqual(['data', '"x"']);
  });

  it('parses imports', () => {
    const m = mod('package p\nimport rego.v1\nimport future.keywords\nimport future.keywords.in\nimport data.x.y\nimport data.x as y\nimport input.a');
    expect(m.imports.map((i) => [sx(i.path), i.alias])).toEqual([
      ['rego["v1"]', undefined], ['future["keywords"]', undefined], ['future["keywords"]["in"]', undefined],
      ['data["x"]["y"]', undefined], ['data["x"]', 'y'], ['input["a"]', undefined],
    ]);
    expect(m.regoVersion).toBe(1);
  });

  it('rejects bad imports', () => {
    expect(errorsOf(() => mod('package p\nimport foo.bar'))[0]!.message).toMatch(/must begin with one of/);
    expect(errorsOf(() => mod('package p\nimport future.keywords.foo'))[0]!.message).toMatch(/unexpected keyword, must be one of/);
    expect(errorsOf(() => mod('package p\nimport rego.v1 as x'))[0]!.message).toBe('`rego` imports cannot be aliased');
  });

  it('requires a package first', () => {
    expect(errorsOf(() => mod('p := 1'))[0]!.message).toBe('package expected');
    expect(errorsOf(() => mod(''))[0]!.message).toBe('empty module');
    expect(errorsOf(() => mod('package p\npackage q'))[0]!.message).toBe('unexpected package');
  });
});

describe('rule heads', () => {
  it('parses constants with := and =', () => {
    expect(head(rule('p := 1'))).toEqual({ ref: ['p'], value: '1', assign: true, contains: false });
    expect(head(rule('p = 1'))).toEqual({ ref: ['p'], value: '1', assign: false, contains: false });
    expect(rule('p := 1').body).toEqual([]);
  });

  it('parses boolean rules with bodies', () => {
    const r = rule('p if {\n\tinput.x\n\tinput.y\n}');
    expect(head(r)).toEqual({ ref: ['p'], assign: false, contains: false });
    expect(r.body.length).toBe(2);
  });

  it('parses single-expression if bodies', () => {
    const r = rule('p if input.x > 1');
    expect(r.body.map((e) => e.body.type === 'term' && sx(e.body.term))).toEqual(['gt(input["x"], 1)']);
    expect(rule('p if { x }').body.length).toBe(1);
    expect(rule('p if { x } \nq := 1').body[0]!.body.type).toBe('term');
  });

  it('parses multi-value rules', () => {
    expect(head(rule('p contains x if { some x in [1] }'))).toEqual({ ref: ['p'], key: 'x', assign: false, contains: true });
    expect(head(rule('p contains "a"'))).toEqual({ ref: ['p'], key: '"a"', assign: false, contains: true });
  });

  it('parses ref heads', () => {
    expect(head(rule('a.b.c := 1'))).toEqual({ ref: ['a', '"b"', '"c"'], value: '1', assign: true, contains: false });
    expect(head(rule('p[x] := y if { x := 1; y := 2 }'))).toEqual({ ref: ['p', 'x'], value: 'y', assign: true, contains: false });
    expect(head(rule('a.b[x] := y if { x := 1; y := 2 }'))).toEqual({ ref: ['a', '"b"', 'x'], value: 'y', assign: true, contains: false });
    expect(head(rule('a.b[x].c contains y if { x := 1; y := 2 }'))).toEqual({ ref: ['a', '"b"', 'x', '"c"'], key: 'y', assign: false, contains: true });
    expect(head(rule('p[x] if { x := 1 }'))).toEqual({ ref: ['p', 'x'], assign: false, contains: false });
  });

  it('parses functions', () => {
    expect(head(rule('f(x) := y if { y := x }'))).toEqual({ ref: ['f'], args: ['x'], value: 'y', assign: true, contains: false });
    expect(head(rule('f(x) if { x }'))).toEqual({ ref: ['f'], args: ['x'], assign: false, contains: false });
    expect(head(rule('f(x, y) := z'))).toEqual({ ref: ['f'], args: ['x', 'y'], value: 'z', assign: true, contains: false });
    expect(head(rule('a.b.f(x) := 1'))).toEqual({ ref: ['a', '"b"', '"f"'], args: ['x'], value: '1', assign: true, contains: false });
  });

  it('parses default rules', () => {
    const r = rule('default p := false');
    expect(r.default).toBe(true);
    expect(head(r)).toEqual({ ref: ['p'], value: 'false', assign: true, contains: false });
    expect(rule('default f(_) := 1').head.args?.length).toBe(1);
    expect(errorsOf(() => rule('default p := x'))[0]!.message).toBe('illegal default rule (value cannot contain var)');
    expect(errorsOf(() => rule('default p if { true }'))[0]!.message).toBe('illegal default rule (must have a value)');
  });

  it('parses else chains', () => {
    const r = rule('p := 1 if { input.a } else := 2 if { input.b } else = 3');
    expect(head(r.else!)).toEqual({ ref: ['p'], value: '2', assign: true, contains: false });
    expect(head(r.else!.else!)).toEqual({ ref: ['p'], value: '3', assign: false, contains: false });
    expect(r.else!.else!.body).toEqual([]);
    expect(r.else!.loc.col).toBe(23);
    const e2 = rule('f(x) := 1 if { x } else if { true }');
    expect(e2.else!.head.value).toBeUndefined();
    expect(e2.else!.head.args?.map(sx)).toEqual(['x']);
    const e3 = rule('p := 1 if x else := 2 if y');
    expect(e3.else!.body.length).toBe(1);
  });

  it('sets the rule location at the head start', () => {
    const m = mod('package p\n\n  q := 1\nr if {\n true\n}');
    expect(m.rules.map((r) => [r.loc.row, r.loc.col])).toEqual([[3, 3], [4, 1]]);
    expect(m.rules[0]!.head.loc).toEqual({ file: 'test.rego', row: 3, col: 3, offset: 13 });
  });

  it('accepts keywords in rule ref heads', () => {
    expect(head(rule('a.if := 1'))).toEqual({ ref: ['a', '"if"'], value: '1', assign: true, contains: false });
  });

  it('reads a name followed by an operator as a statement, as OPA (parser_ext.go ParseRuleFromExpr)', () => {
    expect(errorsOf(() => rule('p + 1'))[0]!.message).toBe('rule name conflicts with built-in function');
    expect(errorsOf(() => rule('x == 1'))[0]!.message).toBe('rule name conflicts with built-in function');
    expect(errorsOf(() => rule('count(x)'))[0]!.message).toBe('rule name conflicts with built-in function');
    expect(errorsOf(() => rule('x = 1 with input as 2'))[0]!.message).toBe('expressions using with keyword cannot be used for rule head');
    expect(errorsOf(() => rule('x = 1; y = 2'))[0]!.message).toBe('multiple expressions cannot be used for rule head');
    expect(errorsOf(() => rule('x; y'))[0]!.message).toBe('multiple expressions cannot be used for rule head');
    // These come from module assembly, so they carry no source line and caret.
    try {
      rule('x == 1');
    } catch (e) {
      expect((e as RegoErrors).errors[0]!.details).toBeUndefined();
    }
    // A default rule has no statement fallback.
    expect(errorsOf(() => rule('default p + 1'))[0]!.message).toBe('unexpected plus token');
  });

  it('rejects else on multi-value rules and lone vars', () => {
    expect(errorsOf(() => rule('p[x] := 1 if { x := 1 } else := 2'))[0]!.message).toBe('else keyword cannot be used on rules with variables in head');
    expect(errorsOf(() => rule('p'))[0]!.message).toBe('var cannot be used for rule name');
    expect(errorsOf(() => rule('1'))[0]!.message).toBe('number cannot be used for rule name');
  });
});

describe('rego v1 checks', () => {
  it('requires `if` before bodies', () => {
    const errs = errorsOf(() => mod('package p\n\np { true }'));
    expect(errs).toEqual([{ message: '`if` keyword is required before rule body', row: 3, col: 1, code: 'rego_parse_error' }]);
    expect(errorsOf(() => mod('package p\nf(x) = 1 { x }'))[0]!.message).toBe('`if` keyword is required before function body');
  });

  it('requires `contains` for partial sets (both errors reported)', () => {
    const errs = errorsOf(() => mod('package test\np[x] {\n\tx = "a"\n}'));
    expect(errs.map((e) => [e.message, e.row])).toEqual([
      ['`if` keyword is required before rule body', 2],
      ['`contains` keyword is required for partial set rules', 2],
    ]);
  });

  it('requires a value or a body for a bare ref head; a bare call is a function returning true', () => {
    // OPA's CheckRegoV1 (RequireRuleBodyOrValue): only a generated body and a generated value.
    expect(errorsOf(() => mod('package p\na.b.c'))[0]!.message).toBe('rule must have value assignment and/or body declaration');
    const f = mod('package p\nf(x)');
    expect(f.rules).toHaveLength(1);
    expect(f.rules[0]!.head.args).toHaveLength(1);
  });

  it('applies v1 checks to v0 modules importing rego.v1', () => {
    expect(errorsOf(() => mod('package p\nimport rego.v1\np { true }', true))[0]!.message).toBe('`if` keyword is required before rule body');
  });
});

describe('rego v0 compatibility', () => {
  it('parses v0 rules', () => {
    const m = mod('package p\np { true }\nq[x] { x = 1 }\nr[k] = v { k = 1; v = 2 }\nf(x) = y { y = x }\ns = 1 { true } { false }', true);
    expect(m.regoVersion).toBe(0);
    expect(m.rules.map(head)).toEqual([
      { ref: ['p'], assign: false, contains: false },
      { ref: ['q'], key: 'x', assign: false, contains: true },
      { ref: ['r', 'k'], value: 'v', assign: false, contains: false },
      { ref: ['f'], args: ['x'], value: 'y', assign: false, contains: false },
      { ref: ['s'], value: '1', assign: false, contains: false },
      { ref: ['s'], value: '1', assign: false, contains: false },
    ]);
  });

  it('treats future keywords as identifiers unless imported', () => {
    const m = mod('package p\nq := in\nr { contains(x, "a") }\ns := every.x', true);
    expect(m.rules[0]!.head.value && sx(m.rules[0]!.head.value)).toBe('in');
    expect(() => mod('package p\np { x in y }', true)).toThrow();
    const m2 = mod('package p\nimport future.keywords.in\np { x in y }', true);
    expect(m2.rules[0]!.body[0]!.body.type === 'term' && sx((m2.rules[0]!.body[0]!.body as { term: Term }).term)).toBe('internal["member_2"](x, y)');
    const m3 = mod('package p\nimport future.keywords\np contains x if { some x in [1] }', true);
    expect(m3.rules[0]!.head.contains).toBe(true);
  });

  it('reports v1-only syntax in v0 as OPA does', () => {
    expect(errorsOf(() => mod('package p\np contains x if { x = "a" }', true))[0]!.message).toBe('var cannot be used for rule name');
  });
});

describe('wildcards in heads', () => {
  it('numbers wildcards per parse', () => {
    const m = mod('package p\nf(_, _) := 1\ng(_) := 2');
    expect(strip(m.rules.map((r) => r.head.args))).toEqual([
      [{ kind: 'var', name: '$_0', wildcard: true }, { kind: 'var', name: '$_1', wildcard: true }],
      [{ kind: 'var', name: '$_2', wildcard: true }],
    ]);
  });
});
