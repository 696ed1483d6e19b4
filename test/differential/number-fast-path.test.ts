// The fast paths for plain decimal text (to_number in runtime/builtins/conversions.ts,
// parseNumber in runtime/value/number.ts) must give exactly what the exact decimal
// parser gives: same double, or a BigNum where the text does not fit a double.
import { describe, expect, it } from 'vitest';
import { BigNum, decimal, normalizeNumber, parseNumber } from '../../runtime/value/number.js';
import { builtins, parseNumberString } from '../../runtime/builtins/conversions.js';

const TEXTS = [
  '0', '-0', '1', '-1', '7', '512', '1000', '0.5', '-3.25', '1.5', '0.1', '0.3', '123.456', '1.50', '007', '00.5',
  '9007199254740991', '9007199254740992', '9007199254740993', '12345678901234567890', '1234567890123456.7',
  '0.1234567890123456', '0.12345678901234567', '3.0000000000000004', '1e3', '1e21', '5e-324', '+7', '.5', '2.',
];

/** The exact result: the decimal value, normalized (double when exact, else BigNum). */
const exact = (t: string): unknown => {
  const v = normalizeNumber(decimal(t.startsWith('.') ? '0' + t : t.endsWith('.') ? t + '0' : t));
  return v instanceof BigNum ? `big:${v.toString()}` : Object.is(v, -0) ? 0 : v;
};
const shape = (v: unknown): unknown => (v instanceof BigNum ? `big:${v.toString()}` : v);

describe('number fast paths', () => {
  const def = builtins.find((b) => b.decl.name === 'to_number')!;
  const toNumber = (t: string): unknown => shape(def.impl([t], undefined as never));
  it('to_number agrees with the exact parser', () => {
    for (const t of TEXTS) expect(toNumber(t), t).toEqual(shape(parseNumberString(t)));
    for (const t of TEXTS) expect(toNumber(t), t).toEqual(exact(t));
  });
  it('parseNumber agrees with the exact value', () => {
    for (const t of TEXTS.filter((x) => /^-?\d/.test(x) && !x.endsWith('.'))) expect(shape(parseNumber(t)), t).toEqual(exact(t));
  });
  it('keeps big integers exact', () => {
    expect(toNumber('12345678901234567890')).toBe('big:12345678901234567890');
    expect(toNumber('9007199254740993')).toBe('big:9007199254740993');
    expect(toNumber('512')).toBe(512);
    expect(toNumber('0.5')).toBe(0.5);
  });
});
