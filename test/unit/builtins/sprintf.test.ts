// Unit tests for sprintf: Go fmt verbs, flags, widths, bad verbs, OPA's number handling.
import { describe, expect, it } from 'vitest';
import type { Value } from '../../../runtime/value/value.js';
import { parseNumber } from '../../../runtime/value/number.js';
import { registryCaller, callErrors } from './helpers.js';

const call = registryCaller();
const err = callErrors(call);
void parseNumber;

const sp = (f: string, ...a: unknown[]): Value | undefined => call('sprintf', f, a);

describe('sprintf basics', () => {
  it('formats strings, ints, floats and composites like OPA', () => {
    expect(sp('hi %s', 'there')).toBe('hi there');
    expect(sp('hi %02X.%02X', 127, 1)).toBe('hi 7F.01');
    expect(sp('hi %.2f', 3.1415)).toBe('hi 3.14');
    expect(sp('hi %s', true)).toBe('hi true');
    expect(sp('hi %v', ['there', 5, 3.14])).toBe('hi ["there", 5, 3.14]');
    expect(sp('%v %v', null, { a: [1] })).toBe('null {"a": [1]}');
    expect(sp('%d', 42)).toBe('42');
    expect(sp('%v', 3.14)).toBe('3.14');
    expect(sp('%v', 1e-7)).toBe('1e-07');
    expect(sp('%v', 123456789.5)).toBe('1.234567895e+08');
  });
  it('prints big integers exactly', () => {
    expect(call('sprintf', '%s', [parseNumber('123456789123456789123')])).toBe('123456789123456789123');
    expect(call('sprintf', '%d|%x', [parseNumber('1208925819614629174706175'), parseNumber('1208925819614629174706175')])).toBe('1208925819614629174706175|ffffffffffffffffffff');
    expect(call('sprintf', '%f', [parseNumber('123456789123456789123')])).toBe('%!f(big.Int=123456789123456789123)');
    expect(call('sprintf', '%d', [parseNumber('9007199254740993')])).toBe('9007199254740993');
  });
  it('rounds floats half-to-even on the exact binary value, like Go', () => {
    expect(sp('%.0f %.0f %.0f', 0.5, 1.5, 2.5)).toBe('0 2 2');
    expect(sp('%.2f', 0.125)).toBe('0.12');
    expect(sp('%.2f', 1.005)).toBe('1.00');
    expect(sp('%.50f', 0.1)).toBe('0.10000000000000000555111512312578270211815834045410');
    expect(sp('%e %E', 1234.5678, 0.000123)).toBe('1.234568e+03 1.230000E-04');
    expect(sp('%g %g %G', 0.00001234, 100000.5, 1e-7)).toBe('1.234e-05 100000.5 1E-07');
    expect(sp('%.3g', 1234.5678)).toBe('1.23e+03');
    expect(sp('%x %b', 3.5, 0.5)).toBe('0x1.cp+01 4503599627370496p-53');
  });
});

describe('sprintf flags and widths', () => {
  it('applies Go flags', () => {
    expect(sp('%-5d|%5d|%05d|%+d|% d', 42, 42, -42, 5, 5)).toBe('42   |   42|-0042|+5| 5');
    expect(sp('%#x %#o %#b %O', 255, 8, 5, 8)).toBe('0xff 010 0b101 0o10');
    expect(sp('%08.3f|%-8.2f|%+.1e', -3.14159, 2.5, 12345.678)).toBe('-003.142|2.50    |+1.2e+04');
    expect(sp('%5.1s|%-4s|%05s', 'héllo', 'ab', 'ab')).toBe('    h|ab  |   ab');
    expect(sp('%q %+q %#q', 'a"b\n', 'é', 'x')).toBe('"a\\"b\\n" "\\u00e9" `x`');
    expect(sp('%x % X', 'hi', 'hi')).toBe('6869 68 69');
    expect(sp('%c %q %U %#U', 65, 0x1f600, 0x1f600, 0x41)).toBe("A '😀' U+1F600 U+0041 'A'");
    expect(sp('%*d|%-*d|%.*f', 4, 1, 3, 2, 2, 3.14159)).toBe('   1|2  |3.14');
    expect(sp('%[2]d %[1]d', 1, 2)).toBe('2 1');
    expect(sp('%d%%', 50)).toBe('50%');
    expect(sp('%T %T %T %T', 1, 'a', 1.5, true)).toBe('int string float64 string');
  });
  it('produces Go bad-verb, missing and extra forms', () => {
    expect(sp('%d', 'foo')).toBe('%!d(string=foo)');
    expect(sp('%t', true)).toBe('%!t(string=true)');
    expect(sp('%5t', 'foo')).toBe('%!t(string=  foo)');
    expect(sp('%s', 5)).toBe('%!s(int=5)');
    expect(sp('%d', 1.5)).toBe('%!d(float64=1.5)');
    expect(sp('%d %d', 1)).toBe('1 %!d(MISSING)');
    expect(sp('%d', 1, 'x')).toBe('1%!(EXTRA string=x)');
    expect(sp('%', 1)).toBe('%!(NOVERB)%!(EXTRA int=1)');
    expect(sp('%[3]d', 1)).toBe('%!d(BADINDEX)');
    expect(sp('%*d', 'x', 1)).toBe('%!(BADWIDTH)1');
    expect(sp('%!', 1)).toBe('%!!(int=1)');
    expect(sp('no verbs')).toBe('no verbs');
    expect(sp('')).toBe('');
  });
  it('bounds widths and output size', () => {
    const t0 = Date.now();
    // Go (and so OPA) rejects widths above 10^6 digits-wise: %!(NOVERB).
    expect(sp('%1000000000d', 1)).toBe('%!(NOVERB)%!(EXTRA int=1)');
    expect(sp('%*d', 1000000000, 1)).toBe('%!(BADWIDTH)1');
    expect(sp('%.1000000000f', 1)).toBe('%!(NOVERB)%!(EXTRA int=1)');
    expect(Date.now() - t0).toBeLessThan(1000);
    expect((sp('%5000000d', 1) as string).length).toBe(5000000);
    const many = '%9999999d'.repeat(10);
    expect(err('sprintf', many, Array(10).fill(1))).toMatch(/^eval_builtin_error: sprintf: output exceeds \d+ bytes$/);
  });
  it('checks operand types', () => {
    expect(err('sprintf', 1, [])).toBe('eval_type_error: sprintf: operand 1 must be string but got number');
    expect(err('sprintf', '%s', { a: 1 })).toBe('eval_type_error: sprintf: operand 2 must be array but got object');
  });
});
