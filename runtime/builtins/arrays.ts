// Array builtins: array.concat, array.slice (indices clamped as OPA does: stop to
// [0, len], start to [0, stop]), array.reverse and array.flatten (one level deep).
import type { Value } from '../value/value.js';
import { isNumber } from '../value/number.js';
import type { BuiltinDef } from './types.js';
import { T } from './types.js';
import { OperandTypeError } from './errors.js';
import { asArray, asNumber } from './args.js';
import { checkCollectionSize } from '../eval/limits.js';

const arrCat = ['array'];
const arrAny = T.arrayOf(T.any);

/** OPA's IntOperand: an integral number (huge values clamp naturally below). */
function intOperand(v: Value, pos: number): number {
  const n = asNumber(v, pos);
  if (!isNumber(n) || typeof n !== 'number' || !Number.isInteger(n)) {
    throw new OperandTypeError(`operand ${pos} must be integer number but got floating-point number`);
  }
  return n;
}

function slice(arr: Value[], start: number, stop: number): Value[] {
  if (stop < 0) stop = 0;
  else if (stop > arr.length) stop = arr.length;
  if (start < 0) start = 0;
  else if (start > stop) start = stop;
  if (start === 0 && stop >= arr.length) return arr;
  return arr.slice(start, stop);
}

function flatten(arr: Value[]): Value[] {
  const out: Value[] = [];
  for (const x of arr) {
    if (Array.isArray(x)) for (const y of x) out.push(y);
    else out.push(x);
  }
  return out;
}

export const builtins: BuiltinDef[] = [
  {
    decl: { name: 'array.concat', args: [arrAny, arrAny], result: arrAny, categories: arrCat, description: 'Concatenates two arrays.' },
    impl: ([a, b]) => {
      const x = asArray(a!, 1);
      const y = asArray(b!, 2);
      if (x.length === 0) return y;
      if (y.length === 0) return x;
      checkCollectionSize(x.length + y.length); // the evaluation collection cap (runtime/eval/limits.ts)
      return x.concat(y);
    },
  },
  {
    decl: {
      name: 'array.slice',
      args: [arrAny, T.number, T.number],
      result: arrAny,
      categories: arrCat,
      description: 'Returns a slice of a given array. If `start` is greater or equal than `stop`, `slice` is `[]`.',
    },
    impl: ([a, s, e]) => slice(asArray(a!, 1), intOperand(s!, 2), intOperand(e!, 3)),
  },
  {
    decl: { name: 'array.reverse', args: [arrAny], result: arrAny, categories: arrCat, description: 'Returns the reverse of a given array.' },
    impl: ([a]) => [...asArray(a!, 1)].reverse(),
  },
  {
    decl: {
      name: 'array.flatten',
      args: [arrAny],
      result: arrAny,
      categories: arrCat,
      description: 'Flattens an array by one level: elements that are arrays are replaced by their elements.',
    },
    impl: ([a]) => flatten(asArray(a!, 1)),
  },
];
