// Comparison operators (== != < <= > >=) over Rego's total order of values, plus the
// declarations of unification `=` (eq) and assignment `:=` (assign). The evaluator
// implements eq and assign itself; their impls here only compare, for completeness.
import type { Value } from '../value/value.js';
import { compare, equal } from '../value/compare.js';
import type { BuiltinDef } from './types.js';
import { T } from './types.js';

const cmpCat = ['comparison'];

function cmp(name: string, infix: string, description: string, fn: (a: Value, b: Value) => boolean): BuiltinDef {
  return {
    decl: {
      name,
      infix,
      args: [T.any, T.any],
      result: T.boolean,
      categories: cmpCat,
      description,
    },
    impl: ([a, b]) => fn(a!, b!),
  };
}

export const builtins: BuiltinDef[] = [
  cmp('equal', '==', 'Checks if two values are equal.', (a, b) => equal(a, b)),
  cmp('neq', '!=', 'Checks if two values are not equal.', (a, b) => !equal(a, b)),
  cmp('lt', '<', 'Checks if the first value is less than the second value.', (a, b) => compare(a, b) < 0),
  cmp('lte', '<=', 'Checks if the first value is less than or equal to the second value.', (a, b) => compare(a, b) <= 0),
  cmp('gt', '>', 'Checks if the first value is greater than the second value.', (a, b) => compare(a, b) > 0),
  cmp('gte', '>=', 'Checks if the first value is greater than or equal to the second value.', (a, b) => compare(a, b) >= 0),
  {
    // Unification: handled by the evaluator (it binds variables on either side).
    decl: { name: 'eq', infix: '=', args: [T.any, T.any], result: T.boolean },
    impl: ([a, b]) => (equal(a!, b!) ? true : undefined),
  },
  {
    // Assignment: handled by the evaluator (it binds the left-hand variable).
    decl: { name: 'assign', infix: ':=', args: [T.any, T.any], result: T.boolean },
    impl: ([a, b]) => (equal(a!, b!) ? true : undefined),
  },
];
