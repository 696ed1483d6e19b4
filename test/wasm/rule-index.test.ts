// The rule index on the Wasm back end (compiler/codegen/wasm/index-dispatch.ts): groups
// that compiler/passes/rule-index.ts indexes must give exactly the JS back end's result
// (values, undefined and conflict errors) for hits, misses, several definitions with
// the same constant, unindexed definitions mixed in between, non-string constants,
// arrays of scalars,
// data refs, defaults, else chains, and set and object rules. A group's definitions
// share their Wasm locals (BodyGen.definitionScope), so a group of hundreds of
// definitions stays a function of a few dozen locals.
import binaryen from 'binaryen';
import { describe, expect, it } from 'vitest';
import { compile, compileWasm } from '../../compiler/index.js';
import { fromJS, toJS } from '../../runtime/value/json.js';
import { WasmPolicy } from '../../runtime/wasm/host.js';
import { canonical } from './differential.js';
import { ensureRuntime } from './sdk-host.js';

interface IndexCase {
  name: string;
  policy: string;
  /** The rule path (under package `idx`) that must be indexed and is evaluated. */
  rule: string;
  inputs: unknown[];
  data?: Record<string, unknown>;
}

const head = 'package idx\nimport rego.v1\n';

const cases: IndexCase[] = [
  {
    name: 'arrays of scalars as keys (OPA indexes them), numbers equal as 1 and 1.0, a nested array left unindexed',
    rule: 'route',
    policy: `${head}
route := "users" if input.path == ["v1", "users"]
route := "user" if input.path == ["v1", "users", 1]
route := "groups" if input.path = ["v1", "groups"]
route := "nested" if input.path == ["v1", ["x"]]
`,
    inputs: [{ path: ['v1', 'users'] }, { path: ['v1', 'users', 1.0] }, { path: ['v1', 'groups'] }, { path: ['v1', ['x']] }, { path: ['v1'] }, { path: 'v1' }, {}],
  },
  {
    name: 'string constants: hits, misses, same constant twice, an undefined ref',
    rule: 'allow',
    policy: `${head}
allow if input.x == "a"
allow if input.x == "b"
allow if { input.x == "b"; input.y == 2 }
allow if input.x == "c"
`,
    inputs: [{ x: 'a' }, { x: 'b' }, { x: 'c' }, { x: 'd' }, { x: 1 }, {}, { y: 'a' }, 'a', { x: ['a'] }],
  },
  {
    name: 'values per constant, a conflict within one constant, a default',
    rule: 'role',
    policy: `${head}
default role := "none"
role := "admin" if input.user == "alice"
role := "viewer" if input.user == "bob"
role := "editor" if { input.user == "carol"; input.team == "x" }
role := "owner" if { input.user == "carol"; input.team == "y" }
role := "auditor" if input.user == "dave"
role := "guest" if input.user == "dave"
`,
    inputs: [{ user: 'alice' }, { user: 'bob' }, { user: 'carol', team: 'x' }, { user: 'carol', team: 'y' }, { user: 'carol' }, { user: 'dave' }, { user: 'zed' }, {}],
  },
  {
    name: 'unindexed definitions between indexed ones (another ref, no condition, an else chain)',
    rule: 'level',
    policy: `${head}
level := 1 if input.kind == "a"
level := 2 if input.other == "a"
level := 3 if input.kind == "b"
level := 4 if input.force
level := 5 if input.kind == "c"
level := 6 if input.kind == "c"
level := 7 if {
  input.kind == "e"
  input.deep
} else := 8 if {
  input.kind == "e"
}
`,
    inputs: [{ kind: 'a' }, { kind: 'b' }, { kind: 'c' }, { kind: 'e' }, { kind: 'e', deep: true }, { other: 'a' }, { kind: 'b', force: true }, { kind: 'a', other: 'a' }, { kind: 'x', force: true }, {}],
  },
  {
    name: 'non-string constants: numbers (exact, decimals, big), booleans, null',
    rule: 'which',
    policy: `${head}
which contains "one" if input.v == 1
which contains "one-and-half" if input.v == 1.5
which contains "big" if input.v == 123456789012345678901234567890
which contains "true" if input.v == true
which contains "false" if input.v == false
which contains "null" if input.v == null
which contains "str-1" if input.v == "1"
which contains "any" if input.v
`,
    inputs: [{ v: 1 }, { v: 1.0 }, { v: 1.5 }, { v: 2 }, { v: true }, { v: false }, { v: null }, { v: '1' }, { v: 'true' }, {}, { v: [1] }],
  },
  {
    name: 'an object rule indexed on a data ref, with an undefined data path',
    rule: 'limits',
    policy: `${head}
limits[k] := v if { data.cfg.mode == "strict"; some k, v in {"cpu": 1, "mem": 2} }
limits[k] := 4 if { data.cfg.mode == "loose"; k := "cpu" }
limits[k] := 8 if { data.cfg.mode == "loose"; k := "mem" }
limits[k] := 9 if { input.disk; k := "disk" }
`,
    inputs: [{}, { disk: true }],
  },
  {
    name: 'conflicting object keys from one constant, and a miss that runs none',
    rule: 'obj',
    policy: `${head}
obj[k] := 1 if { input.x == "a"; k := "k" }
obj[k] := 2 if { input.x == "a"; k := "k" }
obj[k] := 3 if { input.x == "b"; k := "j" }
obj[k] := 4 if { input.x == "b"; k := "i" }
`,
    inputs: [{ x: 'a' }, { x: 'b' }, { x: 'z' }],
  },
];

const dataSets: Record<string, unknown>[] = [{ cfg: { mode: 'strict' } }, { cfg: { mode: 'loose' } }, { cfg: {} }, {}];

/** `[{result}]`, `[]` or `'error'`, as a canonical string. */
function outcome(run: () => unknown[]): string {
  try {
    return canonical(run());
  } catch {
    return 'error';
  }
}

describe('rule index on the Wasm back end', () => {
  for (const c of cases) {
    it(c.name, async () => {
      ensureRuntime();
      const policy = compile([{ file: 'idx.rego', text: c.policy }]);
      const group = policy.ir.groups.find((g) => g.path.join('.') === `idx.${c.rule}`);
      expect(group?.index, 'the rule-index pass indexes this group').toBeDefined();
      const decide = policy.prepareDecision(['idx', c.rule]);
      const host = await WasmPolicy.load(await compileWasm(policy, [['idx', c.rule]]));
      let compared = 0;
      for (const data of c.data ? [c.data] : dataSets) {
        host.setData(data);
        for (const input of c.inputs) {
          const js = outcome(() => {
            const v = decide({ input: fromJS(input), data: fromJS(data) });
            return v === undefined ? [] : [{ result: toJS(v) }];
          });
          const wasm = outcome(() => host.evaluate(input));
          expect(wasm, `${JSON.stringify(input)} with data ${JSON.stringify(data)}`).toBe(js);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(0);
    }, 60_000);
  }

  it('1,000 indexed definitions answer as the JS back end does', async () => {
    ensureRuntime();
    const lines = [head];
    for (let i = 0; i < 1000; i++) lines.push(`allow contains ${i % 7} if input.x == "c${i % 500}"`);
    lines.push('allow contains "always" if input.y');
    const policy = compile([{ file: 'idx.rego', text: lines.join('\n') + '\n' }]);
    expect(policy.ir.groups.find((g) => g.path.join('.') === 'idx.allow')?.index?.entries.length).toBe(500);
    const decide = policy.prepareDecision(['idx', 'allow']);
    const host = await WasmPolicy.load(await compileWasm(policy, [['idx', 'allow']]));
    host.setData({});
    for (const input of [{ x: 'c0' }, { x: 'c499' }, { x: 'c250', y: true }, { x: 'c500' }, { y: 1 }, {}]) {
      const v = decide({ input: fromJS(input), data: fromJS({}) });
      expect(canonical(host.evaluate(input)), JSON.stringify(input)).toBe(canonical(v === undefined ? [] : [{ result: toJS(v) }]));
    }
  }, 120_000);

  it('definitions share their locals, and each still starts from fresh ones', async () => {
    ensureRuntime();
    // Each definition needs locals of its own (an else chain's flag, array, object and
    // comprehension builders, a template): 300 of them must not make 300 sets of locals.
    const lines = [head];
    for (let i = 0; i < 100; i++) {
      lines.push(`out := [${i}, input.n] if { input.x == "a${i}"; count({"k": input.n, "i": ${i}}) == 2 }`);
      lines.push(`out := $"b-{input.n}-${i}" if { input.x == "b${i}"; input.n > 1 } else := [v | some v in [${i}, input.n]; v > 0] if input.x == "b${i}"`);
      lines.push(`out := {"i": ${i}, "n": [n | some n in [input.n]]} if input.x == "c${i}"`);
    }
    const policy = compile([{ file: 'idx.rego', text: lines.join('\n') + '\n' }]);
    expect(policy.ir.groups.find((g) => g.path.join('.') === 'idx.out')?.index, 'indexed').toBeDefined();
    const raw = binaryen.readBinary(await compileWasm(policy, [['idx', 'out']], { optimize: 0 }));
    let most = 0;
    for (let i = 0; i < raw.getNumFunctions(); i++) most = Math.max(most, binaryen.getFunctionInfo(raw.getFunctionByIndex(i)).vars.length);
    raw.dispose();
    expect(most, 'locals of the largest generated function').toBeLessThan(60);
    const decide = policy.prepareDecision(['idx', 'out']);
    const host = await WasmPolicy.load(await compileWasm(policy, [['idx', 'out']]));
    host.setData({});
    const inputs = [{ x: 'a0', n: 5 }, { x: 'a99', n: 1 }, { x: 'b7', n: 3 }, { x: 'b7', n: 1 }, { x: 'b7', n: -1 }, { x: 'c42', n: 2 }, { x: 'c42' }, { x: 'a5' }, { x: 'zz', n: 1 }, {}];
    for (const input of inputs) {
      const v = decide({ input: fromJS(input), data: fromJS({}) });
      expect(canonical(host.evaluate(input)), JSON.stringify(input)).toBe(canonical(v === undefined ? [] : [{ result: toJS(v) }]));
    }
  }, 120_000);
});
