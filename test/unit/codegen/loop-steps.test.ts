// Steps and the deadline in generated loops (compiler/codegen/js/emit.ts TICK: every loop
// iteration counts a step, and every 1,024th step checks the deadline and the heap). A
// deadline must stop one long loop whose body is slow, nested loops, and a series of
// short loops whose items add up; nested or early-exiting loops, `every` and `walk` must
// answer as the closure back end and the interpreter do. (Stop 25 tried counting a
// loop's items on entry and checking on the loop index instead of a context write per
// iteration: no measurable gain on RBAC, ACI or admission, so the per-iteration count
// stayed; these tests were written for it and hold for both.)
import { describe, expect, it } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { fromJS } from '../../../runtime/index.js';
import { expectSameOutcomes, queryOutcome } from './three-way.js';

const POLICY = `package p

# One loop of a million items with a slow body (a builtin call, no inner loop).
slow if {
	some x in numbers.range(1, 1000000)
	sprintf("%v-%v", [x, x]) == "never"
}

# 10,000 × 10,000 iterations that build nothing.
nested if {
	some a in numbers.range(1, 10000)
	some b in numbers.range(1, 10000)
	a == b + 1000000
}

first_big := x if {
	some x in input.xs
	x > 2
}

pairs contains [a, b] if {
	some a in input.xs
	some b in input.ys
	a < b
}

all_positive if every x in input.xs { x > 0 }

all_big if every x in input.xs { x > 100 }

leaves contains v if {
	walk(input.tree, [_, v])
	is_number(v)
}

# 1,000 short loops after one of 1,000 items: no loop reaches 1,024 iterations.
short_loops := count([1 |
	some i in numbers.range(1, 1000)
	some j in [1, 2, 3]
	i + j == 1000
])
`;

const js = compile([{ file: 'p.rego', text: POLICY }]);
const closures = compile([{ file: 'p.rego', text: POLICY }], { backend: 'closures' });

describe('steps and the deadline in generated loops', () => {
  it('stops one long loop with a slow body at the deadline', () => {
    const got = queryOutcome(() => js.prepare('data.p.slow').eval({ input: fromJS({}), deadline: Date.now() + 30 }));
    expect(got).toMatchObject({ code: 'eval_cancel_error' });
  });

  it('stops nested loops at the deadline', () => {
    const got = queryOutcome(() => js.prepare('data.p.nested').eval({ input: fromJS({}), deadline: Date.now() + 30 }));
    expect(got).toMatchObject({ code: 'eval_cancel_error' });
  });

  it('a deadline already past stops short loops once their items add up to 1,024', () => {
    const got = queryOutcome(() => js.prepare('data.p.short_loops').eval({ input: fromJS({}), deadline: Date.now() - 1 }));
    expect(got).toMatchObject({ code: 'eval_cancel_error' });
  });

  it('answers as the closure back end and the interpreter do', () => {
    const input = fromJS({ xs: [1, 3, 5, 2], ys: [2, 4], tree: { a: [1, { b: 2 }], c: 'x', d: 3.5 } });
    const queries = ['data.p.first_big', 'data.p.pairs', 'data.p.all_positive', 'data.p.all_big', 'data.p.leaves', 'data.p.short_loops'];
    expectSameOutcomes(js, closures, queries, { input });
    expect(queryOutcome(() => js.prepare('data.p.short_loops').eval({ input }))).toEqual({ ok: [3] });
    expect(queryOutcome(() => js.prepare('data.p.pairs').eval({ input }))).toEqual({ ok: [[[1, 2], [1, 4], [2, 4], [3, 4]]] });
  });
});
