// Steps and the deadline in generated loops (compiler/codegen/js/emit.ts steps). A loop
// whose body calls a builtin, a function or a rule, or builds a collection, counts a step
// on every iteration (TICK); a loop whose body only reads, compares and binds counts its
// items on entry (EvalContext.countSteps). Every 1,024th step checks the deadline and the
// heap. A deadline must stop one long loop whose body is slow, nested loops of either
// kind, and a series of short loops whose items add up; nested or early-exiting loops,
// `every` and `walk` must answer as the closure back end and the interpreter do. (Stop 25
// tried counting on entry with a check on the loop index, which kept a call in every
// loop: no gain. Stop 29 counts on entry with no call left in the loop: the RBAC
// decision's loops run about 6% faster.)
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { fromJS } from '../../../runtime/index.js';
import { EvalContext } from '../../../runtime/eval/context.js';
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

# 10,000 × 10,000 iterations whose body only compares: each loop counts on entry.
nested_cheap if {
	some a in numbers.range(1, 10000)
	some b in numbers.range(1, 10000)
	a > b
	b > a
}

# One loop of 2,000 items that only compares.
one_cheap if {
	some x in numbers.range(1, 2000)
	x < 0
}

# Loops whose bodies call a builtin, call a function, or build a collection.
calls_builtin if {
	some x in input.xs
	abs(x) > 100
}

big(x) if x > 100

calls_function if {
	some x in input.xs
	big(x)
}

builds := [[x] | some x in input.xs]

compares if {
	some x in input.xs
	x > 100
}

none_big if {
	every x in input.xs {
		x < 100
	}
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
  /** The outcome of `query` with a deadline `ms` from now (negative: already past). */
  const withDeadline = (query: string, ms: number) => queryOutcome(() => js.prepare(query).eval({ input: fromJS({}), deadline: Date.now() + ms }));

  it('stops one long loop with a slow body at the deadline', () => {
    expect(withDeadline('data.p.slow', 30)).toMatchObject({ code: 'eval_cancel_error' });
  });

  it('stops nested loops at the deadline, counting per iteration or on entry', () => {
    expect(withDeadline('data.p.nested', 30)).toMatchObject({ code: 'eval_cancel_error' });
    expect(withDeadline('data.p.nested_cheap', 30)).toMatchObject({ code: 'eval_cancel_error' });
  });

  it('a deadline already past stops short loops once their items add up to 1,024', () => {
    expect(withDeadline('data.p.short_loops', -1)).toMatchObject({ code: 'eval_cancel_error' });
  });

  it('a deadline already past stops a loop that counts its 2,000 items on entry', () => {
    expect(withDeadline('data.p.one_cheap', -1)).toMatchObject({ code: 'eval_cancel_error' });
    expect(queryOutcome(() => js.prepare('data.p.one_cheap').eval({ input: fromJS({}) }))).toEqual({ ok: [] });
  });

  it(`answers as the closure back end and the interpreter do`, () => {
    const input = fromJS({ xs: [1, 3, 5, 2], ys: [2, 4], tree: { a: [1, { b: 2 }], c: 'x', d: 3.5 } });
    const queries = ['data.p.first_big', 'data.p.pairs', 'data.p.all_positive', 'data.p.all_big', 'data.p.leaves', 'data.p.short_loops'];
    expectSameOutcomes(js, closures, queries, { input });
    expect(queryOutcome(() => js.prepare('data.p.short_loops').eval({ input }))).toEqual({ ok: [3] });
    expect(queryOutcome(() => js.prepare('data.p.pairs').eval({ input }))).toEqual({ ok: [[[1, 2], [1, 4], [2, 4], [3, 4]]] });
  });
});

describe('where a generated loop counts its steps', () => {
  afterEach(() => vi.restoreAllMocks());
  const xs = fromJS({ xs: [1, 3, 500, 2] });

  /** The item counts given to countSteps while `query` runs (entry counting), and its answer. */
  function counted(query: string): { counts: number[]; answer: unknown } {
    const spy = vi.spyOn(EvalContext.prototype, 'countSteps');
    const answer = queryOutcome(() => js.prepare(query).eval({ input: xs }));
    const counts = spy.mock.calls.map((c) => c[0]);
    spy.mockRestore();
    return { counts, answer };
  }

  it('counts on entry when the body only reads, compares and binds', () => {
    expect(counted('data.p.compares')).toEqual({ counts: [4], answer: { ok: [true] } });
    expect(counted('data.p.none_big')).toEqual({ counts: [4], answer: { ok: [] } });
  });

  it('counts every iteration when the body calls a builtin or a function, or builds a collection', () => {
    expect(counted('data.p.calls_builtin')).toEqual({ counts: [], answer: { ok: [true] } });
    expect(counted('data.p.calls_function')).toEqual({ counts: [], answer: { ok: [true] } });
    expect(counted('data.p.builds')).toEqual({ counts: [], answer: { ok: [[[1], [3], [500], [2]]] } });
  });

  it('answers as the closure back end and the interpreter do', () => {
    expectSameOutcomes(js, closures, ['data.p.compares', 'data.p.none_big', 'data.p.calls_builtin', 'data.p.calls_function', 'data.p.builds'], { input: xs });
  });
});
