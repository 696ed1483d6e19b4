// A complete rule whose definitions all give one constant (`allow if …`) is tested by one
// generated function running the definitions in order (compiler/codegen/js/emit.ts
// groupExistsSource, rule-compiler.ts groupTest), and a decision on such a rule skips
// Program.decide's per-call checks (Program.decisionTest). Decisions and queries must
// give what the closure back end and the reference interpreter give: several
// definitions with loops, inlined set and constant rules, defaults, `not`, comprehensions
// and object literals, a definition that needs the frame (print) or the closure back end (`with`), more
// definitions than the group test takes, errors raised by an earlier definition, and
// `with data` replacements (the group test then defers to the rule's own path).
import { describe, expect, it } from 'vitest';
import { compile } from '../../../compiler/index.js';
import { prepareInterpreted } from '../../../compiler/interp/index.js';
import { MAX_GROUP_TEST_DEFS } from '../../../compiler/codegen/js/rule-compiler.js';
import { fromJS, toJS, type Value } from '../../../runtime/index.js';

const MANY = Array.from({ length: MAX_GROUP_TEST_DEFS + 1 }, (_, i) => `many if input.user == "u${i}"`).join('\n');

const POLICY = `package p

default allow := false

allow if {
	some g in granted
	input.action == g.action
	input.type == g.type
}

allow if admin

allow if {
	not input.user
	input.anonymous == true
}

admin if "admin" in data.roles[input.user]

granted contains g if {
	some r in data.roles[input.user]
	some g in data.grants[r]
}

framed if {
	input.user == "bob"
	count([r | some r in data.roles[input.user]]) > 1
}

framed if input.user == "carol"

objects if {
	x := {"u": input.user, "n": count({r | some r in data.roles[input.user]})}
	x.u == "bob"
	x.n > 1
}

printed if {
	print("checking", input.user)
	input.user == "carol"
}

printed if input.user == "bob"

objects if {
	some i
	{k: v | some k, v in data.grants; k == "r2"}.r2[i].type == input.type
}

mocked if {
	admin with data.roles as {"bob": ["admin"]}
	input.user == "bob"
}

mocked if input.user == "eve"

default errs := "none"

errs := "yes" if {
	x := to_number(input.action)
	x > 0
}

errs := "yes" if input.user == "alice"

${MANY}

default named := 7

named := 1 if input["user-name"] == "x"

named := 1 if input.user.name == "x"
`;

const DATA = {
  roles: { alice: ['admin'], bob: ['r1', 'r2'], carol: ['r2'], eve: [] },
  grants: { r1: [{ action: 'read', type: 'dog' }], r2: [{ action: 'write', type: 'cat' }, { action: 'read', type: 'cat' }] },
};

const INPUTS: unknown[] = [
  { user: 'alice', action: 'read', type: 'dog' },
  { user: 'bob', action: 'read', type: 'dog' },
  { user: 'bob', action: 'read', type: 'cat' },
  { user: 'bob', action: 'delete', type: 'dog' },
  { user: 'carol', action: 'write', type: 'cat' },
  { user: 'eve', action: 'read', type: 'dog' },
  { user: 'u3', action: '12', type: 'dog' },
  { user: `u${MAX_GROUP_TEST_DEFS}` },
  { anonymous: true },
  { 'user-name': 'x' },
  { user: { name: 'x' } },
  'not an object',
];

const RULES = ['allow', 'framed', 'objects', 'printed', 'mocked', 'errs', 'many', 'named'];

/** A result or the error's text, so that errors are compared too. */
function outcome(run: () => unknown): unknown {
  try {
    return run();
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

describe('group tests of constant complete rules', () => {
  const js = compile([{ file: 'p.rego', text: POLICY }]);
  const closures = compile([{ file: 'p.rego', text: POLICY }], { backend: 'closures' });
  const data = fromJS(DATA);
  const group = (name: string) => js.ir.groups.find((g) => g.path.join('.') === `p.${name}`)!;
  const groupTest = (name: string): unknown => (js.program as unknown as { groupTest(g: unknown): unknown }).groupTest(group(name));

  it('are generated where the definitions keep their slots in locals, and not otherwise', () => {
    expect(groupTest('allow')).toBeTypeOf('function');
    expect(groupTest('errs')).toBeTypeOf('function');
    expect(groupTest('named')).toBeTypeOf('function');
    expect(groupTest('framed')).toBeTypeOf('function'); // comprehensions are loops in place
    expect(groupTest('objects')).toBeTypeOf('function'); // object literals are built in place
    expect(groupTest('printed')).toBeNull(); // print's arguments are closures over the frame
    expect(groupTest('mocked')).toBeNull(); // `with` runs on closures
    expect(groupTest('many')).toBeNull(); // more definitions than MAX_GROUP_TEST_DEFS
    expect(groupTest('granted')).toBeNull(); // a set rule
  });

  for (const input of INPUTS) {
    it(`agree with the closure back end and the interpreter for ${JSON.stringify(input)}`, () => {
      const i = fromJS(input);
      for (const rule of RULES) {
        const q = `data.p.${rule}`;
        const viaDecision = outcome(() => {
          const v = js.prepareDecision(['p', rule])({ input: i, data });
          return v === undefined ? undefined : toJS(v);
        });
        const want = outcome(() => {
          const v = closures.prepareDecision(['p', rule])({ input: i, data });
          return v === undefined ? undefined : toJS(v);
        });
        expect(viaDecision, q).toEqual(want);
        const rows = (p: { eval(o: { input: Value; data: Value }): { expressions: { value: Value }[] }[] }) =>
          outcome(() => p.eval({ input: i, data }).map((r) => toJS(r.expressions[0]!.value)));
        expect(rows(js.prepare(q)), q).toEqual(rows(closures.prepare(q)));
        expect(rows(js.prepare(q)), q).toEqual(rows(prepareInterpreted(js, q)));
      }
    });
  }

  it('defer to the rule under a `with data` replacement', () => {
    const q = 'data.p.allow with data.roles as {"zed": ["admin"]}';
    const i = fromJS({ user: 'zed', action: 'x', type: 'y' });
    const a = js.prepare(q).eval({ input: i, data }).map((r) => toJS(r.expressions[0]!.value));
    expect(a).toEqual([true]);
    expect(a).toEqual(closures.prepare(q).eval({ input: i, data }).map((r) => toJS(r.expressions[0]!.value)));
    expect(a).toEqual(prepareInterpreted(js, q).eval({ input: i, data }).map((r) => toJS(r.expressions[0]!.value)));
  });

  it('give the decision the hand-checked values', () => {
    const decide = js.prepareDecision(['p', 'allow']);
    const allow = (input: unknown) => decide({ input: fromJS(input), data });
    expect(allow({ user: 'bob', action: 'read', type: 'cat' })).toBe(true);
    expect(allow({ user: 'bob', action: 'write', type: 'dog' })).toBe(false);
    expect(allow({ user: 'alice', action: 'x', type: 'y' })).toBe(true);
    expect(allow({ anonymous: true })).toBe(true);
    expect(allow({ user: 'nobody' })).toBe(false);
  });
});
