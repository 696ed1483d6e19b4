// Builtins of the `rego` family. rego.parse_module parses Rego source into OPA's
// JSON AST as a value (the same JSON `opa parse --format json` prints, comments
// included). rego.metadata.chain/rule return the annotations the host provides
// in ctx.extras (`rego.metadata.chain` / `rego.metadata.rule`: a value, or a
// function of no arguments); without them, an empty chain and an empty object.
import type { BuiltinContext, BuiltinDef } from './types.js';
import { T } from './types.js';
import { asString } from './args.js';
import { BuiltinError } from './errors.js';
import type { Value } from '../value/value.js';
import { RObject } from '../value/collections.js';
import { parseJSON } from '../value/json.js';
import { parseModule } from '../../compiler/parser/index.js';
import { moduleToJSON, stringifyOpaJSON } from '../../compiler/ast/opa-json.js';
import { RegoErrors } from '../../compiler/source/diagnostics.js';

function parseModuleBuiltin(args: Value[]): Value {
  const file = asString(args[0]!, 1);
  const text = asString(args[1]!, 2);
  let m;
  try {
    m = parseModule(text, file);
  } catch (e) {
    if (!(e instanceof RegoErrors)) throw e;
    const lines = e.errors.map((x) => `${x.location ? `${x.location.file}:${x.location.row}: ` : ''}${x.code}: ${x.message}`);
    throw new BuiltinError(lines.length === 1 ? `1 error occurred: ${lines[0]}` : `${lines.length} errors occurred:\n${lines.join('\n')}`);
  }
  return parseJSON(stringifyOpaJSON(moduleToJSON(m), ''));
}

function hostValue(ctx: BuiltinContext, key: string, fallback: () => Value): Value {
  const x = ctx.extras[key];
  if (typeof x === 'function') return (x as () => Value)();
  return x === undefined ? fallback() : (x as Value);
}

const annotations = T.objectOf(T.string, T.any);

export const builtins: BuiltinDef[] = [
  {
    decl: {
      name: 'rego.parse_module',
      args: [T.string, T.string],
      result: T.objectOf(T.string, T.any),
      categories: ['rego'],
      description: 'Parses the input Rego string and returns an object representation of the AST.',
    },
    impl: parseModuleBuiltin,
  },
  {
    decl: {
      name: 'rego.metadata.chain',
      args: [],
      result: T.arrayOf(T.any),
      categories: ['rego'],
      description: 'Returns the chain of metadata for the active rule.',
    },
    impl: (_args, ctx) => hostValue(ctx, 'rego.metadata.chain', () => []),
  },
  {
    decl: {
      name: 'rego.metadata.rule',
      args: [],
      result: annotations,
      categories: ['rego'],
      description: 'Returns annotations declared for the active rule and using the rule scope.',
    },
    impl: (_args, ctx) => hostValue(ctx, 'rego.metadata.rule', () => new RObject()),
  },
];
