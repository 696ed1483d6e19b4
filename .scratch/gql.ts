import { builtins } from '/work/main/runtime/builtins/graphql.ts';
import { toJSONText } from '/work/main/runtime/value/index.ts';
const g = (n: string) => builtins.find((b) => b.decl.name === n)!.impl;
const schema = `type Employee { id: String! salary: Int! } schema { query: Query } type Query { employeeByID(id: String!): Employee }`;
const q = `query { employeeByID(id: "alice") { salary } }`;
const r = g('graphql.parse')([q, schema], {} as any) as any;
console.log(toJSONText(r[0])); console.log(toJSONText(r[1]));
console.log(g('graphql.is_valid')([q, schema], {} as any), g('graphql.is_valid')(['{ nope }', schema], {} as any));
console.log(g('graphql.is_valid')([r[0], r[1]], {} as any));
try { g('graphql.parse_query')(['query { x '], {} as any) } catch (e) { console.log((e as Error).message) }
try { g('graphql.parse')(['{ nope }', schema], {} as any) } catch (e) { console.log((e as Error).message) }
console.log(g('graphql.schema_is_valid')(['type Foo { x: Bar }'], {} as any));
