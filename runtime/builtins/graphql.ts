// Builtins of the `graphql` family, on the `graphql` package: parsing queries and
// schemas into gqlparser-shaped AST objects (see graphql-ast.ts), validation of a
// query against a schema, and schema validation. Error messages are rewritten to
// OPA's "<msg> in GraphQL string at location <line>:<col>" form; the message text
// itself is graphql-js's (close to, but not always equal to, gqlparser's).
// graphql-js loads on the first graphql.* call (about 50 ms of start-up otherwise).
import { createRequire } from 'node:module';
import type { DocumentNode, GraphQLError, GraphQLSchema } from 'graphql';
import type { BuiltinDef, BuiltinImpl, TypeSpec } from './types.js';
import { T } from './types.js';
import { asString } from './args.js';
import { BuiltinError, operandError } from './errors.js';
import { fromJS, RObject, toJS, type Value } from '../value/index.js';
import { prune, queryDocument, schemaDocument } from './graphql-ast.js';
import { printQueryDocument, printSchemaDocument } from './graphql-print.js';

let graphqlModule: typeof import('graphql') | undefined;
const gql = (): typeof import('graphql') => (graphqlModule ??= createRequire(import.meta.url)('graphql') as typeof import('graphql'));

function location(e: GraphQLError): string {
  const loc = e.locations?.[0];
  return loc ? `${loc.line}:${loc.column}` : '0:0';
}

const cleanMessage = (m: string): string => m.replace(/^Syntax Error: /, '').replace(/\.$/, '');

function parseDoc(text: string, what: 'string' | 'query string'): DocumentNode {
  try {
    return gql().parse(text, { noLocation: false });
  } catch (e) {
    if (e instanceof gql().GraphQLError) throw new BuiltinError(`${cleanMessage(e.message)} in GraphQL ${what} at location ${location(e)}`);
    throw e;
  }
}

function isSchemaDoc(doc: DocumentNode): boolean {
  return doc.definitions.every((d) => d.kind !== 'OperationDefinition' && d.kind !== 'FragmentDefinition');
}

function isQueryDoc(doc: DocumentNode): boolean {
  return doc.definitions.every((d) => d.kind === 'OperationDefinition' || d.kind === 'FragmentDefinition');
}

function parseQuery(text: string): DocumentNode {
  const doc = parseDoc(text, 'string');
  if (!isQueryDoc(doc)) {
    const d = doc.definitions.find((x) => !isQueryDoc({ ...doc, definitions: [x] }))!;
    const loc = d.loc ? `${d.loc.startToken.line}:${d.loc.startToken.column}` : '0:0';
    throw new BuiltinError(`Unexpected Name "${d.loc?.startToken.value ?? ''}" in GraphQL string at location ${loc}`);
  }
  return doc;
}

function parseSchema(text: string): DocumentNode {
  const doc = parseDoc(text, 'string');
  if (!isSchemaDoc(doc)) {
    const d = doc.definitions.find((x) => x.kind === 'OperationDefinition' || x.kind === 'FragmentDefinition')!;
    const loc = d.loc ? `${d.loc.startToken.line}:${d.loc.startToken.column}` : '0:0';
    throw new BuiltinError(`Unexpected ${d.loc?.startToken.kind === '{' ? '"{"' : `Name "${d.loc?.startToken.value ?? ''}"`} in GraphQL string at location ${loc}`);
  }
  return doc;
}

/** A query operand: a string, or an AST object printed back to text. */
function queryOperand(v: Value, pos: number): DocumentNode {
  if (typeof v === 'string') return parseQuery(v);
  if (v instanceof RObject) return parseQuery(printQueryDocument(toJS(v) as Record<string, unknown>));
  throw operandError(pos, 'one of {string, object}', v);
}

function schemaOperand(v: Value, pos: number): DocumentNode {
  if (typeof v === 'string') return parseSchema(v);
  if (v instanceof RObject) return parseSchema(printSchemaDocument(toJS(v) as Record<string, unknown>));
  throw operandError(pos, 'one of {string, object}', v);
}

/** convertSchema: build and validate the schema. */
function buildSchema(doc: DocumentNode): GraphQLSchema {
  let schema: GraphQLSchema;
  try {
    schema = gql().buildASTSchema(doc, { assumeValidSDL: false });
  } catch (e) {
    throw new BuiltinError(`Error in gqlparser SchemaDocument to Schema conversion: ${(e as Error).message}`);
  }
  const errs = gql().validateSchema(schema);
  if (errs.length) throw new BuiltinError(`Error in gqlparser SchemaDocument to Schema conversion: ${errs[0]!.message}`);
  return schema;
}

function validateQuery(schema: GraphQLSchema, doc: DocumentNode): void {
  const errs = gql().validate(schema, doc);
  if (errs.length) throw new BuiltinError(`${cleanMessage(errs[0]!.message)} in GraphQL query string at location ${location(errs[0]!)}`);
}

const queryValue = (doc: DocumentNode): Value => fromJS(prune(queryDocument(doc)));
const schemaValue = (doc: DocumentNode): Value => fromJS(prune(schemaDocument(doc)));

/** Run `f`, mapping any BuiltinError to `fallback`. */
function orElse<V>(f: () => V, fallback: V): V {
  try {
    return f();
  } catch (e) {
    if (e instanceof BuiltinError) return fallback;
    throw e;
  }
}

// OPA reports wrong operand types for graphql.parse as operands 0 and 1.
const gqlParse: BuiltinImpl = ([q, s]) => {
  const query = queryOperand(q!, 0);
  const schemaDoc = schemaOperand(s!, 1);
  validateQuery(buildSchema(schemaDoc), query);
  return [queryValue(query), schemaValue(schemaDoc)];
};

const gqlParseAndVerify: BuiltinImpl = ([q, s]) =>
  orElse<Value>(() => {
    const query = queryOperand(q!, 1);
    const schemaDoc = schemaOperand(s!, 2);
    validateQuery(buildSchema(schemaDoc), query);
    return [true, queryValue(query), schemaValue(schemaDoc)];
  }, [false, new RObject(), new RObject()]);

const gqlIsValid: BuiltinImpl = ([q, s]) =>
  orElse(() => {
    const query = queryOperand(q!, 1);
    validateQuery(buildSchema(schemaOperand(s!, 2)), query);
    return true;
  }, false);

const gqlSchemaIsValid: BuiltinImpl = ([s]) =>
  orElse(() => {
    buildSchema(schemaOperand(s!, 1));
    return true;
  }, false);

const STR_OR_OBJ = T.anyOf(T.string, T.objectOf(T.any, T.any));
const OBJ = T.objectOf(T.any, T.any);
const d = (name: string, args: TypeSpec[], result: TypeSpec, impl: BuiltinImpl): BuiltinDef => ({
  decl: { name, args, result, categories: ['graphql'] },
  impl,
});

export const builtins: BuiltinDef[] = [
  d('graphql.parse', [STR_OR_OBJ, STR_OR_OBJ], T.tuple(OBJ, OBJ), gqlParse),
  d('graphql.parse_and_verify', [STR_OR_OBJ, STR_OR_OBJ], T.tuple(T.boolean, OBJ, OBJ), gqlParseAndVerify),
  d('graphql.parse_query', [T.string], OBJ, ([q]) => queryValue(parseQuery(asString(q!, 1)))),
  d('graphql.parse_schema', [T.string], OBJ, ([s]) => schemaValue(parseSchema(asString(s!, 1)))),
  d('graphql.is_valid', [STR_OR_OBJ, STR_OR_OBJ], T.boolean, gqlIsValid),
  d('graphql.schema_is_valid', [STR_OR_OBJ], T.boolean, gqlSchemaIsValid),
];
