// Rules the JS back end inlines into their consumers (compiler/codegen/js/emit.ts:
// a leading loop over a small set rule, a test of a constant complete rule) must
// give what the closure back end and the reference interpreter give, including
// under `with data` replacements (the inlined code then defers to the rule),
// with defaults, `not`, two definitions and repeated members; a rule that prints is
// left to its memo (it prints once).
import { describe, expect, it } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { agreeingValues } from './three-way.js';
import { fromJS, toJS } from '../../../runtime/index.js';

const POLICY = `package p

default allow := false

allow if {
	some g in granted
	g.action == input.action
}

allow if admin

admin if "admin" in data.roles[input.user]

granted contains g if {
	some r in data.roles[input.user]
	some g in data.grants[r]
}

granted contains {"action": "extra"} if input.extra

deny if not admin

n := count([g | some g in granted])

overridden if {
	some g in granted with data.grants as {"r1": [{"action": "swapped"}], "r2": [{"action": "swapped"}]}
	g.action == "swapped"
}

admin_mocked if admin with data.roles as {"bob": ["admin"]}

two if admin2
admin2 if input.user == "alice"
admin2 if input.user == "bob"

printed_twice if {
	printed
	not unprinted
}
unprinted if not printed
printed if {
	print("checked", input.user)
	input.user == "bob"
}

defaulted if true_by_default
default true_by_default := true
true_by_default if input.never
`;

const DATA = {
  roles: { alice: ['admin'], bob: ['r1', 'r2', 'r1'], carol: ['r2'], eve: [] },
  grants: { r1: [{ action: 'read' }, { action: 'read' }], r2: [{ action: 'write' }] },
};

const INPUTS = [
  { user: 'alice', action: 'read' },
  { user: 'bob', action: 'read' },
  { user: 'bob', action: 'delete' },
  { user: 'carol', action: 'write' },
  { user: 'carol', action: 'extra', extra: true },
  { user: 'eve', action: 'read' },
  { user: 'x', action: 'read' },
];

const QUERIES = ['data.p.printed_twice', 'data.p.allow', 'data.p.deny', 'data.p.n', 'data.p.overridden', 'data.p.admin_mocked', 'data.p.two', 'data.p.defaulted', 'data.p'];

describe('inlined rules', () => {
  const js = compile([{ file: 'p.rego', text: POLICY }]);
  const closures = compile([{ file: 'p.rego', text: POLICY }], { backend: 'closures' });
  const data = fromJS(DATA);
  for (const input of INPUTS) {
    it(`agree for ${JSON.stringify(input)}`, () => {
      const i = fromJS(input);
      for (const q of QUERIES) agreeingValues(js, closures, q, i, data);
      // A rule with print is not inlined: its memo prints it once per evaluation.
      const printed: string[] = [];
      js.prepare('data.p.printed_twice').eval({ input: i, data, print: (m) => printed.push(m) });
      expect(printed.length).toBeLessThanOrEqual(1);
      expect(toJS(js.prepareDecision(['p', 'allow'])({ input: i, data })!)).toEqual(toJS(closures.prepareDecision(['p', 'allow'])({ input: i, data })!));
    });
  }
});
