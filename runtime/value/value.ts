// The Rego value union used everywhere at run time, and small type predicates.
// `undefined` (JS) is never a Value: it means "Rego undefined" wherever a function
// may return no value, which keeps Undefined distinct from `false`.
import { BigNum, type RNumber } from './number.js';
import { RObject, RSet } from './collections.js';

export type Value = null | boolean | string | RNumber | Value[] | RObject | RSet;

export type TypeName = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object' | 'set';

export function typeName(v: Value): TypeName {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'string':
      return 'string';
    case 'number':
      return 'number';
  }
  if (Array.isArray(v)) return 'array';
  if (v instanceof RObject) return 'object';
  if (v instanceof RSet) return 'set';
  if (v instanceof BigNum) return 'number';
  throw new Error(`not a Rego value: ${String(v)}`);
}

/** Sort rank of each type in Rego's total order. */
export function typeRank(v: Value): number {
  if (v === null) return 0;
  switch (typeof v) {
    case 'boolean':
      return 1;
    case 'number':
      return 2;
    case 'string':
      return 3;
  }
  if (v instanceof BigNum) return 2;
  if (Array.isArray(v)) return 4;
  if (v instanceof RObject) return 5;
  return 6;
}

export const isString = (v: Value): v is string => typeof v === 'string';
export const isArray = (v: Value): v is Value[] => Array.isArray(v);
export const isObject = (v: Value): v is RObject => v instanceof RObject;
export const isSet = (v: Value): v is RSet => v instanceof RSet;
export const isBoolean = (v: Value): v is boolean => typeof v === 'boolean';

export { RObject, RSet, BigNum };
