// Parse errors as OPA reports them (code, message, location) and the parser's
// limits on nesting and input size.
import { describe, it, expect } from 'vitest';
import { parseModule, parseQuery, parseTerm } from '../../../compiler/parser/index.js';
import { RegoErrors } from '../../../compiler/source/diagnostics.js';
import { MAX_INPUT_BYTES } from '../../../compiler/source/limits.js';
import { errorsOf, mod } from './helpers.js';

describe('parse errors', () => {
  it('reports OPA-style messages with row and column', () => {
    expect(errorsOf(() => mod('package p\n\np := '))).toEqual([
      { message: 'unexpected eof token: expected rule value term (e.g., p := <VALUE> { ... })', row: 3, col: 6, code: 'rego_parse_error' },
    ]);
    expect(errorsOf(() => parseQuery('x := [1, 2'))[0]).toMatchObject({ message: 'unexpected eof token: expected "," or "]"', row: 1, col: 11 });
    expect(errorsOf(() => parseQuery('x :=\n  := 1'))[0]).toMatchObject({ message: 'unexpected assign token', row: 2, col: 3 });
    expect(errorsOf(() => parseQuery('f(x'))[0]!.message).toBe('unexpected eof token: expected "," or ")"');
    expect(errorsOf(() => parseQuery('x := {1: 2'))[0]!.message).toBe('unexpected eof token: non-terminated object');
    expect(errorsOf(() => parseQuery('x := (1 + 2'))[0]!.message).toBe('non-terminated expression');
    expect(errorsOf(() => parseQuery('a.'))[0]!.message).toBe('unexpected eof token: expected identifier');
    expect(errorsOf(() => parseQuery('x := 01'))[0]!.message).toBe('unexpected number token: expected number without leading zero');
    expect(errorsOf(() => parseQuery('x := 1e99999'))[0]!.message).toBe('number too big');
  });

  it('labels keyword tokens as keywords', () => {
    expect(errorsOf(() => parseQuery('x := if'))[0]!.message).toBe('unexpected if keyword');
  });

  it('reports empty bodies and queries', () => {
    expect(errorsOf(() => mod('package p\np if {}'))[0]!.message).toBe('found empty body');
    expect(errorsOf(() => parseQuery('  '))[0]!.message).toBe('empty query');
    expect(errorsOf(() => parseQuery('[x | ]'))[0]!.message).toMatch(/unexpected/);
  });

  it('reports lexer errors with locations', () => {
    expect(errorsOf(() => parseQuery('x := "abc'))[0]).toMatchObject({ message: 'non-terminated string', row: 1, col: 6 });
    expect(errorsOf(() => mod('package p\nq := `abc'))[0]).toMatchObject({ message: 'non-terminated raw string', row: 2, col: 6 });
    expect(errorsOf(() => parseQuery('x := 1 ^ 2'))[0]).toMatchObject({ message: 'illegal token', col: 8 });
  });

  it('carries the file name in locations', () => {
    try {
      parseModule('package p\np := [', 'policy.rego');
    } catch (e) {
      expect(e).toBeInstanceOf(RegoErrors);
      expect((e as RegoErrors).errors[0]!.location?.file).toBe('policy.rego');
      expect(String((e as RegoErrors).errors[0])).toMatch(/^policy\.rego:2: rego_parse_error: /);
    }
  });

  it('parseTerm rejects trailing garbage', () => {
    expect(() => parseTerm('1 2')).toThrow(RegoErrors);
  });

  it('never throws anything but RegoErrors on random input', () => {
    const alphabet = ['{', '}', '[', ']', '(', ')', '"', '`', '$"', '|', ':=', '=', 'x', '1', ' ', '\n', '.', ',', ';', 'if', 'else',
      'some', 'every', 'in', 'not', 'with', 'as', '#', '-', '_', 'default', 'contains', '\\', '{{', 'package', 'import'];
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let i = 0; i < 3000; i++) {
      let s = '';
      const n = Math.floor(rand() * 30);
      for (let j = 0; j < n; j++) s += alphabet[Math.floor(rand() * alphabet.length)];
      for (const fn of [() => parseQuery(s), () => parseTerm(s), () => parseModule('package p\n' + s, 'f')]) {
        try {
          fn();
        } catch (e) {
          if (!(e instanceof RegoErrors)) throw new Error(`untyped error for ${JSON.stringify(s)}: ${String(e)}`);
          for (const err of e.errors) expect(err.location?.row).toBeGreaterThan(0);
        }
      }
    }
  });
});

describe('limits', () => {
  it('rejects 100k nested brackets without crashing', () => {
    const errs = errorsOf(() => parseTerm('['.repeat(100000)));
    expect(errs[0]!.message).toMatch(/max nesting depth/);
    expect(errs[0]!.row).toBe(1);
    expect(errorsOf(() => parseQuery('x := ' + '{'.repeat(100000)))[0]!.message).toMatch(/max nesting depth/);
    expect(errorsOf(() => parseQuery('x := ' + '('.repeat(100000)))[0]!.message).toMatch(/max nesting depth/);
    expect(errorsOf(() => parseQuery('x := ' + '$"{'.repeat(20000)))[0]!.message).toMatch(/max nesting depth/);
  });

  it('parses moderately deep nesting', () => {
    expect(parseTerm('['.repeat(500) + ']'.repeat(500)).kind).toBe('array');
  });

  it('stays fast on nested failing comprehensions', () => {
    const start = Date.now();
    expect(() => parseQuery('x := ' + '[a | '.repeat(2000))).toThrow(RegoErrors);
    expect(() => parseQuery('x := ' + '[a | b, '.repeat(500))).toThrow(RegoErrors);
    expect(Date.now() - start).toBeLessThan(5000);
  });

  it('handles very long inputs', () => {
    const src = 'package p\n' + 'p contains x if { x := 1 }\n'.repeat(20000);
    expect(mod(src).rules.length).toBe(20000);
    // Long operator chains and refs parse without recursion, then the expression
    // depth limit (MAX_EXPR_DEPTH) rejects them with a located error.
    expect(parseQuery('x := ' + '1 + '.repeat(400) + '1').length).toBe(1);
    expect(errorsOf(() => parseQuery('x := ' + '1 + '.repeat(50000) + '1'))[0]!.message).toMatch(/max expression depth \d+ exceeded/);
    expect(errorsOf(() => parseQuery('x := a' + '.b'.repeat(50000)))[0]).toMatchObject({ code: 'rego_parse_error', row: 1, col: 6 });
    expect(parseTerm('"' + 'a'.repeat(1_000_000) + '"').kind).toBe('string');
  });

  it('rejects inputs beyond the size limit', () => {
    expect(errorsOf(() => parseQuery(' '.repeat(MAX_INPUT_BYTES + 1)))[0]!.message).toMatch(/input too large/);
  });
});
