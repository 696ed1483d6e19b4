// Go's encoding/json messages (runtime/value/go-json.ts): one row per message kind,
// with the exact text OPA gives — json.Decoder.Decode for request bodies,
// util.UnmarshalJSON for the GET input parameter and json.unmarshal, json.Valid for
// json.is_valid.
import { describe, expect, it } from 'vitest';
import { goJSONCheckValid, goJSONDecode, goJSONError, goJSONValid } from '../../../runtime/index.js';
import { quoteChar } from '../../../runtime/value/go-json-scanner.js';

describe('goJSONError (json.Decoder.Decode, request bodies)', () => {
  const cases: [string, string][] = [
    // io.EOF and io.ErrUnexpectedEOF
    ['', 'EOF'],
    [' \t\r\n', 'EOF'],
    ['{', 'unexpected EOF'],
    ['[', 'unexpected EOF'],
    ['{"input": ', 'unexpected EOF'],
    ['{"a"', 'unexpected EOF'],
    ['"abc', 'unexpected EOF'],
    ['"a\\', 'unexpected EOF'],
    ['"\\u12', 'unexpected EOF'],
    ['tru', 'unexpected EOF'],
    ['nul', 'unexpected EOF'],
    ['-', 'unexpected EOF'],
    ['1.', 'unexpected EOF'],
    ['1e', 'unexpected EOF'],
    ['1e+', 'unexpected EOF'],
    // stateBeginValue
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{"input": x}', "invalid character 'x' looking for beginning of value"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{"a":}', "invalid character '}' looking for beginning of value"],
    ['+1', "invalid character '+' looking for beginning of value"],
    ['.5', "invalid character '.' looking for beginning of value"],
    ['NaN', "invalid character 'N' looking for beginning of value"],
    // stateBeginString / stateBeginStringOrEmpty
    ['{1: 2}', "invalid character '1' looking for beginning of object key string"],
    ['{"a": 1,}', "invalid character '}' looking for beginning of object key string"],
    ['{,}', "invalid character ',' looking for beginning of object key string"],
    ["{'a': 1}", "invalid character '\\'' looking for beginning of object key string"],
    // stateEndValue
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a"}', "invalid character '}' after object key"],
    ['{"a": 1 "b": 2}', `invalid character '"' after object key:value pair`],
    ['{"a": 1]', "invalid character ']' after object key:value pair"],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1}', "invalid character '}' after array element"],
    ['[01]', "invalid character '1' after array element"],
    // literals
    ['trux', "invalid character 'x' in literal true (expecting 'e')"],
    ['tx', "invalid character 'x' in literal true (expecting 'r')"],
    ['trx', "invalid character 'x' in literal true (expecting 'u')"],
    ['fx', "invalid character 'x' in literal false (expecting 'a')"],
    ['falsy', "invalid character 'y' in literal false (expecting 'e')"],
    ['nil', "invalid character 'i' in literal null (expecting 'u')"],
    ['[nulx]', "invalid character 'x' in literal null (expecting 'l')"],
    ['True', "invalid character 'T' looking for beginning of value"],
    // strings
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ['"\u0001"', "invalid character '\\x01' in string literal"],
    ['"\\x41"', "invalid character 'x' in string escape code"],
    ["\"\\'\"", "invalid character '\\'' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['"\\uZ"', "invalid character 'Z' in \\u hexadecimal character escape"],
    // numbers
    ['-x', "invalid character 'x' in numeric literal"],
    ['[-]', "invalid character ']' in numeric literal"],
    ['1.x', "invalid character 'x' after decimal point in numeric literal"],
    ['[1.]', "invalid character ']' after decimal point in numeric literal"],
    ['1ex', "invalid character 'x' in exponent of numeric literal"],
    ['1e+]', "invalid character ']' in exponent of numeric literal"],
    // bytes beyond ASCII are quoted as the rune of their first byte
    ['é', "invalid character 'Ã' looking for beginning of value"],
    ['\u00a0{}', "invalid character 'Â' looking for beginning of value"],
    ['\uFEFF{}', "invalid character 'ï' looking for beginning of value"],
    ['{"a": “b”}', "invalid character 'â' looking for beginning of value"],
    ['\u007f', "invalid character '\\x7f' looking for beginning of value"],
    ['\\', "invalid character '\\\\' looking for beginning of value"],
    ['\f{}', "invalid character '\\f' looking for beginning of value"],
    ['\v', "invalid character '\\v' looking for beginning of value"],
    // the scanner's nesting limit (10000)
    ['['.repeat(10001), "invalid character '[' exceeded max depth"],
    ['{"a":'.repeat(10000) + '{', "invalid character '{' exceeded max depth"],
  ];
  it.each(cases)('%j → %s', (text, message) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(goJSONError(text)).toBe(message);
  });

  it('accepts, like the Decoder, a first value followed by anything', () => {
    expect(goJSONDecode('{"input": 1} trailing junk')).toEqual({ ok: true, end: 12 });
    expect(goJSONDecode('{"input": 1}{"input": 2}')).toEqual({ ok: true, end: 12 });
    expect(goJSONDecode(' [1] x')).toEqual({ ok: true, end: 4 });
    expect(goJSONDecode('01')).toEqual({ ok: true, end: 1 });
    expect(goJSONDecode('1x')).toEqual({ ok: true, end: 1 });
    expect(goJSONDecode('"a"b')).toEqual({ ok: true, end: 3 });
    expect(goJSONDecode('{"é": "😀"} x')).toEqual({ ok: true, end: 11 }); // UTF-16 units
    expect(goJSONError('{} x')).toBe('');
    expect(goJSONDecode('['.repeat(10000) + ']'.repeat(10000)).ok).toBe(true);
  });
});

describe("goJSONError(text, 'unmarshal') (util.UnmarshalJSON, the GET input parameter)", () => {
  const cases: [string, string][] = [
    ['', 'EOF'],
    ['{"a"', 'unexpected EOF'],
    ['{x}', "invalid character 'x' looking for beginning of object key string"],
    // decoder.Token() after the value: a token is printed with %s …
    ['1 2', "error: invalid character '2' after top-level value"],
    ['01', "error: invalid character '1' after top-level value"],
    ['{} 1.5e3', "error: invalid character '1.5e3' after top-level value"],
    ['{}"ab"', "error: invalid character 'ab' after top-level value"],
    ['{} "\\u00e9\\n"', "error: invalid character 'é\n' after top-level value"],
    ['{} "\\ud800"', "error: invalid character '\uFFFD' after top-level value"],
    ['{} true', "error: invalid character '%!s(bool=true)' after top-level value"],
    ['[] false', "error: invalid character '%!s(bool=false)' after top-level value"],
    ['{} {}', "error: invalid character '{' after top-level value"],
    ['{} [', "error: invalid character '[' after top-level value"],
    // … a delimiter that cannot start a value is Decoder.tokenError …
    ['{} ]', "invalid character ']' looking for beginning of value"],
    ['{}}', "invalid character '}' looking for beginning of value"],
    ['{} :', "invalid character ':' looking for beginning of value"],
    ['{} ,', "invalid character ',' looking for beginning of value"],
    // … and anything else is decoded, with the scanner's error.
    ['{} x', "invalid character 'x' looking for beginning of value"],
    ['1x', "invalid character 'x' looking for beginning of value"],
    ['{} tx', "invalid character 'x' in literal true (expecting 'r')"],
    ['{} "a', 'unexpected EOF'],
    ['{} -', 'unexpected EOF'],
  ];
  it.each(cases)('%j → %s', (text, message) => {
    expect(goJSONError(text, 'unmarshal')).toBe(message);
  });

  it('accepts a trailing null token (Token returns nil, nil)', () => {
    expect(goJSONDecode('{"a": 1} null', 'unmarshal')).toEqual({ ok: true, end: 8 });
    expect(goJSONDecode('{"a": 1} \n', 'unmarshal')).toEqual({ ok: true, end: 8 });
  });
});

describe('quoteChar (strconv.Quote of the byte as a rune)', () => {
  it.each([
    [0x27, "'\\''"],
    [0x22, `'"'`],
    [0x5c, "'\\\\'"],
    [0x00, "'\\x00'"],
    [0x07, "'\\a'"],
    [0x08, "'\\b'"],
    [0x0d, "'\\r'"],
    [0x1f, "'\\x1f'"],
    [0x7f, "'\\x7f'"],
    [0x85, "'\\u0085'"],
    [0xa0, "'\\u00a0'"],
    [0xad, "'\\u00ad'"],
    [0xc3, "'Ã'"],
    [0xff, "'ÿ'"],
  ])('%i → %s', (c, quoted) => {
    expect(quoteChar(c)).toBe(quoted);
  });
});

describe('goJSONCheckValid / goJSONValid (json.Valid, the checkValid of json.Unmarshal)', () => {
  const invalid: [string, string][] = [
    ['', 'unexpected end of JSON input'],
    [' \n', 'unexpected end of JSON input'],
    ['{"a": [1', 'unexpected end of JSON input'],
    // eof() feeds a space, and a half-read number complains about it
    ['-', "invalid character ' ' in numeric literal"],
    ['1.', "invalid character ' ' after decimal point in numeric literal"],
    ['1e', "invalid character ' ' in exponent of numeric literal"],
    ['plainstring', "invalid character 'p' looking for beginning of value"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['é', "invalid character 'Ã' looking for beginning of value"],
    // unlike the Decoder, the whole text must be one value
    ['1x', "invalid character 'x' after top-level value"],
    ['01', "invalid character '1' after top-level value"],
    ['1 2', "invalid character '2' after top-level value"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['{"a": 1} null', "invalid character 'n' after top-level value"],
    ['['.repeat(10001), "invalid character '[' exceeded max depth"],
  ];
  it.each(invalid)('%j → %s', (text, message) => {
    expect(goJSONCheckValid(text)).toBe(message);
    expect(goJSONValid(text)).toBe(false);
  });

  it.each(['1', ' 0 ', '-1.5e+3', '"a\\u00e9\\n"', 'null', ' {"a": [1, true, null, {}], "é": "😀"} \n', '['.repeat(10000) + ']'.repeat(10000)])(
    'accepts %j',
    (text) => {
      expect(goJSONCheckValid(text)).toBeUndefined();
      expect(goJSONValid(text)).toBe(true);
    },
  );
});
