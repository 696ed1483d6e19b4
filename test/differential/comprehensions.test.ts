// Comprehensions emitted as loops in place by the JS source back end
// (compiler/codegen/js/emit-exprs.ts `comprehension`) against the closure back end and
// the reference interpreter, with expected values: array comprehensions keep the order
// of sets they enumerate (also inside unordered rule bodies), set and object
// comprehensions, nested ones, comprehensions over rules and in functions, undefined
// heads skipped, an empty result, an object comprehension's key conflict (an error on
// every back end), a comprehension in a rule body that otherwise keeps locals, and object
// literals (built in place too: an undefined member, a repeated key).
import { describe, expect, it } from 'vitest';
import { compile } from '../../compiler/index.js';
import { prepareInterpreted } from '../../compiler/interp/index.js';
import { fromJS, toJS, type Value } from '../../runtime/index.js';
import { rows } from './first-values.js';

const POLICY = `package p

s := {"c", "a", "b"}

ordered := [x | some x in s]

ordered_in_rule if {
	members := {y | some y in input.set}
	xs := [x | some x in members]
	xs == ["a", "b", "c"]
}

doubled := {y | some x in input.nums; y := x * 2}

by_name := {u.name: u.age | some u in input.users}

nested := [[y | some y in input.nums; y > x] | some x in input.nums]

missing := [u.missing | some u in input.users]

empty := [x | some x in input.nums; x > 100]

conflict := {k: v | some v in input.nums; k := "same"}

adults contains u.name if {
	some u in input.users
	u.age >= 18
}

adult_names := sort([n | adults[n]])

f(xs) := [y | some x in xs; y := x + 1]

via_function := f(input.nums)

counted if {
	n := count([u | some u in input.users; u.age > 10])
	n == 2
}

literal := {"first": input.nums[0], input.users[0].name: [1, {"k": input.set[0]}]}

literal_missing := {"a": input.nope}

literal_conflict := {input.set[0]: 1, "c": 2}

grouped := {age: names |
	some u in input.users
	age := u.age
	names := [v.name | some v in input.users; v.age == age]
}
`;

const INPUT = {
	set: ['c', 'b', 'a'],
	nums: [3, 1, 2],
	users: [
		{ name: 'ann', age: 30 },
		{ name: 'bob', age: 12 },
		{ name: 'cy', age: 7 },
	],
};

const EXPECTED: Record<string, unknown> = {
	ordered: ['a', 'b', 'c'],
	doubled: [2, 4, 6],
	by_name: { ann: 30, bob: 12, cy: 7 },
	nested: [[], [3, 2], [3]],
	missing: [],
	empty: [],
	adult_names: ['ann'],
	via_function: [4, 2, 3],
	counted: true,
	literal: { first: 3, ann: [1, { k: 'c' }] },
	grouped: { '7': ['cy'], '12': ['bob'], '30': ['ann'] },
};

describe('comprehensions and object literals emitted in place', () => {
	const js = compile([{ file: 'p.rego', text: POLICY }]);
	const closures = compile([{ file: 'p.rego', text: POLICY }], { backend: 'closures' });
	const input = fromJS(INPUT);
	const data = fromJS({});
	for (const [rule, want] of Object.entries(EXPECTED)) {
		it(`${rule}: the expected value on every back end`, () => {
			const v = js.prepareDecision(['p', rule])({ input, data });
			expect(v === undefined ? undefined : toJS(v)).toEqual(want);
			const q = `data.p.${rule}`;
			expect(rows(js.prepare(q), input, data)).toEqual([want]);
			expect(rows(closures.prepare(q), input, data)).toEqual([want]);
			expect(rows(prepareInterpreted(js, q), input, data)).toEqual([want]);
		});
	}

	it('keep set order in an array comprehension inside a rule body', () => {
		expect(js.prepareDecision(['p', 'ordered_in_rule'])({ input, data })).toBe(true);
		expect(closures.prepareDecision(['p', 'ordered_in_rule'])({ input, data })).toBe(true);
	});

	it('raise the same key conflict as the closure back end and the interpreter', () => {
		for (const q of ['data.p.conflict', 'data.p.literal_conflict']) {
			const a = rows(js.prepare(q), input, data);
			expect(String(a)).toMatch(/^error: /);
			expect(a).toEqual(rows(closures.prepare(q), input, data));
			expect(a).toEqual(rows(prepareInterpreted(js, q), input, data));
		}
		expect(rows(js.prepare('data.p.literal_missing'), input, data)).toEqual([]);
		expect(rows(closures.prepare('data.p.literal_missing'), input, data)).toEqual([]);
	});

	it('run as loops in the generated source, not as closures', () => {
		const sources = [...((js.program as unknown as { factories: Map<string, unknown> }).factories.keys())];
		expect(sources.some((s) => /const o\d+ = \[\];/.test(s))).toBe(true);
		expect(sources.some((s) => /const o\d+ = new RObject\(\);/.test(s))).toBe(true);
	});
});
