// Aggregates: count, sum, product, max, min, sort, and the deprecated all/any.
// count counts Unicode code points of strings (as Go's len([]rune(s))); sum and
// product are exact on integers of any size, as OPA's big.Float-based versions.
import { typeName, type Value } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import { compare } from '../value/compare.js';
import { decimal, isNumber, type Dec } from '../value/number.js';
import { dec, finish } from '../value/arith.js';
import type { BuiltinDef } from './types.js';
import { T } from './types.js';
import { OperandTypeError, operandError } from './errors.js';

const aggCat = ['aggregates'];
const numColl = T.anyOf(T.setOf(T.number), T.arrayOf(T.number));
const anyColl = T.anyOf(T.setOf(T.any), T.arrayOf(T.any));

/** Number of code points; a lone surrogate counts as one (Go counts each bad byte). */
export function codePointCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function count(v: Value): Value {
  if (typeof v === 'string') return codePointCount(v);
  if (Array.isArray(v)) return v.length;
  if (v instanceof RObject || v instanceof RSet) return v.size;
  throw operandError(1, 'one of {array, object, set, string}', v);
}

/** Members of a set or array; OPA's message lists `set, array` in that order. */
function members(v: Value): Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof RSet) return [...v.unorderedValues()];
  throw operandError(1, 'one of {set, array}', v);
}

function elementError(coll: Value, got: Value): OperandTypeError {
  const t = Array.isArray(coll) ? 'array' : 'set';
  return new OperandTypeError(`operand 1 must be ${t} of numbers but got ${t} containing ${typeName(got)}`);
}

function reduceNumbers(v: Value, init: number, op: (acc: Dec, x: Dec) => Dec, fast: (acc: number, x: number) => number): Value {
  const xs = members(v);
  let small = init;
  let acc: Dec | undefined;
  for (const x of xs) {
    if (!isNumber(x)) throw elementError(v, x);
    if (acc === undefined && typeof x === 'number' && Number.isSafeInteger(x)) {
      const r = fast(small, x);
      if (Number.isSafeInteger(r)) {
        small = r;
        continue;
      }
    }
    acc = op(acc ?? decimal(small), dec(x));
  }
  return acc === undefined ? (small === 0 ? 0 : small) : finish(acc);
}

function max(v: Value): Value | undefined {
  const xs = members(v);
  if (xs.length === 0) return undefined;
  let best: Value = xs[0]!;
  for (const x of xs) if (compare(best, x) <= 0) best = x;
  return best;
}

function min(v: Value): Value | undefined {
  const xs = members(v);
  if (xs.length === 0) return undefined;
  let best: Value = xs[0]!;
  for (const x of xs) if (compare(best, x) >= 0) best = x;
  return best;
}

function sort(v: Value): Value {
  if (Array.isArray(v)) return [...v].sort(compare);
  if (v instanceof RSet) return [...v.values()];
  throw operandError(1, 'one of {set, array}', v);
}

function allAny(v: Value, want: 'all' | 'any'): Value {
  let xs: Iterable<Value>;
  if (Array.isArray(v)) xs = v;
  else if (v instanceof RSet) xs = v.unorderedValues();
  else throw operandError(1, 'one of {array, set}', v);
  for (const x of xs) {
    if (want === 'all' && x !== true) return false;
    if (want === 'any' && x === true) return true;
  }
  return want === 'all';
}

export const builtins: BuiltinDef[] = [
  {
    decl: {
      name: 'count',
      args: [T.anyOf(T.setOf(T.any), T.arrayOf(T.any), T.objectOf(T.any, T.any), T.string)],
      result: T.number,
      categories: aggCat,
      description: ' Count takes a collection or string and returns the number of elements (or characters) in it.',
    },
    impl: ([v]) => count(v!),
  },
  {
    decl: { name: 'sum', args: [numColl], result: T.number, categories: aggCat, description: 'Sums elements of an array or set of numbers.' },
    impl: ([v]) => reduceNumbers(v!, 0, (a, x) => a.plus(x), (a, x) => a + x),
  },
  {
    decl: { name: 'product', args: [numColl], result: T.number, categories: aggCat, description: 'Multiplies elements of an array or set of numbers' },
    impl: ([v]) => reduceNumbers(v!, 1, (a, x) => a.times(x), (a, x) => a * x),
  },
  {
    decl: { name: 'max', args: [anyColl], result: T.any, categories: aggCat, description: 'Returns the maximum value in a collection.' },
    impl: ([v]) => max(v!),
  },
  {
    decl: { name: 'min', args: [anyColl], result: T.any, categories: aggCat, description: 'Returns the minimum value in a collection.' },
    impl: ([v]) => min(v!),
  },
  {
    decl: {
      name: 'sort',
      args: [T.anyOf(T.arrayOf(T.any), T.setOf(T.any))],
      result: T.arrayOf(T.any),
      categories: aggCat,
      description: 'Returns a sorted array.',
    },
    impl: ([v]) => sort(v!),
  },
  {
    decl: { name: 'all', args: [T.anyOf(T.setOf(T.any), T.arrayOf(T.any))], result: T.boolean, deprecated: true },
    impl: ([v]) => allAny(v!, 'all'),
  },
  {
    decl: { name: 'any', args: [T.anyOf(T.setOf(T.any), T.arrayOf(T.any))], result: T.boolean, deprecated: true },
    impl: ([v]) => allAny(v!, 'any'),
  },
];
