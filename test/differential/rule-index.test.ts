// Indexed rule groups (compiler/passes/rule-index.ts; looked up in
// compiler/codegen/js/rule-compiler.ts: string keys by the string itself, other scalars
// by canonical key, `input.a.b` refs through a generated reader) must give what the
// closure back end and the reference interpreter give: hits, misses, non-string values
// equal to a key (1 and 1.0), input that is not an object, missing input, definitions
// without the indexed condition, `with input` replacements, and decisions.
import { describe, expect, it } from 'vitest';
import { compile } from '../../compiler/index.js';
import { prepareInterpreted } from '../../compiler/interp/index.js';
import { fromJS, toJS, type Value } from '../../runtime/index.js';

const POLICY = `package p

allow if input.x == "a"
allow if input.x == "b"
allow if input.x == 1
allow if input.x == true
allow if input.x == null
allow if input.y == "always-checked"

deep contains "a1" if input.a.b == "one"
deep contains "a2" if input.a.b == "two"
deep contains "a3" if input.a.b == 2
deep contains "other" if input.z

kind := "string" if input.x == "a"
kind := "number" if input.x == 1

from_data if data.cfg.mode == "strict"
from_data if data.cfg.mode == "lax"

replaced if allow with input as {"x": "b"}
replaced_miss if allow with input.x as "zzz"
`;

const INPUTS: (unknown | undefined)[] = [
  { x: 'a' },
  { x: 'b' },
  { x: 'c' },
  { x: 1 },
  { x: 1.0 },
  { x: 2 },
  { x: true },
  { x: false },
  { x: null },
  { x: ['a'] },
  { y: 'always-checked' },
  { a: { b: 'one' } },
  { a: { b: 'two' }, z: true },
  { a: { b: 2 } },
  { a: 'not-an-object' },
  { a: { b: { c: 1 } } },
  'a string input',
  [1, 2],
  undefined,
];

const QUERIES = ['data.p.allow', 'data.p.deep', 'data.p.kind', 'data.p.from_data', 'data.p.replaced', 'data.p.replaced_miss'];
const DATA = [{ cfg: { mode: 'strict' } }, { cfg: { mode: 'other' } }, {}];

describe('rule index lookups', () => {
  const js = compile([{ file: 'p.rego', text: POLICY }]);
  const closures = compile([{ file: 'p.rego', text: POLICY }], { backend: 'closures' });
  it('indexes the groups this test is about', () => {
    const indexed = js.ir.groups.filter((g) => g.index).map((g) => g.path.join('.'));
    expect(indexed).toEqual(expect.arrayContaining(['p.allow', 'p.deep', 'p.kind', 'p.from_data']));
  });
  for (const [k, input] of INPUTS.entries()) {
    it(`agree for input ${JSON.stringify(input) ?? 'undefined'}`, () => {
      const i = input === undefined ? undefined : fromJS(input);
      for (const d of DATA) {
        const data = fromJS(d);
        for (const q of QUERIES) {
          const rows = (p: { eval: (o: { input?: Value; data: Value }) => { expressions: { value: Value }[] }[] }) =>
            p.eval({ input: i, data }).map((r) => toJS(r.expressions[0]!.value));
          const a = rows(js.prepare(q));
          expect(a, `${q} #${k}`).toEqual(rows(closures.prepare(q)));
          expect(a, `${q} #${k}`).toEqual(rows(prepareInterpreted(js, q)));
          const path = q.split('.').slice(1);
          const dec = (p: typeof js) => { const v = p.prepareDecision(path)({ input: i, data }); return v === undefined ? undefined : toJS(v); };
          expect(dec(js), `${q} decision #${k}`).toEqual(dec(closures));
        }
      }
    });
  }
});
