// Type predicates (is_number, is_string, ...) and type_name. In OPA the is_*
// builtins return true or false for any argument; they never fail.
import type { Value } from '../value/value.js';
import { typeName } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import { isNumber } from '../value/number.js';
import type { BuiltinDef } from './types.js';
import { T } from './types.js';

const typesCat = ['types'];

/** Each impl is its own function (not one shared wrapper calling a test), so every call site stays monomorphic. */
function pred(name: string, what: string, impl: (args: Value[]) => boolean): BuiltinDef {
  return {
    decl: {
      name,
      args: [T.any],
      result: T.boolean,
      categories: typesCat,
      description: `Returns \`true\` if the input value is ${what}.`,
    },
    impl,
  };
}

export const builtins: BuiltinDef[] = [
  pred('is_number', 'a number', (a) => isNumber(a[0]!)),
  pred('is_string', 'a string', (a) => typeof a[0] === 'string'),
  pred('is_boolean', 'a boolean', (a) => typeof a[0] === 'boolean'),
  pred('is_array', 'an array', (a) => Array.isArray(a[0])),
  pred('is_set', 'a set', (a) => a[0] instanceof RSet),
  pred('is_object', 'an object', (a) => a[0] instanceof RObject),
  pred('is_null', 'null', (a) => a[0] === null),
  {
    decl: {
      name: 'type_name',
      args: [T.any],
      result: T.string,
      categories: typesCat,
      description: 'Returns the type of its input value.',
    },
    impl: ([v]) => typeName(v!),
  },
];
