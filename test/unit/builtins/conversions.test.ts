// Unit tests for to_number and the deprecated casts (conversions.ts), transcribed
// from OPA's casts conformance folder, plus exact parsing and error messages.
import { describe, it, expect } from 'vitest';
import { builtins } from '../../../runtime/builtins/conversions.js';
import { RObject, RSet } from '../../../runtime/value/index.js';
import { callerFor, builtinErrors, numberText as txt } from './helpers.js';

const call = callerFor(builtins);
const err = builtinErrors(call);

describe('to_number', () => {
  it('converts null, booleans and numbers', () => {
    expect(call('to_number', [null])).toBe(0);
    expect(call('to_number', [true])).toBe(1);
    expect(call('to_number', [false])).toBe(0);
    expect(call('to_number', [3.5])).toBe(3.5);
  });
  it('parses number strings exactly', () => {
    expect(call('to_number', ['3'])).toBe(3);
    expect(call('to_number', ['-3.25'])).toBe(-3.25);
    expect(call('to_number', ['+7'])).toBe(7);
    expect(call('to_number', ['.5'])).toBe(0.5);
    expect(call('to_number', ['5.'])).toBe(5);
    expect(call('to_number', ['1e3'])).toBe(1000);
    expect(call('to_number', ['-0'])).toBe(0);
    expect(call('to_number', ['0x1p-2'])).toBe(0.25);
    expect(txt(call('to_number', ['18446744073709551617']))).toBe('18446744073709551617');
    expect(txt(call('to_number', ['0.1234567890123456789']))).toBe('0.1234567890123456789');
    expect(txt(call('to_number', ['1e-400']))).toBe('1e-400');
  });
  it('rejects malformed strings with ParseFloat messages', () => {
    expect(err('to_number', ['broken'])).toBe('eval_builtin_error: to_number: strconv.ParseFloat: parsing "broken": invalid syntax');
    expect(err('to_number', [''])).toBe('eval_builtin_error: to_number: strconv.ParseFloat: parsing "": invalid syntax');
    expect(err('to_number', [' 3'])).toBe('eval_builtin_error: to_number: strconv.ParseFloat: parsing " 3": invalid syntax');
    expect(err('to_number', ['1_000'])).toBe('eval_builtin_error: to_number: strconv.ParseFloat: parsing "1_000": invalid syntax');
    expect(err('to_number', ['0x10'])).toBe('eval_builtin_error: to_number: strconv.ParseFloat: parsing "0x10": invalid syntax');
    expect(err('to_number', ['1e400'])).toBe('eval_builtin_error: to_number: strconv.ParseFloat: parsing "1e400": value out of range');
  });
  it('rejects inf and nan spellings as type errors', () => {
    for (const s of ['nan', 'inf', '-inf', 'Infinity', '-Infinity', '-nan', '-NaN', 'iNf']) {
      expect(err('to_number', [s])).toBe('eval_type_error: to_number: operand 1 must be valid number string but got string');
    }
  });
  it('rejects other types', () => {
    expect(err('to_number', [[1]])).toBe(
      'eval_type_error: to_number: operand 1 must be one of {null, boolean, number, string} but got array',
    );
  });
});

describe('deprecated casts', () => {
  it('are marked deprecated', () => {
    const casts = builtins.filter((b) => b.decl.name.startsWith('cast_'));
    expect(casts.map((b) => b.decl.name).sort()).toEqual(['cast_array', 'cast_boolean', 'cast_null', 'cast_object', 'cast_set', 'cast_string']);
    expect(casts.every((b) => b.decl.deprecated === true)).toBe(true);
  });
  it('convert or check', () => {
    expect(call('cast_array', [RSet.of([2, 1])])).toEqual([1, 2]);
    expect(call('cast_array', [[3]])).toEqual([3]);
    expect((call('cast_set', [[1, 1, 2]]) as RSet).values()).toEqual([1, 2]);
    expect(call('cast_string', ['s'])).toBe('s');
    expect(call('cast_boolean', [true])).toBe(true);
    expect(call('cast_null', [null])).toBe(null);
    const o = RObject.fromEntries([['a', 1]]);
    expect(call('cast_object', [o])).toBe(o);
  });
  it('report type errors', () => {
    expect(err('cast_array', ['x'])).toBe('eval_type_error: cast_array: operand 1 must be one of {array, set} but got string');
    expect(err('cast_set', [1])).toBe('eval_type_error: cast_set: operand 1 must be one of {array, set} but got number');
    expect(err('cast_string', [1])).toBe('eval_type_error: cast_string: operand 1 must be string but got number');
    expect(err('cast_boolean', [null])).toBe('eval_type_error: cast_boolean: operand 1 must be boolean but got null');
    expect(err('cast_null', [false])).toBe('eval_type_error: cast_null: operand 1 must be null but got boolean');
    expect(err('cast_object', [[]])).toBe('eval_type_error: cast_object: operand 1 must be object but got array');
  });
});
