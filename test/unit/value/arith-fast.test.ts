// The double fast paths of add / sub / mul (runtime/value/arith.ts: scaled integers
// for short non-integer operands such as "0.5" × 1000) must give exactly what
// decimal.js gives: checked against finish(dec(a) op dec(b)) on seeded samples of
// short decimals, long and tiny doubles, and the usual edge values.
import { describe, expect, it } from 'vitest';
import { add, dec, finish, mul, sub } from '../../../runtime/value/arith.js';
import { BigNum, formatNumber, type RNumber } from '../../../runtime/value/number.js';
import { prng } from '../../fuzz/mutate.js';

/** Same kind (double or BigNum) and the same value text. */
const same = (x: RNumber): string => `${x instanceof BigNum ? 'big' : 'num'}:${formatNumber(x)}:${Object.is(x, -0) ? '-0' : ''}`;

describe('add, sub and mul on doubles agree with decimal.js', () => {
  const rnd = prng(14);
  const samples: number[] = [0, -0, 1, -1, 0.5, 0.1, 0.2, 0.3, 1000, 1e-7, 1e21, 1.5e300, 5e-324, 123456789.123, 9007199254740991, 9007199254740993, 0.1 + 0.2, 2 / 3, -1.25, 3.14159];
  for (let i = 0; i < 300; i++) {
    const places = Math.floor(rnd() * 8);
    const digits = Math.floor(rnd() * 1e9) * (rnd() < 0.3 ? -1 : 1);
    samples.push(Number((digits / 10 ** places).toFixed(places)));
    samples.push((rnd() - 0.5) * 10 ** Math.floor(rnd() * 30 - 15));
  }
  it('on every pair of a seeded sample', () => {
    let n = 0;
    for (let i = 0; i < samples.length; i += 3) {
      for (let j = 0; j < samples.length; j += 7) {
        const a = samples[i]!;
        const b = samples[j]!;
        expect(same(add(a, b)), `${a} + ${b}`).toBe(same(finish(dec(a).plus(dec(b)))));
        expect(same(sub(a, b)), `${a} - ${b}`).toBe(same(finish(dec(a).minus(dec(b)))));
        expect(same(mul(a, b)), `${a} * ${b}`).toBe(same(finish(dec(a).times(dec(b)))));
        n++;
      }
    }
    expect(n).toBeGreaterThan(10_000);
  });
  it('gives the short decimal, not the double sum', () => {
    expect(add(0.1, 0.2)).toBe(0.3);
    expect(mul(0.5, 1000)).toBe(500);
    expect(mul(1.5, 1000)).toBe(1500);
    expect(sub(0.3, 0.1)).toBe(0.2);
    expect(mul(-0, 0.5)).toBe(0);
    expect(Object.is(mul(-0, 0.5), -0)).toBe(false);
  });
});
