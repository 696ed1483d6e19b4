// RSet's two storage modes (runtime/value/collections.ts): small sets keep a list and
// find duplicates by `equal`; past eight members they hash by canonical key. Both
// must agree on membership, size, order, canonical keys and the collection cap.
import { afterEach, describe, expect, it } from 'vitest';
import { RObject, RSet, canonicalKey, compare, equal, fromJS, parseNumber, type Value } from '../../../runtime/value/index.js';
import { limits } from '../../../runtime/eval/limits.js';

const obj = (msg: string): RObject => fromJS({ msg, details: { n: 1 } }) as RObject;

describe('RSet small mode', () => {
  it('finds equal composite members without hashing them', () => {
    const s = new RSet();
    s.add(obj('a')).add(obj('b')).add(obj('a'));
    expect(s.size).toBe(2);
    expect(s.has(obj('b'))).toBe(true);
    expect(s.has(obj('c'))).toBe(false);
    const a = s.values()[0] as RObject;
    // No canonical key was cached on the members.
    expect(a.hashKey).toBeUndefined();
    expect(s.values().map((v) => (v as RObject).getStr('msg'))).toEqual(['a', 'b']);
  });
  it('treats numbers by value (1 and 1.0), and arrays and sets structurally', () => {
    const s = RSet.of([1, parseNumber('1.0'), [1, 'x'], [1, 'x'], RSet.of(['p', 'q']), RSet.of(['q', 'p'])]);
    expect(s.size).toBe(3);
    expect(s.has(parseNumber('1.00'))).toBe(true);
    expect(s.has(RSet.of(['p']))).toBe(false);
  });
  it('keeps members and duplicates right across the switch to hashing', () => {
    const s = new RSet();
    for (let i = 0; i < 20; i++) s.add(obj(`m${i % 12}`));
    expect(s.size).toBe(12);
    for (let i = 0; i < 12; i++) expect(s.has(obj(`m${i}`))).toBe(true);
    expect(s.has(obj('m12'))).toBe(false);
    const sorted = s.values();
    for (let i = 1; i < sorted.length; i++) expect(compare(sorted[i - 1]!, sorted[i]!)).toBeLessThan(0);
  });
  it('gives the same canonical key in either mode', () => {
    const big = new RSet();
    for (let i = 0; i < 10; i++) big.add(`s${i}`);
    for (let i = 3; i < 10; i++) big.delete(`s${i}`);
    const small = RSet.of(['s2', 's0', 's1']);
    expect(big.size).toBe(3);
    expect(canonicalKey(big)).toBe(canonicalKey(small));
    expect(equal(big, small)).toBe(true);
    expect(RSet.of([big]).has(small)).toBe(true);
  });
  it('does not change an unordered array already handed out', () => {
    const s = RSet.of(['a', 'b']);
    const before = s.unorderedArray();
    s.add('c');
    expect(before).toEqual(['a', 'b']);
    expect(s.unorderedArray()).toEqual(['a', 'b', 'c']);
    expect(s.delete('a')).toBe(true);
    expect(s.delete('zz')).toBe(false);
    expect([...s.unorderedValues()]).toEqual(['b', 'c']);
  });
  it('answers repeated composite lookups the same after it starts hashing', () => {
    const s = RSet.of([obj('a'), obj('b'), obj('c')]);
    const before = s.unorderedArray();
    for (let i = 0; i < 100; i++) {
      expect(s.has(obj('b'))).toBe(true);
      expect(s.has(obj(`x${i}`))).toBe(false);
    }
    expect(s.size).toBe(3);
    expect(s.unorderedArray()).toEqual(before);
    expect(canonicalKey(s)).toBe(canonicalKey(RSet.of([obj('c'), obj('a'), obj('b')])));
    expect(s.clone().add(obj('a')).size).toBe(3);
  });
  it('clones independently', () => {
    const s = RSet.of(['a']);
    const c = s.clone().add('b');
    expect(s.size).toBe(1);
    expect(c.size).toBe(2);
  });
});

describe('object equality (RObject.entriesIn)', () => {
  it('compares string and non-string keys by value', () => {
    expect(equal(fromJS({ a: 1, b: [1] }), fromJS({ b: [parseNumber('1.0')], a: 1 }))).toBe(true);
    expect(equal(fromJS({ a: 1, b: [1] }), fromJS({ a: 1, c: [1] }))).toBe(false);
    const x = RObject.fromEntries([[1, 'one'], ['a', RSet.of([2])], [[3], null]]);
    const y = RObject.fromEntries([[[3], null], ['a', RSet.of([2])], [parseNumber('1.0'), 'one']]);
    const z = RObject.fromEntries([[[3], null], ['a', RSet.of([2])], [2, 'one']]);
    expect(equal(x, y)).toBe(true);
    expect(equal(x, z)).toBe(false);
    expect(RSet.of([x, y, z]).size).toBe(2);
  });
  it('reads a lazy object on either side', () => {
    const lazy = (): RObject => RObject.lazy(() => fromJS({ k: 'v', n: 2 }) as RObject);
    expect(equal(lazy(), fromJS({ n: 2, k: 'v' }))).toBe(true);
    expect(equal(fromJS({ n: 2, k: 'v' }), lazy())).toBe(true);
    expect(equal(fromJS({ n: 2, k: 'w' }), lazy())).toBe(false);
  });
});

describe('RSet collection cap', () => {
  const saved = limits.maxCollectionSize;
  afterEach(() => {
    limits.maxCollectionSize = saved;
  });
  it('applies in the small mode too', () => {
    limits.maxCollectionSize = 3;
    const s = RSet.of(['a', 'b', 'c', 'a']);
    expect(s.size).toBe(3);
    expect(() => s.add('d')).toThrow('collection size limit exceeded');
    const members: Value[] = [];
    expect(() => RSet.of(members.concat(['x', 'y', 'z', 'w']))).toThrow('collection size limit exceeded');
  });
});

describe('array members of a hashed set (storedArrayKey)', () => {
  it('dedups equal arrays (nested, numbers by value) and finds them, whether their key was cached or not', () => {
    const s = new RSet();
    for (let i = 0; i < 12; i++) s.add([`v${i % 6}`, [i % 6, 'x']]);
    expect(s.size).toBe(6);
    const cached: Value = ['v1', [parseNumber('1.0'), 'x']];
    canonicalKey(cached); // this one's key is in the array-key cache
    expect(s.has(cached)).toBe(true);
    expect(s.has(['v1', [1, 'x']])).toBe(true);
    expect(s.has(['v1', [2, 'x']])).toBe(false);
    expect(canonicalKey(s)).toBe(canonicalKey(RSet.of(s.values().slice().reverse())));
  });
});
