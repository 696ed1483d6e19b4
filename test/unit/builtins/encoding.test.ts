// Unit tests for the encoding builtins (encoding.ts), transcribed from OPA's
// base64builtins, base64urlbuiltins, hexbuiltins and urlbuiltins folders, plus
// Go's error offsets, UTF-8 handling and large inputs.
import { describe, it, expect } from 'vitest';
import { builtins } from '../../../runtime/builtins/encoding.js';
import { RObject, RSet, parseJSON, toJSONText, type Value } from '../../../runtime/value/index.js';
import { variadicCallerFor, builtinErrors } from './helpers.js';

const call = variadicCallerFor(builtins);
const err = builtinErrors(call);
const j = (s: string): Value => parseJSON(s);

describe('base64', () => {
  it('encodes and decodes (base64builtins)', () => {
    expect(call('base64.encode', 'hello')).toBe('aGVsbG8=');
    expect(call('base64.encode', 'there')).toBe('dGhlcmU=');
    expect(call('base64.decode', 'aGVsbG8=')).toBe('hello');
    expect(call('base64.encode', 'subjects?_d')).toBe('c3ViamVjdHM/X2Q=');
    expect(call('base64.decode', 'c3ViamVjdHM/X2Q=')).toBe('subjects?_d');
    expect(call('base64.encode', '')).toBe('');
    expect(call('base64.decode', '')).toBe('');
  });
  it('uses UTF-8 bytes', () => {
    expect(call('base64.encode', 'héllo 🎉')).toBe('aMOpbGxvIPCfjok=');
    expect(call('base64.decode', 'aMOpbGxvIPCfjok=')).toBe('héllo 🎉');
    expect(call('base64.decode', '/w==')).toBe('\ufffd');
  });
  it('ignores newlines like Go', () => {
    expect(call('base64.decode', 'aGVs\nbG8=\r\n')).toBe('hello');
  });
  it("reports Go's error offsets", () => {
    expect(err('base64.decode', 'aGVsbG8')).toBe('eval_builtin_error: base64.decode: illegal base64 data at input byte 4');
    expect(err('base64.decode', 'aGVs!G8=')).toBe('eval_builtin_error: base64.decode: illegal base64 data at input byte 4');
    expect(err('base64.decode', 'a')).toBe('eval_builtin_error: base64.decode: illegal base64 data at input byte 0');
    expect(err('base64.decode', 'aGVsbG8=x')).toBe('eval_builtin_error: base64.decode: illegal base64 data at input byte 8');
    expect(err('base64.decode', '=')).toBe('eval_builtin_error: base64.decode: illegal base64 data at input byte 0');
    expect(err('base64.decode', 'aG==a')).toBe('eval_builtin_error: base64.decode: illegal base64 data at input byte 4');
    expect(call('base64.decode', 'aGV=')).toBe('he'); // non-strict: trailing bits ignored
    expect(err('base64.decode', 'aGVsbG8-')).toBe('eval_builtin_error: base64.decode: illegal base64 data at input byte 7');
  });
  it('is_valid never errors', () => {
    expect(call('base64.is_valid', 'aGVsbG8=')).toBe(true);
    expect(call('base64.is_valid', 'aGVsbG8')).toBe(false);
    expect(call('base64.is_valid', '')).toBe(true);
    expect(call('base64.is_valid', 1)).toBe(false);
  });
  it('type errors', () => {
    expect(err('base64.encode', 1)).toBe('eval_type_error: base64.encode: operand 1 must be string but got number');
    expect(err('base64.decode', null)).toBe('eval_type_error: base64.decode: operand 1 must be string but got null');
  });
  it('round-trips large inputs', () => {
    const s = 'abc€'.repeat(50000);
    expect(call('base64.decode', call('base64.encode', s)!)).toBe(s);
  });
});

describe('base64url', () => {
  it('encodes and decodes (base64urlbuiltins)', () => {
    expect(call('base64url.encode', 'hello')).toBe('aGVsbG8=');
    expect(call('base64url.encode', 'there')).toBe('dGhlcmU=');
    expect(call('base64url.decode', 'aGVsbG8=')).toBe('hello');
    expect(call('base64url.decode', 'aGVsbG8')).toBe('hello');
    expect(call('base64url.encode_no_pad', 'hello')).toBe('aGVsbG8');
    expect(call('base64url.encode_no_pad', 'there')).toBe('dGhlcmU');
    expect(call('base64url.encode', 'subjects?_d')).toBe('c3ViamVjdHM_X2Q=');
    expect(call('base64url.decode', 'c3ViamVjdHM_X2Q')).toBe('subjects?_d');
  });
  it('errors', () => {
    expect(err('base64url.decode', 'aGVsb')).toBe('eval_builtin_error: base64url.decode: illegal base64url string: aGVsb');
    expect(err('base64url.decode', 'c3ViamVjdHM/X2Q=')).toBe('eval_builtin_error: base64url.decode: illegal base64 data at input byte 11');
  });
});

describe('hex', () => {
  it('encodes and decodes', () => {
    expect(call('hex.encode', 'lorem ipsum')).toBe('6c6f72656d20697073756d');
    expect(call('hex.decode', '6c6f72656d20697073756d')).toBe('lorem ipsum');
    expect(call('hex.decode', '6C6F')).toBe('lo');
    expect(call('hex.encode', 'é')).toBe('c3a9');
    expect(call('hex.encode', '')).toBe('');
  });
  it('errors (hexbuiltins)', () => {
    expect(err('hex.decode', 'fghijkl')).toBe("eval_builtin_error: hex.decode: encoding/hex: invalid byte: U+0067 'g'");
    expect(err('hex.decode', 'abc')).toBe('eval_builtin_error: hex.decode: encoding/hex: odd length hex string');
    expect(err('hex.decode', 'abz')).toBe("eval_builtin_error: hex.decode: encoding/hex: invalid byte: U+007A 'z'");
    expect(err('hex.decode', 'a\n')).toBe('eval_builtin_error: hex.decode: encoding/hex: invalid byte: U+000A');
  });
});

describe('urlquery', () => {
  it('encode / decode (urlbuiltins)', () => {
    expect(call('urlquery.encode', 'a=b+1')).toBe('a%3Db%2B1');
    expect(call('urlquery.encode', '')).toBe('');
    expect(call('urlquery.encode', 'a b~c.d-e_f/ü')).toBe('a+b~c.d-e_f%2F%C3%BC');
    expect(call('urlquery.decode', 'a%3Db%2B1')).toBe('a=b+1');
    expect(call('urlquery.decode', 'a+b%C3%BC')).toBe('a bü');
    expect(call('urlquery.decode', '🎉')).toBe('🎉');
  });
  it('decode errors', () => {
    expect(err('urlquery.decode', 'a%zzb')).toBe('eval_builtin_error: urlquery.decode: invalid URL escape "%zz"');
    expect(err('urlquery.decode', 'ab%2')).toBe('eval_builtin_error: urlquery.decode: invalid URL escape "%2"');
  });
  it('encode_object', () => {
    expect(call('urlquery.encode_object', j('{"a": "b", "c": "d"}'))).toBe('a=b&c=d');
    expect(call('urlquery.encode_object', j('{"a": ["b+1", "c+2"]}'))).toBe('a=b%2B1&a=c%2B2');
    expect(call('urlquery.encode_object', RObject.fromEntries([['a', RSet.of(['b+1'])]]))).toBe('a=b%2B1');
    expect(call('urlquery.encode_object', j('{}'))).toBe('');
    expect(call('urlquery.encode_object', j('{"z": "1", "a b": []}'))).toBe('z=1');
    expect(err('urlquery.encode_object', j('{"a": 1}'))).toBe(
      'eval_type_error: urlquery.encode_object: operand 1 values must be string, array[string], or set[string]',
    );
    expect(err('urlquery.encode_object', j('{"a": [1]}'))).toBe(
      'eval_type_error: urlquery.encode_object: operand 1 values must be string, array[string], or set[string]',
    );
    expect(err('urlquery.encode_object', 'x')).toBe('eval_type_error: urlquery.encode_object: operand 1 must be object but got string');
  });
  it('decode_object', () => {
    expect(toJSONText(call('urlquery.decode_object', 'a=value_a1&b=value_b&a=value_a2')!)).toBe(
      '{"a":["value_a1","value_a2"],"b":["value_b"]}',
    );
    expect(toJSONText(call('urlquery.decode_object', 'a=value_a1&b')!)).toBe('{"a":["value_a1"],"b":[""]}');
    expect(toJSONText(call('urlquery.decode_object', '')!)).toBe('{}');
    expect(toJSONText(call('urlquery.decode_object', 'a+b=c%20d&&x==')!)).toBe('{"a b":["c d"],"x":["="]}');
    expect(err('urlquery.decode_object', 'a=1;b=2')).toBe('eval_builtin_error: urlquery.decode_object: invalid semicolon separator in query');
    expect(err('urlquery.decode_object', 'a=%zz')).toBe('eval_builtin_error: urlquery.decode_object: invalid URL escape "%zz"');
  });
});
