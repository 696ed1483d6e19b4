// A read of input or data repeated in one generated function (`data.coll[input.k]` in
// two definitions of a rule, or in a rule and a rule inlined into it) is evaluated once
// per call and reused (compiler/codegen/js/emit-exprs.ts, ExprEmitter.reads). The JS
// back end must keep giving what the closure back end and the reference interpreter
// give: whatever the read finds (array, object, set, string, number, null, nothing),
// under `with data` replacements, when the first occurrence fails and a later one runs
// again, and a long loop in such a function must still stop at the deadline.
import { describe, expect, it } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { agreeingValues } from './three-way.js';
import { EvalError, fromJS, RSet, toJS, type Value } from '../../../runtime/index.js';

const POLICY = `package q

import rego.v1

default allow := false

allow if {
	some r in data.coll[input.k]
	r == input.want
}

allow if "admin" in data.coll[input.k]

allow if count(data.coll[input.k]) == input.n

allow if {
	some key, _ in data.coll[input.k]
	key == input.want
}

hits contains x if {
	some x in data.coll[input.k]
	x == input.want
}

hits contains x if {
	x := data.coll[input.k][input.want]
}

via_set if {
	some h in hits
	h == data.coll[input.k][input.want]
}

via_set if "admin" in data.coll[input.k]

mocked if allow with data.coll as {"a": ["admin"], "s": "admin"}

mocked_input if allow with input.k as "arr"

default slow := false

slow if {
	input.slow
	data.coll[input.k]
	some i in numbers.range(1, 3000)
	some j in numbers.range(1, 3000)
	i == j + 100000
}

slow if data.coll[input.k] == "never"
`;

const SET = new RSet();
SET.add('x');
SET.add('admin');

const DATA = {
  coll: { arr: ['x', 'admin', 'y'], obj: { x: 1, admin: 2, z: [3] }, str: 'admin', num: 3, nul: null, empty: [], nested: [['admin']] },
};

const INPUTS = [
  { k: 'arr', want: 'y' },
  { k: 'arr', want: 'q', n: 3 },
  { k: 'obj', want: 'x' },
  { k: 'obj', want: 'admin' },
  { k: 'obj', want: 'nope', n: 3 },
  { k: 'set', want: 'x' },
  { k: 'set', want: 'q', n: 2 },
  { k: 'str', want: 'a', n: 5 },
  { k: 'num', want: 3 },
  { k: 'nul', want: null },
  { k: 'empty', want: 'x', n: 0 },
  { k: 'nested', want: 0 },
  { k: 'missing', want: 'x' },
  { want: 'x' },
  { k: 1, want: 'x' },
];

const QUERIES = ['data.q.allow', 'data.q.hits', 'data.q.via_set', 'data.q.mocked', 'data.q.mocked_input'];

function dataValue(): Value {
  const d = fromJS(DATA) as unknown as { props: { coll: { set: (k: Value, v: Value) => void } } };
  d.props.coll.set('set', SET);
  return d as unknown as Value;
}

describe('shared reads of input and data', () => {
  const js = compile([{ file: 'q.rego', text: POLICY }]);
  const closures = compile([{ file: 'q.rego', text: POLICY }], { backend: 'closures' });
  const data = dataValue();
  for (const input of INPUTS) {
    it(`agree for ${JSON.stringify(input)}`, () => {
      const i = fromJS(input);
      for (const q of QUERIES) agreeingValues(js, closures, q, i, data);
      for (const rule of ['allow', 'via_set', 'mocked', 'slow']) {
        const a = js.prepareDecision(['q', rule])({ input: i, data });
        const b = closures.prepareDecision(['q', rule])({ input: i, data });
        expect(a === undefined ? a : toJS(a), rule).toEqual(b === undefined ? b : toJS(b));
      }
    });
  }

  it('reuses the read in the generated decision', () => {
    // Same data, different input objects: nothing is kept from one call to the next.
    const decide = js.prepareDecision(['q', 'allow']);
    expect(decide({ input: fromJS({ k: 'arr', want: 'y' }), data })).toBe(true);
    expect(decide({ input: fromJS({ k: 'obj', want: 'q' }), data })).toBe(false);
    expect(decide({ input: fromJS({ k: 'set', want: 'admin' }), data })).toBe(true);
    expect(decide({ input: fromJS({ k: 'arr', want: 'q' }), data: fromJS({ coll: { arr: ['admin'] } }) })).toBe(true);
  });

  it('stops a long loop at the deadline', () => {
    const decide = js.prepareDecision(['q', 'slow']);
    const started = Date.now();
    let error: unknown;
    try {
      decide({ input: fromJS({ k: 'arr', slow: true }), data, deadline: Date.now() + 50 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EvalError);
    expect((error as EvalError).code).toBe('eval_cancel_error');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
