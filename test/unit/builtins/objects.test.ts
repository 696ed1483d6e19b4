// Unit tests for the object.* builtins (objects.ts), transcribed from OPA's
// objectget, objectfilter*, objectremove*, objectunion, objectunionn and subset
// conformance folders, plus edge cases (non-string keys, deep and huge objects).
import { describe, it, expect } from 'vitest';
import { builtins } from '../../../runtime/builtins/objects.js';
import { RObject, RSet, parseJSON, toJSONText, type Value } from '../../../runtime/value/index.js';
import { callerFor, builtinErrors } from './helpers.js';

const call = callerFor(builtins);
const json = (name: string, args: Value[]): string => toJSONText(call(name, args)!);
const err = builtinErrors(call);
const j = (s: string): Value => parseJSON(s);
const S = (...xs: Value[]): RSet => RSet.of(xs);
const O = (...kv: [Value, Value][]): RObject => RObject.fromEntries(kv);

describe('object.get', () => {
  it('finds or defaults (objectget)', () => {
    expect(json('object.get', [j('{"a": {"b": "c"}}'), 'a', true])).toBe('{"b":"c"}');
    expect(call('object.get', [j('{"a": {"b": "c"}}'), 'b', true])).toBe(true);
  });
  it('follows array paths through objects, arrays and sets', () => {
    expect(call('object.get', [j('{"a": [{"b": true}]}'), ['a', 0, 'b'], false])).toBe(true);
    expect(call('object.get', [j('{"a": [{"b": true}]}'), ['a', 1, 'b'], 'd'])).toBe('d');
    expect(call('object.get', [j('{"a": [{"b": true}]}'), ['a', '0'], 'd'])).toBe('d');
    expect(call('object.get', [O(['s', S('x', 'y')]), ['s', 'x'], 'd'])).toBe('x');
    expect(call('object.get', [O(['s', S('x')]), ['s', 'z'], 'd'])).toBe('d');
    expect(json('object.get', [j('{"a": 1}'), [], 'd'])).toBe('{"a":1}');
    expect(call('object.get', [j('{"a": 1}'), ['a', 'b'], 'd'])).toBe('d');
  });
  it('non-string and array keys', () => {
    expect(call('object.get', [O([[1], 'arr'], [2, 'two']), 2, 'd'])).toBe('two');
    // An array key is a path, not a key.
    expect(call('object.get', [O([[1], 'arr']), [1], 'd'])).toBe('d');
  });
  it('type error', () => {
    expect(err('object.get', [[1], 'a', 1])).toBe('eval_type_error: object.get: operand 1 must be object but got array');
  });
});

describe('object.keys', () => {
  it('returns the key set', () => {
    expect(toJSONText(call('object.keys', [j('{"b": 1, "a": 2}')])!)).toBe('["a","b"]');
    expect((call('object.keys', [O()]) as RSet).size).toBe(0);
    expect(err('object.keys', ['x'])).toBe('eval_type_error: object.keys: operand 1 must be object but got string');
  });
});

describe('object.filter', () => {
  it('keeps listed keys (objectfilter)', () => {
    expect(json('object.filter', [j('{"a": {"b": {"c": 7, "d": 8}}, "e": 9}'), S('a')])).toBe('{"a":{"b":{"c":7,"d":8}}}');
    expect(json('object.filter', [j('{"a": 1, "b": 2, "c": 3, "e": 9}'), S('a', 'e')])).toBe('{"a":1,"e":9}');
    expect(json('object.filter', [j('{"a": 7}'), []])).toBe('{}');
    expect(json('object.filter', [j('{"a": 7}'), O()])).toBe('{}');
    expect(json('object.filter', [j('{"a": 1, "b": 2}'), j('{"b": 0, "z": 1}')])).toBe('{"b":2}');
    expect(json('object.filter', [j('{"a": 1, "b": 2}'), ['b', 'b']])).toBe('{"b":2}');
  });
  it('is idempotent and leaves its input alone', () => {
    const o = j('{"a": 1, "b": 2, "c": 3}');
    expect(json('object.filter', [o, S('a')])).toBe('{"a":1}');
    expect(json('object.filter', [o, S('b')])).toBe('{"b":2}');
    expect(toJSONText(o)).toBe('{"a":1,"b":2,"c":3}');
  });
  it('non-string keys', () => {
    const r = call('object.filter', [O(['a', 1], [[[7]], 2]), S([[7]])]) as RObject;
    expect(r.size).toBe(1);
    expect(r.get([[7]])).toBe(2);
  });
  it('type errors', () => {
    expect(err('object.filter', [['a'], S('a')])).toBe('eval_type_error: object.filter: operand 1 must be object but got array');
    expect(err('object.filter', [null, S('a')])).toBe('eval_type_error: object.filter: operand 1 must be object but got null');
    for (const [v, t] of [['foo', 'string'], [true, 'boolean'], [null, 'null']] as const) {
      expect(err('object.filter', [O(['a', 1]), v])).toBe(
        `eval_type_error: object.filter: operand 2 must be one of {object, set, array} but got ${t}`,
      );
    }
  });
});

describe('object.remove', () => {
  it('removes listed keys (objectremove)', () => {
    expect(json('object.remove', [j('{"a": 1, "b": {"c": 3}}'), S('a')])).toBe('{"b":{"c":3}}');
    expect(json('object.remove', [j('{"a": 1, "b": {"c": 3}, "d": 4}'), S('b', 'd')])).toBe('{"a":1}');
    expect(json('object.remove', [j('{"a": 1, "b": {"c": 3}, "d": 4}'), j('{"b": 1, "d": ""}')])).toBe('{"a":1}');
    expect(json('object.remove', [j('{"a": 1, "b": {"c": 3}, "d": 4}'), ['b', 'd']])).toBe('{"a":1}');
    expect(json('object.remove', [O(), S('a', 'b')])).toBe('{}');
    expect(json('object.remove', [j('{"a": 1, "b": {"c": 3}}'), S('z')])).toBe('{"a":1,"b":{"c":3}}');
  });
  it('non-string keys', () => {
    expect(json('object.remove', [O(['a', 1], [[[7]], 2]), S([[7]])])).toBe('{"a":1}');
  });
  it('type errors', () => {
    expect(err('object.remove', [123, S('a')])).toBe('eval_type_error: object.remove: operand 1 must be object but got number');
    expect(err('object.remove', ['foo', S('a')])).toBe('eval_type_error: object.remove: operand 1 must be object but got string');
    expect(err('object.remove', [O(['a', 1]), 'foo'])).toBe(
      'eval_type_error: object.remove: operand 2 must be one of {object, set, array} but got string',
    );
    expect(err('object.remove', [O(['a', 1]), null])).toBe(
      'eval_type_error: object.remove: operand 2 must be one of {object, set, array} but got null',
    );
  });
});

describe('object.union', () => {
  it('merges recursively, right wins (objectunion)', () => {
    expect(json('object.union', [O(), O()])).toBe('{}');
    expect(json('object.union', [O(), j('{"a": 1}')])).toBe('{"a":1}');
    expect(json('object.union', [j('{"a": 1}'), j('{"b": 2}')])).toBe('{"a":1,"b":2}');
    expect(json('object.union', [j('{"b": 2}'), j('{"a": {"b": {"c": 1}}}')])).toBe('{"a":{"b":{"c":1}},"b":2}');
    expect(json('object.union', [j('{"a": 1}'), j('{"a": 2}')])).toBe('{"a":2}');
    expect(json('object.union', [j('{"a": 1}'), j('{"a": {"b": {"c": 1}}, "d": 7}')])).toBe('{"a":{"b":{"c":1}},"d":7}');
    expect(json('object.union', [j('{"a": 1, "b": 2, "c": {"d": 3}}'), j('{"a": 7, "c": {"d": 4, "e": 5}}')])).toBe(
      '{"a":7,"b":2,"c":{"d":4,"e":5}}',
    );
  });
  it('type errors', () => {
    expect(err('object.union', [j('{"a": 1}'), [1, 2, 3]])).toBe('eval_type_error: object.union: operand 2 must be object but got array');
    expect(err('object.union', [1, O()])).toBe('eval_type_error: object.union: operand 1 must be object but got number');
  });
});

describe('object.union_n', () => {
  it('merges left to right (objectunionn)', () => {
    expect(json('object.union_n', [[O()]])).toBe('{}');
    expect(json('object.union_n', [[]])).toBe('{}');
    expect(json('object.union_n', [[j('{"foo": "bar"}')]])).toBe('{"foo":"bar"}');
    expect(json('object.union_n', [[j('{"foo": "bar"}'), j('{"x": "y"}')]])).toBe('{"foo":"bar","x":"y"}');
    expect(json('object.union_n', [[j('{"foo": "bar"}'), j('{"foo": "baz"}')]])).toBe('{"foo":"baz"}');
    const objs = [j('{"a": 1, "b": 2, "c": 3}'), j('{"foo": "baz", "a": "a", "b": 2, "d": 4}'), j('{"a": "final A!", "e": 5.0}')];
    expect(json('object.union_n', [objs])).toBe('{"a":"final A!","b":2,"c":3,"d":4,"e":5,"foo":"baz"}');
    expect(json('object.union_n', [[j('{"a": {"b": 2}}'), j('{"a": 4}'), j('{"a": {"c": 3}}')]])).toBe('{"a":{"c":3}}');
    expect(json('object.union_n', [[j('{"a": {"b": 2}}'), j('{"a": {"c": 3}}')]])).toBe('{"a":{"b":2,"c":3}}');
  });
  it('type errors (#5073 regression)', () => {
    expect(err('object.union_n', [[j('{"foo": 1}'), j('{"bar": 2}'), 'baz']])).toBe(
      'eval_type_error: object.union_n: operand 1 must be array of objects but got array containing string',
    );
    expect(err('object.union_n', [O()])).toBe('eval_type_error: object.union_n: operand 1 must be array but got object');
  });
});

describe('object.subset (subset)', () => {
  const sub = (a: Value, b: Value) => call('object.subset', [a, b]);
  it('objects, recursively', () => {
    const A = j('{"a": 5, "b": 7, "c": 15}');
    expect(sub(A, j('{"a": 5}'))).toBe(true);
    expect(sub(j('{"a": 5}'), A)).toBe(false);
    expect(sub(A, j('{"a": 5, "b": 10}'))).toBe(false);
    const N = O(['a', 5], ['nested', O(['x', 10], ['y', 15], ['z', 20], ['set1', S(1, 2, 3, 4)], ['arr1', [6, 7, 8, 9]])]);
    expect(sub(N, O(['a', 5], ['nested', O(['x', 10], ['set1', S(4, 1)], ['arr1', [6, 7]])]))).toBe(true);
    expect(sub(N, O(['nested', O(['arr1', [6, 8]])]))).toBe(false);
    expect(sub(O(), O())).toBe(true);
  });
  it('sets, without recursion', () => {
    expect(sub(S(1, 2, 3), S(3, 2))).toBe(true);
    expect(sub(S(3, 2), S(1, 2, 3))).toBe(false);
    expect(sub(S(1, 2, 3, S('a', 'b', 'c')), S(3, 2, S('a', 'b', 'c')))).toBe(true);
    expect(sub(S(1, 2, 3, S('a', 'b', 'c')), S(3, 2, S('a', 'b')))).toBe(false);
  });
  it('arrays: contiguous subsequence', () => {
    const A = [1, 2, 3, 4, 5, 6];
    expect(sub(A, [3, 4, 5])).toBe(true);
    expect(sub(A, [1, 2, 3])).toBe(true);
    expect(sub(A, [4, 5, 6])).toBe(true);
    expect(sub(A, [...A])).toBe(true);
    expect(sub([3, 4, 5], A)).toBe(false);
    expect(sub(A, [4, 5, 6, 8])).toBe(false);
    expect(sub(A, [8, 9, 10])).toBe(false);
    expect(sub(A, [1, 3])).toBe(false);
    expect(sub([1, 1, 2], [1, 2])).toBe(true);
    expect(sub([], [])).toBe(true);
  });
  it('array super, set sub', () => {
    expect(sub([1, 2, 3, 4, 5, 6], S(4, 3, 2))).toBe(true);
    expect(sub([1, 2, 3, 4, 5, 6], S(9, 8, 7))).toBe(false);
    // OPA quirks: an empty array never matches; duplicates count twice.
    expect(sub([], S())).toBe(false);
    expect(sub([1], S())).toBe(true);
    expect(sub([1, 1], S(1, 2))).toBe(true);
  });
  it('mixed types are an error', () => {
    const msg = 'eval_type_error: object.subset: both arguments object.subset must be of the same type or array and set';
    expect(err('object.subset', [S(4, 3, 2), [1, 2, 3]])).toBe(msg);
    expect(err('object.subset', [O(), []])).toBe(msg);
    expect(err('object.subset', [1, 1])).toBe(msg);
  });
});

describe('big inputs', () => {
  it('handles large and deep objects', () => {
    const big = O(...Array.from({ length: 20000 }, (_, i) => [`k${i}`, i] as [Value, Value]));
    const keep = S(...Array.from({ length: 100 }, (_, i) => `k${i * 3}`));
    expect((call('object.filter', [big, keep]) as RObject).size).toBe(100);
    expect((call('object.remove', [big, keep]) as RObject).size).toBe(19900);
    expect((call('object.keys', [big]) as RSet).size).toBe(20000);
    let deep: Value = 'leaf';
    const path: Value[] = [];
    for (let i = 0; i < 2000; i++) {
      deep = O(['x', deep]);
      path.push('x');
    }
    expect(call('object.get', [deep as RObject, path, 'd'])).toBe('leaf');
    expect(call('object.subset', [deep, deep])).toBe(true);
    expect(call('object.get', [O(['ü', 'unicode 🎉']), 'ü', null])).toBe('unicode 🎉');
  });
});
