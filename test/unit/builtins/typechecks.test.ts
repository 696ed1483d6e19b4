// Unit tests for is_* and type_name (typechecks.ts), transcribed from OPA's
// typebuiltin and typenamebuiltin conformance folders, over every value type.
import { describe, it, expect } from 'vitest';
import { builtins } from '../../../runtime/builtins/typechecks.js';
import { RObject, RSet, parseNumber, type Value } from '../../../runtime/value/index.js';
import { callerFor } from './helpers.js';

const call = callerFor(builtins);

const samples: [string, Value][] = [
  ['null', null],
  ['boolean', false],
  ['number', 1],
  ['number', parseNumber('1e400')],
  ['string', 'Hello'],
  ['array', [1, 2, 3]],
  ['object', RObject.fromEntries([['foo', 1]])],
  ['set', RSet.of([1, 2, 3])],
];
const preds: Record<string, string> = {
  is_null: 'null',
  is_boolean: 'boolean',
  is_number: 'number',
  is_string: 'string',
  is_array: 'array',
  is_object: 'object',
  is_set: 'set',
};

describe('is_* predicates', () => {
  for (const [pred, type] of Object.entries(preds)) {
    it(pred, () => {
      for (const [t, v] of samples) expect(call(pred, [v])).toBe(t === type);
    });
  }
  it('conformance examples', () => {
    expect(['Hello', 'There', 'OPA'].map((s) => call('is_string', [s]))).toEqual([true, true, true]);
    expect(call('is_string', [false])).toBe(false);
    expect(call('is_set', [[1, 2, 3]])).toBe(false);
    expect(call('is_object', ['foo'])).toBe(false);
    expect(call('is_null', [true])).toBe(false);
    expect(call('is_array', [[]])).toBe(true);
    expect(call('is_set', [new RSet()])).toBe(true);
  });
});

describe('type_name', () => {
  it('names every type', () => {
    for (const [t, v] of samples) expect(call('type_name', [v])).toBe(t);
  });
});
