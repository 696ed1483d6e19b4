// A query expression's value, as OPA's rego package captures it
// (rewriteQueryToCaptureValue): a term's value (`data.x.allow` is false, not
// undefined), also under `with` modifiers (`input.a with input as {"a": 5}` is 5, not
// true); the truthiness test only when the query has several expressions or iterates.
// Every back end plans the query the same way (compiler/plan/query.ts); checked on the
// JS back end, the closures and the reference interpreter.
import { describe, expect, it } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { prepareInterpreted } from '../../../compiler/interp/index.js';
import { toJS } from '../../../runtime/index.js';

const TEXT = `package t

s contains x if x := data.x
allow := false
`;

const CASES: [string, unknown[][]][] = [
  ['data.t.allow', [[false]]],
  ['data.t.allow with input as 1', [[false]]],
  ['input.a with input as {"a": 5}', [[5]]],
  ['input.a with input as {"a": false}', [[false]]],
  ['input.b with input as {"a": 5}', []],
  ['[1, 2] with input as 1', [[[1, 2]]]],
  ['data.t.s with data.x as "bar"', [[['bar']]]],
  ['count([1]) with input as 1', [[1]]],
  ['x := input.a with input as {"a": 5}', [[true]]],
  // Several expressions: each captured value must also be true (not false).
  ['input.a with input as {"a": 5}; true', [[5, true]]],
  ['input.a with input as {"a": false}; true', []],
];

describe('query expression values', () => {
  const js = compile([{ file: 't.rego', text: TEXT }]);
  const closures = compile([{ file: 't.rego', text: TEXT }], { backend: 'closures' });
  const values = (rows: { expressions: { value: unknown }[] }[]) => rows.map((r) => r.expressions.map((e) => toJS(e.value as never)));
  for (const [query, want] of CASES) {
    it(query, () => {
      expect(values(js.prepare(query).eval({}))).toEqual(want);
      expect(values(closures.prepare(query).eval({}))).toEqual(want);
      expect(values(prepareInterpreted(js, query).eval({}))).toEqual(want);
    });
  }
});
