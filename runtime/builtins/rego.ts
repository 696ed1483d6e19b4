// Language-level builtins: the `rego` family, `print` and the `internal.*` builtins
// OPA declares. rego.parse_module parses Rego source into OPA's JSON AST as a value
// (what `opa parse --format json` prints, comments included), through the parser
// the compiler provides (provideModuleParser). rego.metadata.chain/rule never
// run inside rules: the compiler replaces those calls by constants (pass
// rewrite-rego-metadata-calls), so reaching them means a query called them, and
// they raise OPA's "must only be called within the scope of a rule" error.
// internal.print is print's compiled form (an array of per-argument value sets),
// internal.template_string the concatenation behind `$"…{x}…"`, internal.test_case
// the marker `opa test` injects into test rules with cases (cli/test-cases.ts): it
// hands its argument to the recorder in the builtin context's extras under TEST_CASES,
// when the caller put one there, and is true. The planner handles `print(…)` calls itself;
// these implementations serve other callers (`with` replacements, direct calls).
import type { BuiltinContext, BuiltinDef } from './types.js';
import { T } from './types.js';
import { asArray, asString } from './args.js';
import { BuiltinError } from './errors.js';
import type { Value } from '../value/value.js';
import { RSet } from '../value/collections.js';
import { formatPlain } from '../value/format.js';

/** The extras key of the recorder of internal.test_case arguments (`opa test`'s test cases). */
export const TEST_CASES = 'testCases';

/**
 * Parses Rego source into OPA's JSON AST as a value, or throws a BuiltinError
 * with OPA's message. The runtime has no parser of its own (it never imports the
 * compiler); the compiler provides one when it loads (compiler/policy.ts).
 */
export type ModuleParser = (file: string, text: string) => Value;

let moduleParser: ModuleParser | undefined;

/** Install the parser behind rego.parse_module. */
export function provideModuleParser(parser: ModuleParser): void {
  moduleParser = parser;
}

function parseModuleBuiltin(args: Value[]): Value {
  const file = asString(args[0]!, 1);
  const text = asString(args[1]!, 2);
  if (moduleParser === undefined) throw new BuiltinError('no Rego parser is available to this runtime');
  return moduleParser(file, text);
}

function outsideRule(name: string): never {
  throw new BuiltinError(`the ${name} function must only be called within the scope of a rule`);
}


/** Text of one `print` / template operand: a set of its values (empty = undefined). */
function operandText(v: Value, what: string): string {
  if (!(v instanceof RSet)) return formatPlain(v);
  const xs = v.values();
  if (xs.length === 0) return '<undefined>';
  if (xs.length > 1) throw new BuiltinError(`${what} must not produce multiple outputs`);
  return formatPlain(xs[0]!);
}

function printValues(args: Value[], ctx: BuiltinContext): Value {
  ctx.print(args.map((a) => formatPlain(a)).join(' '));
  return true;
}

function internalPrint(args: Value[], ctx: BuiltinContext): Value {
  const parts = asArray(args[0]!, 1);
  ctx.print(parts.map((p) => (p instanceof RSet ? p.values().map(formatPlain).join(' ') || '<undefined>' : formatPlain(p))).join(' '));
  return true;
}

function templateString(args: Value[]): Value {
  return asArray(args[0]!, 1)
    .map((p) => (typeof p === 'string' ? p : operandText(p, 'template-strings')))
    .join('');
}

const internalBuiltins: BuiltinDef[] = [
  {
    decl: { name: 'print', args: [], variadic: T.any, description: 'Prints its operands (undefined operands print as <undefined>).' },
    impl: printValues,
  },
  {
    decl: { name: 'internal.print', args: [T.arrayOf(T.setOf(T.any))] },
    impl: internalPrint,
  },
  {
    decl: { name: 'internal.template_string', args: [T.arrayOf(T.any)], result: T.string },
    impl: templateString,
  },
  {
    decl: { name: 'internal.test_case', args: [T.arrayOf(T.any)] },
    impl: (args, bctx) => {
      const record = bctx.extras[TEST_CASES];
      if (typeof record === 'function') (record as (path: Value) => void)(args[0]!);
      return true;
    },
  },
];

export const builtins: BuiltinDef[] = [
  ...internalBuiltins,
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
    impl: () => outsideRule('rego.metadata.chain'),
  },
  {
    decl: {
      name: 'rego.metadata.rule',
      args: [],
      result: T.any, // OPA declares any (capabilities files v1.0.0 to v1.20.2)
      categories: ['rego'],
      description: 'Returns annotations declared for the active rule and using the rule scope.',
    },
    impl: () => outsideRule('rego.metadata.rule'),
  },
];
