// Indexed rule groups (compiler/passes/rule-index.ts; looked up in
// compiler/codegen/js/rule-compiler.ts: string keys by the string itself, other scalars
// by canonical key, `input.a.b` refs through a generated reader) must give what the
// closure back end and the reference interpreter give: hits, misses, non-string values
// equal to a key (1 and 1.0), arrays of scalars as keys, input that is not an object, missing input, definitions
// without the indexed condition, `with input` replacements, and decisions. Conditions
// are `==` and `=` tests anywhere at a body's top level (OPA's VirtualDocs benchmark
// shape included); as in OPA, a definition the index leaves out does not run at all
// (no trace note, no error from a statement before its test), and one that prints is
// never left out.
import { describe, expect, it } from 'vitest';
import { compile } from '../../compiler/index.js';
import { explain, prepareInterpreted, prettyTrace, traceQuery } from '../../compiler/interp/index.js';
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

vdocs if {
	input.method = "GET"
	input.path = ["salaries", id]
	input.user_id = id
}

vdocs if {
	input.method = "POST"
	input.path = ["accounts", id]
	input.user_id = id
}

later contains "admin" if {
	some r in input.roles
	r == "admin"
	input.kind == "user"
}

later contains "service" if {
	count(input.roles) > 0
	input.kind == "service"
}

later contains "other" if input.other == 1

route := "users" if input.path == ["v1", "users"]
route := "user" if input.path == ["v1", "users", 1]
route := "groups" if input.path = ["v1", "groups"]
route := "nested" if input.path == ["v1", ["x"]]
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
  { method: 'POST', path: ['accounts', 'alice'], user_id: 'alice' },
  { method: 'GET', path: ['salaries', 'bob'], user_id: 'bob' },
  { method: 'POST', path: ['salaries', 'bob'], user_id: 'bob' },
  { method: 'GET', path: ['salaries', 'bob'], user_id: 'eve' },
  { kind: 'user', roles: ['dev', 'admin'] },
  { kind: 'service', roles: ['x'], other: 1 },
  { kind: 'service', roles: [] },
  { path: ['v1', 'users'] },
  { path: ['v1', 'users', 1.0] },
  { path: ['v1', 'groups'] },
  { path: ['v1', ['x']] },
  { path: ['v1'] },
  { path: 'v1/users' },
  'a string input',
  [1, 2],
  undefined,
];

const QUERIES = ['data.p.allow', 'data.p.deep', 'data.p.kind', 'data.p.from_data', 'data.p.replaced', 'data.p.replaced_miss', 'data.p.vdocs', 'data.p.later', 'data.p.route'];
const DATA = [{ cfg: { mode: 'strict' } }, { cfg: { mode: 'other' } }, {}];

describe('rule index lookups', () => {
  const js = compile([{ file: 'p.rego', text: POLICY }]);
  const closures = compile([{ file: 'p.rego', text: POLICY }], { backend: 'closures' });
  it('indexes the groups this test is about', () => {
    const indexed = js.ir.groups.filter((g) => g.index).map((g) => g.path.join('.'));
    expect(indexed).toEqual(expect.arrayContaining(['p.allow', 'p.deep', 'p.kind', 'p.from_data', 'p.vdocs', 'p.later', 'p.route']));
    // Arrays of scalars are keys, as in OPA's index; a nested array is not (that definition always runs).
    const route = js.ir.groups.find((g) => g.path.join('.') === 'p.route')!.index!;
    expect(route.entries.map((e) => e.key)).toEqual([['v1', 'users'], ['v1', 'users', 1], ['v1', 'groups']]);
    expect(route.always).toEqual([3]);
    const vdocs = js.ir.groups.find((g) => g.path.join('.') === 'p.vdocs')!.index!;
    expect(vdocs.entries.map((e) => e.key)).toEqual(['GET', 'POST']);
    // 'later' def 0: hoist-invariants binds input.kind before the loop; its test is statement 3.
    expect(js.ir.groups.find((g) => g.path.join('.') === 'p.later')!.index!.at).toEqual([3, 1, -1]);
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

describe('what the index leaves out does not run (as in OPA)', () => {
  const text = `package q

noted if { trace("A"); input.user == "a" }
noted if { trace("B"); input.user == "b" }

f(_) := 1
f(_) := 2

halts if { f(1); input.user == "a" }
halts if input.user == "b"

printed if { print("P"); input.user == "a" }
printed if input.user == "b"
printed if input.user == "c"
`;
  const js = compile([{ file: 'q.rego', text }]);
  const closures = compile([{ file: 'q.rego', text }], { backend: 'closures' });
  const backEnds = {
    js: (q: string, opts: object) => js.prepare(q).eval(opts),
    closures: (q: string, opts: object) => closures.prepare(q).eval(opts),
    interp: (q: string, opts: object) => prepareInterpreted(js, q).eval(opts),
  };
  const input = (user: string) => fromJS({ user });

  it('enters only the definitions the index picks (notes)', () => {
    const { events } = traceQuery(js, 'data.q.noted', { input: input('b') });
    expect(prettyTrace(explain(events, 'notes'))).toContain('Note "B"');
    expect(prettyTrace(explain(events, 'notes'))).not.toContain('Note "A"');
  });

  for (const [name, run] of Object.entries(backEnds)) {
    it(`${name}: a statement before a definition's test does not run when the index leaves it out`, () => {
      expect(run('data.q.halts', { input: input('b') }).map((r) => toJS(r.expressions[0]!.value))).toEqual([true]);
      expect(() => run('data.q.halts', { input: input('a') })).toThrow(/functions must not produce multiple outputs/);
    });

    it(`${name}: a definition that prints always runs`, () => {
      const printed: string[] = [];
      const rows = run('data.q.printed', { input: input('b'), print: (m: string) => printed.push(m) });
      expect(rows.map((r) => toJS(r.expressions[0]!.value))).toEqual([true]);
      expect(printed).toEqual(['P']);
    });
  }

  it('indexes noted and halts, never the printing definition', () => {
    const ix = (path: string) => js.ir.groups.find((g) => g.path.join('.') === path)!.index;
    expect(ix('q.noted')?.at).toEqual([1, 1]);
    expect(ix('q.halts')?.at).toEqual([1, 0]);
    expect(ix('q.printed')?.always).toEqual([0]);
  });
});
