// Type predicates (is_number, is_string, ...) and type_name. In OPA the is_*
// builtins return true or false for any argument; they never fail.
import type { Value } from '../value/value.js';
import { typeName } from '../value/value.js';
import { RObject, RSet } from '../value/collections.js';
import { isNumber } from '../value/number.js';
import type { BuiltinDef } from './types.js';
import { T } from './types.js';

const typesCat = ['types'];

function pred(name: string, what: string, test: (v: Value) => boolean): BuiltinDef {
  return {
    decl: {
      name,
      args: [T.any],
      result: T.boolean,
      categories: typesCat,
      description: `Returns \`true\` if the input value is ${what}.`,
    },
    impl: ([v]) => test(v!),
  };
}

export const builtins: BuiltinDef[] = [
  pred('is_number', 'a number', (v) => isNumber(v)),
  pred('is_string', 'a string', (v) => typeof v === 'string'),
  pred('is_boolean', 'a boolean', (v) => typeof v === 'boolean'),
  pred('is_array', 'an array', (v) => Array.isArray(v)),
  pred('is_set', 'a set', (v) => v instanceof RSet),
  pred('is_object', 'an object', (v) => v instanceof RObject),
  pred('is_null', 'null', (v) => v === null),
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
