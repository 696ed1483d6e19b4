// The value model: numbers, total order, equality, hashing, JSON in and out.
import { describe, expect, it } from 'vitest';
import {
  BigNum,
  RObject,
  RSet,
  compare,
  equal,
  formatTerm,
  fromJS,
  parseJSON,
  parseNumber,
  toJS,
  toJSONText,
  typeName,
} from '../../../runtime/value/index.js';

describe('numbers', () => {
  it('keeps doubles on the fast path and big integers exact', () => {
    expect(parseNumber('42')).toBe(42);
    expect(parseNumber('1.5')).toBe(1.5);
    const big = parseNumber('18446744073709551617');
    expect(big).toBeInstanceOf(BigNum);
    expect(String(big)).toBe('18446744073709551617');
  });

  it('compares numbers by value across representations', () => {
    expect(equal(1, parseNumber('1.0'))).toBe(true);
    expect(compare(parseNumber('18446744073709551617'), 1e10)).toBe(1);
    expect(equal(parseNumber('9007199254740993'), 9007199254740992)).toBe(false);
  });
});

describe('total order', () => {
  it('orders types null < boolean < number < string < array < object < set', () => {
    const vals = [RSet.of([1]), new RObject(), [1], 'a', 3, true, null];
    const sorted = [...vals].sort(compare).map(typeName);
    expect(sorted).toEqual(['null', 'boolean', 'number', 'string', 'array', 'object', 'set']);
  });

  it('orders strings by UTF-8 bytes, not UTF-16 units', () => {
    // U+FF61 (3 UTF-8 bytes) sorts before U+1F600 (4 bytes), unlike UTF-16 order.
    expect(compare('\uff61', '\u{1f600}')).toBe(-1);
    expect(compare('a', 'ab')).toBe(-1);
  });

  it('orders arrays element-wise, then by length', () => {
    expect(compare([1, 2], [1, 3])).toBe(-1);
    expect(compare([1, 2], [1])).toBe(1);
  });
});

describe('collections', () => {
  it('sets deduplicate structurally equal members, including composites', () => {
    const s = RSet.of([fromJS({ a: 1 }), fromJS({ a: 1 }), [1, 2], [1, 2], 1, parseNumber('1.0')]);
    expect(s.size).toBe(3);
  });

  it('objects accept non-string keys and iterate in Rego order', () => {
    const o = RObject.fromEntries([
      ['b', 1],
      [2, 'two'],
      [[1], 'arr'],
      ['a', 0],
    ]);
    expect(o.get(2)).toBe('two');
    expect(o.get([1])).toBe('arr');
    expect(o.keys()).toEqual([2, 'a', 'b', [1]]);
  });

  it('does not confuse the string "1" with the number 1 as keys', () => {
    const o = RObject.fromEntries([
      ['1', 'string'],
      [1, 'number'],
    ]);
    expect(o.size).toBe(2);
    expect(o.get('1')).toBe('string');
    expect(o.get(1)).toBe('number');
  });

  it('a mutation invalidates the cached hash', () => {
    const o = fromJS({ a: 1 }) as RObject;
    const s1 = RSet.of([o]);
    expect(s1.has(fromJS({ a: 1 }))).toBe(true);
    const o2 = o.clone().set('b', 2);
    expect(RSet.of([o2]).has(fromJS({ a: 1 }))).toBe(false);
  });
});

describe('JSON', () => {
  it('writes canonical JSON: sorted keys, sets as sorted arrays, non-string keys as text', () => {
    const v = RObject.fromEntries([
      ['z', RSet.of([3, 1, 2])],
      ['a', true],
      [1, null],
    ]);
    expect(toJSONText(v)).toBe('{"1":null,"a":true,"z":[1,2,3]}');
    expect(toJS(v)).toEqual({ '1': null, a: true, z: [1, 2, 3] });
  });

  it('parses JSON text keeping big numbers exact', () => {
    const v = parseJSON('{"n": 123456789012345678901234567890}');
    expect(toJSONText(v)).toBe('{"n":123456789012345678901234567890}');
  });

  it('keeps long decimals and large exponents exact, as OPA keeps JSON numbers', () => {
    // 15 digits before the point and 9 after: no 16-digit run, still beyond a double
    expect(toJSONText(parseJSON('{"x": -684004062482084.046880866}'))).toBe('{"x":-684004062482084.046880866}');
    // 1e30 as a double is 1000000000000000019884624838656
    expect(toJSONText(parseJSON('[1e30]'))).toBe('[1000000000000000000000000000000]');
    expect(toJSONText(parseJSON('[0.5, 1e5, 2.25]'))).toBe('[0.5,100000,2.25]');
  });

  it('prints Rego terms as OPA does', () => {
    expect(formatTerm(RSet.of([]))).toBe('set()');
    expect(formatTerm(fromJS({ a: ['b', 1] }))).toBe('{"a": ["b", 1]}');
  });
});
