// User-function calls on the JS back end (compiler/codegen/js/program.ts): every
// definition's solutions go to one reusable sink whose state (the value so far, the
// definition running) Program.single saves and restores around each call, and a function
// whose definitions all produce one constant stops at its first solution
// (compiler/codegen/js/ir-facts.ts functionConstants). Calls nested in a body (a function
// calling functions with several definitions, including conflicting ones) must keep each
// call's state apart: a conflict is found after nested calls, no conflict is invented by
// them, an error inside a nested call leaves the next evaluation clean, and `with` mocks,
// else chains and memoized repeats still agree with the closure back end and the
// reference interpreter. A memo that found nothing in its first MEMO_TRIAL calls is
// dropped (FunctionMemos in compiler/codegen/js/program-memo.ts) only in a policy without `print`: results stay the same
// after it, and a printing policy still prints a defined call once.
import { describe, expect, it } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { prepareInterpreted } from '../../../compiler/interp/index.js';
import { outcome } from './three-way.js';
import { MEMO_TRIAL } from '../../../compiler/codegen/js/program-memo.js';
import { fromJS, toJS, type Value } from '../../../runtime/index.js';

const POLICY = `package p

# Two definitions that agree unless x > 1.
clash(x) := 1 if x > 0
clash(x) := 2 if x > 1
clash(x) := 1 if x == 1

# Two definitions with the same value; the second one's body makes nested calls whose
# own values differ from it (they must not leak into this call's state).
agree(x) := "a" if label(x) == "a"
agree(x) := "a" if {
	label(x * 10) == "b"
	label(x * 100) == "b"
	x < 5
}

label(x) := "a" if x < 10
label(x) := "b" if x >= 10

# Definitions that differ after nested calls: a conflict only when both hold.
differ(x) := label(x)
differ(x) := label(x + 10) if x > 2

# A conflict raised inside a nested call.
outer(x) := y if {
	y := clash(x)
}

# Functions of one constant: the first definition with a solution decides.
ok(x) if x == "one"
ok(x) if startswith(x, "o")
ok(x) if {
	some y in ["p", "q"]
	y == x
}

checks(xs) := [x | some x in xs; ok(x)]

both(x) if {
	ok(x)
	agree(1) == "a"
}

# An else chain, called repeatedly (memoized from the second call).
tier(x) := "high" if x > 10
else := "mid" if x > 5
else := "low"

tiers := [tier(x) | some x in [1, 6, 11, 6, 1]]

deep(x) := tier(x) if agree(1) == "a"

mocked := x if x := agree(1) with label as mock_label
mock_label(x) := "a"

mock_ok := x if x := ok("zzz") with ok as true

arg := input.x
r_clash := clash(arg)
r_agree := agree(arg)
r_differ := differ(arg)
r_outer := outer(arg)
r_ok if ok(arg)
r_checks := checks(["one", "own", "p", "x", "q"])
r_both if both(arg)
r_deep := deep(arg)
`;

const INPUTS: unknown[] = [{ x: 0 }, { x: 1 }, { x: 2 }, { x: 3 }, { x: 6 }, { x: 12 }, { x: 'one' }, { x: 'ox' }, { x: 'q' }, { x: 'z' }, {}];

const QUERIES = ['r_clash', 'r_agree', 'r_differ', 'r_outer', 'r_ok', 'r_checks', 'r_both', 'r_deep', 'tiers', 'mocked', 'mock_ok'];

type Prepared = { eval: (o: { input?: Value; data: Value }) => { expressions: { value: Value }[] }[] };

describe('user-function calls (one reusable sink per call, early exit for constant functions)', () => {
  const js = compile([{ file: 'p.rego', text: POLICY }]);
  const closures = compile([{ file: 'p.rego', text: POLICY }], { backend: 'closures' });
  const data = fromJS({});
  const first = (p: Prepared, input: Value) => outcome(() => p.eval({ input, data })[0]?.expressions[0]!.value);

  for (const input of INPUTS) {
    it(`agree with the closure back end and the interpreter for ${JSON.stringify(input)}`, () => {
      const i = fromJS(input);
      for (const rule of QUERIES) {
        const q = `data.p.${rule}`;
        const got = first(js.prepare(q), i);
        expect(got, q).toEqual(first(closures.prepare(q), i));
        expect(got, q).toEqual(first(prepareInterpreted(js, q), i));
        const decided = outcome(() => js.prepareDecision(['p', rule])({ input: i, data }));
        expect(decided, `${q} (decision)`).toEqual(got);
      }
    });
  }

  it('give the hand-checked values and conflicts', () => {
    const at = (rule: string, x: unknown) => first(js.prepare(`data.p.${rule}`), fromJS({ x }));
    expect(at('r_clash', 1)).toEqual({ value: 1 });
    expect(at('r_clash', 2)).toEqual({ error: 'eval_conflict_error' });
    expect(at('r_clash', 0)).toEqual({ value: undefined });
    // The second definition's nested calls return "b": no conflict with "a".
    expect(at('r_agree', 1)).toEqual({ value: 'a' });
    expect(at('r_agree', 6)).toEqual({ value: 'a' });
    // label(3) is "a", label(13) is "b": a conflict found after the nested calls.
    expect(at('r_differ', 3)).toEqual({ error: 'eval_conflict_error' });
    expect(at('r_differ', 2)).toEqual({ value: 'a' });
    expect(at('r_outer', 2)).toEqual({ error: 'eval_conflict_error' });
    expect(at('r_ok', 'ox')).toEqual({ value: true });
    expect(at('r_ok', 'z')).toEqual({ value: undefined });
    expect(at('r_checks', 0)).toEqual({ value: ['one', 'own', 'p', 'q'] });
    expect(at('tiers', 0)).toEqual({ value: ['low', 'mid', 'high', 'mid', 'low'] });
    expect(at('r_deep', 12)).toEqual({ value: 'high' });
    expect(at('mocked', 0)).toEqual({ value: 'a' });
    expect(at('mock_ok', 0)).toEqual({ value: true });
  });

  it('leave no state behind after a conflict inside a nested call', () => {
    const outer = js.prepare('data.p.r_outer');
    const agree = js.prepare('data.p.r_agree');
    for (let round = 0; round < 3; round++) {
      expect(first(outer, fromJS({ x: 2 }))).toEqual({ error: 'eval_conflict_error' });
      expect(first(agree, fromJS({ x: 1 }))).toEqual({ value: 'a' });
      expect(first(outer, fromJS({ x: 1 }))).toEqual({ value: 1 });
    }
  });

  it('give the same results after a memo without hits is dropped', () => {
    const text = `package p

# Not a leaf (a comprehension): memoized until judged.
twice(x) := [y | some y in [x, x]]
firsts := [twice(x)[0] | some x in numbers.range(1, ${MEMO_TRIAL + 10})]
repeats := [twice(x)[1] | some x in [3, 3, 4, 3]]
`;
    const p = compile([{ file: 'p.rego', text }]);
    const data = fromJS({});
    const firsts = p.prepareDecision(['p', 'firsts']);
    const repeats = p.prepareDecision(['p', 'repeats']);
    const want = Array.from({ length: MEMO_TRIAL + 10 }, (_, i) => i + 1);
    for (let round = 0; round < 3; round++) {
      expect(toJS(firsts({ data })!)).toEqual(want);
      expect(toJS(repeats({ data })!)).toEqual([3, 3, 4, 3]);
    }
    const memoSlots = (p.program as unknown as { memos: { slots: number[] } }).memos.slots;
    expect(memoSlots[p.ir.groups.findIndex((g) => g.path.join('.') === 'p.twice')]).toBe(-1);
  });

  it('keep memoizing in a policy that prints: a defined call prints once', () => {
    const text = `package p

big(x) := x if {
	print("big", x)
	x > 5
}

r := [y | some y in array.concat(numbers.range(1, ${MEMO_TRIAL + 10}), [9, 9]); big(y)]
`;
    const decide = compile([{ file: 'p.rego', text }]).prepareDecision(['p', 'r']);
    for (let round = 0; round < 2; round++) {
      const lines: string[] = [];
      decide({ data: fromJS({}), print: (m: string) => lines.push(m) });
      expect(lines.filter((l) => l.endsWith('big 9'))).toHaveLength(1);
      expect(lines).toHaveLength(MEMO_TRIAL + 10);
    }
  });
});
