// The lexer (compiler/lexer/lexer.ts): token kinds, positions, strings and raw
// strings, numbers, comments, and the errors it reports with their locations.
import { describe, it, expect } from 'vitest';
import { Lexer, ParseFailure } from '../../../compiler/lexer/lexer.js';
import { T, tokenName } from '../../../compiler/lexer/token-kinds.js';

function lex(src: string): { type: string; value: string; start: number; nl: boolean; ws: boolean }[] {
  const lx = new Lexer(src, 'f');
  const out = [];
  for (;;) {
    lx.next();
    out.push({ type: tokenName(lx.type), value: lx.value, start: lx.start, nl: lx.nlBefore, ws: lx.wsBefore });
    if (lx.type === T.EOF) return out;
  }
}
const kinds = (src: string) => lex(src).map((x) => x.type);

function failure(src: string): ParseFailure {
  try {
    lex(src);
  } catch (e) {
    if (e instanceof ParseFailure) return e;
    throw e;
  }
  throw new Error('expected lexer failure');
}

describe('lexer', () => {
  it('scans punctuation and two-char operators', () => {
    expect(kinds('[ ] { } ( ) , ; : . := = == != < <= > >= + - * / % & |')).toEqual([
      '[', ']', '{', '}', '(', ')', ',', ';', ':', '.', 'assign', 'eq', 'equal', 'neq', 'lt', 'lte', 'gt', 'gte',
      'plus', 'minus', 'mul', 'div', 'rem', 'and', 'or', 'eof',
    ]);
  });

  it('recognises keywords and identifiers', () => {
    expect(kinds('package import as default else not some with null true false if contains in every foo _x1'))
      .toEqual(['package', 'import', 'as', 'default', 'else', 'not', 'some', 'with', 'null', 'true', 'false', 'if',
        'contains', 'in', 'every', 'identifier', 'identifier', 'eof']);
  });

  it('scans numbers of every form', () => {
    const toks = lex('1 1.5 1e10 1.5E-3 123456789012345678901234567890 0.5');
    expect(toks.slice(0, -1).map((x) => [x.type, x.value])).toEqual([
      ['number', '1'], ['number', '1.5'], ['number', '1e10'], ['number', '1.5E-3'],
      ['number', '123456789012345678901234567890'], ['number', '0.5'],
    ]);
  });

  it('rejects malformed numbers', () => {
    expect(failure('1e').message).toBe('expected exponent');
    expect(failure('12abc').message).toBe('illegal number format');
  });

  it('decodes JSON string escapes including surrogate pairs', () => {
    const [s] = lex('"a\\n\\t\\"\\\\\\/\\u00e9\\ud83d\\ude00"');
    expect(s!.type).toBe('string');
    expect(s!.value).toBe('a\n\t"\\/é😀');
  });

  it('maps lone surrogates to U+FFFD', () => {
    expect(lex('"\\ud800x"')[0]!.value).toBe('\ufffdx');
  });

  it('reports bad strings with their location', () => {
    const f = failure('x := "abc\ny"');
    expect(f.message).toBe('non-terminated string');
    expect([f.location.row, f.location.col]).toEqual([1, 6]);
    expect(failure('"\\q"').message).toBe('illegal escape sequence');
  });

  it('scans raw strings across lines', () => {
    const [s] = lex('`a\\n\nb`');
    expect(s!.type).toBe('string');
    expect(s!.value).toBe('a\\n\nb');
  });

  it('collects comments and tracks newlines/whitespace', () => {
    const lx = new Lexer('a # one\r\n  b#two\nc', 'f');
    lx.next();
    lx.next();
    expect(lx.value).toBe('b');
    expect(lx.nlBefore).toBe(true);
    lx.next();
    expect(lx.nlBefore).toBe(true);
    expect(lx.comments.map((c) => c.text)).toEqual([' one', 'two']);
  });

  it('marks whitespace before tokens (significant for refs)', () => {
    const toks = lex('x[1] x [1]');
    expect(toks.map((x) => x.ws)).toEqual([false, false, false, false, true, true, false, false, false]);
  });

  it('computes row/col from offsets', () => {
    const lx = new Lexer('ab\ncd\n\nef', 'file.rego');
    expect(lx.loc(0)).toEqual({ file: 'file.rego', row: 1, col: 1, offset: 0 });
    expect(lx.loc(4)).toEqual({ file: 'file.rego', row: 2, col: 2, offset: 4 });
    expect(lx.loc(7)).toEqual({ file: 'file.rego', row: 4, col: 1, offset: 7 });
  });

  it('scans template chunks and continues after an expression', () => {
    const lx = new Lexer('$"a\\{b{x}c\\}"', 'f');
    lx.next();
    expect([lx.type, lx.value]).toEqual([T.TemplatePart, 'a{b']);
    lx.next();
    expect(lx.value).toBe('x');
    lx.next();
    expect(lx.type).toBe(T.RBrace);
    lx.continueTemplate(false);
    expect([lx.type, lx.value]).toEqual([T.TemplateEnd, 'c}']);
  });

  it('scans raw template strings', () => {
    const lx = new Lexer('$`a\n\\{b`', 'f');
    lx.next();
    expect([lx.type, lx.value, lx.raw]).toEqual([T.TemplateEnd, 'a\n{b', true]);
  });

  it('rejects illegal characters', () => {
    expect(failure('x ^ y').message).toBe('illegal token');
    expect(failure('!x').message).toBe('illegal ! character');
  });

  it('save/restore rewinds position and comments', () => {
    const lx = new Lexer('a # c\nb', 'f');
    lx.next();
    const s = lx.save();
    lx.next();
    expect(lx.comments.length).toBe(1);
    lx.restore(s);
    expect(lx.comments.length).toBe(0);
    expect(lx.value).toBe('a');
    lx.next();
    expect(lx.value).toBe('b');
  });
});
