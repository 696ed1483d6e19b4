import { readFileSync } from 'node:fs';
import { compile } from '../../compiler/index.js';
import { prepareInterpreted } from '../../compiler/interp/index.js';
import { fromJS, toJS } from '../../runtime/index.js';
const text = readFileSync('/tmp/ft/test.rego', 'utf8');
const qs = ['[1,2] with input as 1', 'data.testing.r with data.x as "bar"', 'input.a with input as {"a": 5}', 'input.a with input as {"a": false}', 'input.b with input as {"a": 5}', 'x := data.testing.r with data.x as "bar"', 'count([1]) with input as 1', 'data.testing.q with data.x as "bar"', 'input.a with input as {"a": 5}; true'];
for (const b of ['js', 'closures'] as const) {
  const p = compile([{ file: 't.rego', text }], { backend: b });
  for (const q of qs) console.log(b, q, JSON.stringify(p.prepare(q).eval({}).map((r) => r.expressions.map((e) => toJS(e.value)))));
}
const p = compile([{ file: 't.rego', text }]);
for (const q of qs) console.log('interp', q, JSON.stringify(prepareInterpreted(p, q).eval({}).map((r: any) => r.expressions.map((e: any) => toJS(e.value)))));
