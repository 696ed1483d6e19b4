// Unit tests for graphql.* (graphql.ts, graphql-ast.ts, graphql-print.ts): AST
// shapes in gqlparser's JSON form, validation, OPA-style error messages, and AST
// objects accepted back as inputs.
import { describe, it, expect } from 'vitest';
import { builtins } from '../../../runtime/builtins/graphql.js';
import { fromJS, toJS } from '../../../runtime/value/index.js';
import { callerFor, builtinErrors } from './helpers.js';

const raw = callerFor(builtins);
const call = (name: string, args: unknown[]): any => toJS(raw(name, args.map((a) => fromJS(a)))!);
const err = builtinErrors((name: string, args: unknown[]) => raw(name, args.map((a) => fromJS(a))));

const SCHEMA = `
  type Employee { id: String! salary: Int! tags: [String!] }
  schema { query: Query }
  type Query { employeeByID(id: String!): Employee }
`;
const QUERY = 'query Q($id: String! = "bob") { employeeByID(id: $id) { salary } }';

describe('graphql parsing', () => {
  it('parse_query returns the pruned gqlparser shape', () => {
    expect(call('graphql.parse_query', [QUERY])).toEqual({
      Operations: [
        {
          Name: 'Q',
          Operation: 'query',
          VariableDefinitions: [{ Variable: 'id', Type: { NamedType: 'String', NonNull: true }, DefaultValue: { Raw: 'bob', Kind: 3 } }],
          SelectionSet: [
            {
              Alias: 'employeeByID',
              Name: 'employeeByID',
              Arguments: [{ Name: 'id', Value: { Raw: 'id', Kind: 0 } }],
              SelectionSet: [{ Alias: 'salary', Name: 'salary' }],
            },
          ],
        },
      ],
    });
  });
  it('parse_schema returns definitions and schema', () => {
    const s = call('graphql.parse_schema', [SCHEMA]);
    expect(s.Schema).toEqual([{ Description: '', OperationTypes: [{ Operation: 'query', Type: 'Query' }] }]);
    expect(s.Definitions.map((d: any) => [d.Kind, d.Name])).toEqual([
      ['OBJECT', 'Employee'],
      ['OBJECT', 'Query'],
    ]);
    expect(s.Definitions[0].Fields[2].Type).toEqual({ NamedType: '', Elem: { NamedType: 'String', NonNull: true }, NonNull: false });
  });
  it('syntax errors use OPA wording', () => {
    expect(err('graphql.parse_query', ['query { x '])).toBe(
      'eval_builtin_error: graphql.parse_query: Expected Name, found <EOF> in GraphQL string at location 1:11',
    );
    expect(err('graphql.parse_query', [1])).toBe('eval_type_error: graphql.parse_query: operand 1 must be string but got number');
    expect(err('graphql.parse_schema', ['type {'])).toContain('in GraphQL string at location 1:6');
  });
});

describe('graphql validation', () => {
  it('parse validates the query against the schema', () => {
    const [q, s] = call('graphql.parse', [QUERY, SCHEMA]);
    expect(q.Operations[0].Name).toBe('Q');
    expect(s.Definitions).toHaveLength(2);
    expect(err('graphql.parse', ['{ nope }', SCHEMA])).toBe(
      'eval_builtin_error: graphql.parse: Cannot query field "nope" on type "Query" in GraphQL query string at location 1:3',
    );
    expect(err('graphql.parse', [1, SCHEMA])).toBe('eval_type_error: graphql.parse: operand 0 must be one of {string, object} but got number');
  });
  it('parse_and_verify, is_valid and schema_is_valid never raise', () => {
    expect(call('graphql.parse_and_verify', [QUERY, SCHEMA])[0]).toBe(true);
    expect(call('graphql.parse_and_verify', ['{ nope }', SCHEMA])).toEqual([false, {}, {}]);
    expect(call('graphql.is_valid', [QUERY, SCHEMA])).toBe(true);
    expect(call('graphql.is_valid', ['{ employeeByID { salary } }', SCHEMA])).toBe(false);
    expect(call('graphql.is_valid', [1, SCHEMA])).toBe(false);
    expect(call('graphql.schema_is_valid', [SCHEMA])).toBe(true);
    expect(call('graphql.schema_is_valid', ['type Query { x: Missing }'])).toBe(false);
    expect(call('graphql.schema_is_valid', ['type Query {'])).toBe(false);
  });
  it('accepts AST objects in place of strings', () => {
    const q = call('graphql.parse_query', ['query { employeeByID(id: "a") { salary ...F } } fragment F on Employee { id }']);
    const s = call('graphql.parse_schema', [SCHEMA]);
    expect(call('graphql.is_valid', [q, s])).toBe(true);
    expect(call('graphql.schema_is_valid', [s])).toBe(true);
    const [q2] = call('graphql.parse', [q, s]);
    expect(q2).toEqual(q);
  });
});
