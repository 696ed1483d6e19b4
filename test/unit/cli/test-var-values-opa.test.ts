// `regent test --var-values` against OPA's own expectations: the cases of
// TestFailVarValues in OPA's cmd/test_test.go (each policy, and the failure block OPA
// prints for it, %ROOT% standing for the test's directory). What is drawn under the
// failing expression: its locals (the trace event's locals), and the refs, calls and
// comprehensions the interpreter logged while evaluating it (cli/test-trace-values.ts,
// compiler/plan/origins.ts), as `undefined` when one was undefined. Run as OPA's test
// does: `opa test -b --var-values <dir>`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testCommand } from '../../../cli/test.js';
import { runCaptured } from './helpers.js';

interface Case {
  note: string;
  files: Record<string, string>;
  /** The lines after `data.test.<name>: FAIL (…)` and a blank line, up to SUMMARY. */
  expected: string;
}

const CASES: Case[] = [
  {
    note: "simple",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tx := 1\n\ty := 2\n\tz := 3\n\tx == y + z\n}\n"},
    expected: "  %ROOT%/test.rego:7:\n    \tx == y + z\n    \t|    |   |\n    \t|    |   3\n    \t|    y + z: 5\n    \t|    y: 2\n    \t1\n",
  },
  {
    note: "simple (not)",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tx := 5\n\ty := 2\n\tz := 3\n\tnot x == y + z\n}\n"},
    expected: "  %ROOT%/test.rego:7:\n    \tnot x == y + z\n    \t    |    |   |\n    \t    |    |   3\n    \t    |    y + z: 5\n    \t    |    y: 2\n    \t    5\n",
  },
  {
    note: "array",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tx := 1\n\ty := [1, 2, 3]\n\tz := 3\n\tx == y[2] + z\n}\n"},
    expected: "  %ROOT%/test.rego:7:\n    \tx == y[2] + z\n    \t|    |      |\n    \t|    |      3\n    \t|    y[2] + z: 6\n    \t|    y[2]: 3\n    \t|    y: [1, 2, 3]\n    \t1\n",
  },
  {
    note: "array, var key",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tx := 1\n\ty := [1, 2, 3]\n\tz := 3\n\ti := 2\n\tx == y[i] + z\n}\n"},
    expected: "  %ROOT%/test.rego:8:\n    \tx == y[i] + z\n    \t|    | |    |\n    \t|    | |    3\n    \t|    | 2\n    \t|    y[i] + z: 6\n    \t|    y[i]: 3\n    \t|    y: [1, 2, 3]\n    \t1\n",
  },
  {
    note: "array containing vars",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tx := 1\n\ty := 2\n\tz := 3\n\t[x, y, z] == [4, 5, 6]\n}\n"},
    expected: "  %ROOT%/test.rego:7:\n    \t[x, y, z] == [4, 5, 6]\n    \t |  |  |\n    \t |  |  3\n    \t |  2\n    \t 1\n",
  },
  {
    note: "array containing refs",
    files: {"test.rego": "package test\n\na := 1\n\nb := 2\n\ntest_foo if {\n\t[a, data.test.b, data.c] == [4, 5, 6]\n}\n", "data.json": "{\"c\": 3}"},
    expected: "  %ROOT%/test.rego:8:\n    \t[a, data.test.b, data.c] == [4, 5, 6]\n    \t |  |            |\n    \t |  |            3\n    \t |  2\n    \t 1\n",
  },
  {
    note: "array containing refs, undefined",
    files: {"test.rego": "package test\n\na := 1\n\nb := data.b\n\ntest_foo if {\n\t[a, b, data.c] == [4, 5, 6]\n}\n", "data.json": "{\"c\": 3}"},
    expected: "  %ROOT%/test.rego:8:\n    \t[a, b, data.c] == [4, 5, 6]\n    \t |  |\n    \t |  undefined\n    \t 1\n",
  },
  {
    note: "nested collections containing vars",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tx := 1\n\ty := 2\n\tz := 3\n\t[x, {y, {\"a\": z}}] == [4, {5, {\"a\": 6}}]\n}\n"},
    expected: "  %ROOT%/test.rego:7:\n    \t[x, {y, {\"a\": z}}] == [4, {5, {\"a\": 6}}]\n    \t |   |        |\n    \t |   |        3\n    \t |   2\n    \t 1\n",
  },
  {
    note: "single line expression containing tabs",
    files: {"test.rego": "package test\n\n\ttest_foo if {\n\t\tx := 1\n\t\ty := 2\n\t\tz := 3\n\t\tx == y +\tz\n\t}\n"},
    expected: "  %ROOT%/test.rego:7:\n    \t\tx == y +\tz\n    \t\t|    |  \t|\n    \t\t|    |  \t3\n    \t\t|    y +\tz: 5\n    \t\t|    y: 2\n    \t\t1\n",
  },
  {
    note: "single line expression containing tabs #2",
    files: {"test.rego": "package test\n\n\ttest_foo if {\n\t\tx := 1\n\t\ty := 2\n\t\tz := 3\n\t\tx\t== y +\tz\n\t}\n"},
    expected: "  %ROOT%/test.rego:7:\n    \t\tx\t== y +\tz\n    \t\t|\t   |  \t|\n    \t\t|\t   |  \t3\n    \t\t|\t   y +\tz: 5\n    \t\t|\t   y: 2\n    \t\t1\n",
  },
  {
    note: "multi-line expression containing tabs",
    files: {"test.rego": "package test\n\n\ttest_foo if {\n\t\tx := 1\n\t\ty := 2\n\t\tz := 3\n\t\tobj := {\n\t\t\t\"foo_\": 1,\n\t\t\t\"bar__\": 42,\n\t\t\t\"baz\": 3,\n\t\t}\n\t\tobj == {\n\t\t\t\"foo_\":\t\tx,\n\t\t\t\"bar__\":\ty,\n\t\t\t\"baz\":\t\tz,\n\t\t}\n\t}\n"},
    expected: "  %ROOT%/test.rego:12:\n    \t\tobj == {\n    \t\t\t\"foo_\":\t\tx,\n    \t\t\t\"bar__\":\ty,\n    \t\t\t\"baz\":\t\tz,\n    \t\t}\n    \n    Where:\n    \n    obj: {\"bar__\": 42, \"baz\": 3, \"foo_\": 1}\n    x: 1\n    y: 2\n    z: 3\n",
  },
  {
    note: "composite rule",
    files: {"test.rego": "package test\n\np contains v if {\n\tsome v in numbers.range(1, 3)\n}\n\ntest_p if {\n\tp == {4, 5, 6}\n}"},
    expected: "  %ROOT%/test.rego:8:\n    \tp == {4, 5, 6}\n    \t|\n    \t{1, 2, 3}\n",
  },
  {
    note: "composite rule with ref-head",
    files: {"test.rego": "package test\n\np.q contains v if {\n\tsome v in numbers.range(1, 3)\n}\n\ntest_p if {\n\tp.q == {4, 5, 6}\n}"},
    expected: "  %ROOT%/test.rego:8:\n    \tp.q == {4, 5, 6}\n    \t|\n    \t{1, 2, 3}\n",
  },
  {
    note: "composite rule with ref-head, partial ref",
    files: {"test.rego": "package test\n\np.q contains v if {\n\tsome v in numbers.range(1, 3)\n}\n\ntest_p if {\n\tp == {\n\t\t\"q\": {4, 5, 6}\n\t}\n}"},
    expected: "  %ROOT%/test.rego:8:\n    \tp == {\n    \t\t\"q\": {4, 5, 6}\n    \t}\n    \t|\n    \t{\"q\": {1, 2, 3}}\n",
  },
  {
    note: "composite rules with ref-head, composite value",
    files: {"test.rego": "package test\n\np.q contains v if {\n\tsome v in numbers.range(1, 3)\n}\n\np.r := \"foo\"\n\ntest_p if {\n\tp == {\n\t\t\"q\": {4, 5, 6},\n\t\t\"r\": \"bar\"\n\t}\n}"},
    expected: "  %ROOT%/test.rego:10:\n    \tp == {\n    \t\t\"q\": {4, 5, 6},\n    \t\t\"r\": \"bar\"\n    \t}\n    \t|\n    \t{\"q\": {1, 2, 3}, \"r\": \"foo\"}\n",
  },
  {
    note: "refs in different compiled sub-expressions",
    files: {"test.rego": "package test\n\na := 1\nb := 2\nc := 3\n\ntest_p if {\n\t# This expression is split into multiple final expressions by the compiler, each containing a rule ref\n\ta == b + c\n}\n"},
    expected: "  %ROOT%/test.rego:9:\n    \ta == b + c\n    \t|    |   |\n    \t|    |   3\n    \t|    b + c: 5\n    \t|    b: 2\n    \t1\n",
  },
  {
    note: "rule not defined",
    files: {"test.rego": "package test\n\np if {\n\tinput.x == 1\n}\n\ntest_p if {\n\tp with input.x as 2\n}"},
    expected: "  %ROOT%/test.rego:8:\n    \tp with input.x as 2\n    \t|\n    \tundefined\n",
  },
  {
    note: "rule defined (not)",
    files: {"test.rego": "package test\n\np if {\n\tinput.x == 1\n}\n\ntest_p if {\n\tnot p with input.x as 1\n}"},
    expected: "  %ROOT%/test.rego:8:\n    \tnot p with input.x as 1\n    \t    |\n    \t    true\n",
  },
  {
    note: "data ref",
    files: {"test.rego": "package test\n\ntest_foo if {\n\ty := 1\n\tdata.x == y\n}\n", "data.json": "{\"x\": 2}"},
    expected: "  %ROOT%/test.rego:5:\n    \tdata.x == y\n    \t|         |\n    \t|         1\n    \t2\n",
  },
  {
    note: "data + virtual extent ref",
    files: {"test.rego": "package test\n\nfoo.x := 1\n\ntest_foo if {\n\ty := {\"x\": 1, \"y\": 42}\n\tfoo == y\n}\n", "data.json": "{\"test\": {\"foo\": {\"y\": 2}}}"},
    expected: "  %ROOT%/test.rego:7:\n    \tfoo == y\n    \t|      |\n    \t|      {\"x\": 1, \"y\": 42}\n    \t{\"x\": 1, \"y\": 2}\n",
  },
  {
    note: "in (array)",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tl := [\"a\", \"b\", \"c\"]\n\tx := \"q\"\n\tx in l\n}\n"},
    expected: "  %ROOT%/test.rego:6:\n    \tx in l\n    \t|    |\n    \t|    [\"a\", \"b\", \"c\"]\n    \t\"q\"\n",
  },
  {
    note: "in (set)",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tl := {\"a\", \"b\", \"c\"}\n\tx := \"q\"\n\tx in l\n}\n"},
    expected: "  %ROOT%/test.rego:6:\n    \tx in l\n    \t|    |\n    \t|    {\"a\", \"b\", \"c\"}\n    \t\"q\"\n",
  },
  {
    note: "comprehension (array)",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tl := [\"a\", \"b\", \"c\"]\n\t[x | x := l[_]] == [\"d\", \"e\", \"f\"]\n}\n"},
    expected: "  %ROOT%/test.rego:5:\n    \t[x | x := l[_]] == [\"d\", \"e\", \"f\"]\n    \t|\n    \t[\"a\", \"b\", \"c\"]\n",
  },
  {
    note: "comprehension (set)",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tl := [\"a\"]\n\t{x | x := l[_]} == {\"b\"}\n}\n"},
    expected: "  %ROOT%/test.rego:5:\n    \t{x | x := l[_]} == {\"b\"}\n    \t|\n    \t{\"a\"}\n",
  },
  {
    note: "comprehension (object)",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tl := [\"a\", \"b\", \"c\"]\n\t{k: x | x := l[k]} == {3: \"d\", 4: \"e\", 5: \"f\"}\n}\n"},
    expected: "  %ROOT%/test.rego:5:\n    \t{k: x | x := l[k]} == {3: \"d\", 4: \"e\", 5: \"f\"}\n    \t|\n    \t{0: \"a\", 1: \"b\", 2: \"c\"}\n",
  },
  {
    note: "every",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tl := [1, 2, 3]\n\tevery x in l {\n\t\tx == 1 \n\t}\n}"},
    expected: "  %ROOT%/test.rego:6:\n    \t\tx == 1\n    \t\t|\n    \t\t2\n",
  },
  {
    note: "comprehension inside every",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tl := [1, 2, 3]\n\tevery x in l {\n\t\t[v | v := x] == [42]\n\t}\n}"},
    expected: "  %ROOT%/test.rego:6:\n    \t\t[v | v := x] == [42]\n    \t\t|\n    \t\t[1]\n",
  },
  {
    note: "nested every",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tl := [[1, 2], [3, 4], [5, 6]]\n\tevery x in l {\n\t\tevery y in x {\n\t\t\ty < 4\n\t\t}\n\t}\n}"},
    expected: "  %ROOT%/test.rego:7:\n    \t\t\ty < 4\n    \t\t\t|\n    \t\t\t4\n",
  },
  {
    note: "nested every with comprehension",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tl := [[1, 2], [3, 4], [5, 6]]\n\tevery x in l {\n\t\tevery y in x {\n\t\t\t[v | v := y] == [42]\n\t\t}\n\t}\n}"},
    expected: "  %ROOT%/test.rego:7:\n    \t\t\t[v | v := y] == [42]\n    \t\t\t|\n    \t\t\t[1]\n",
  },
  {
    note: "ref equality",
    files: {"test.rego": "package test\n\na := 1\nb := 2\n\ntest_foo if {\n\ta == b\n}"},
    expected: "  %ROOT%/test.rego:7:\n    \ta == b\n    \t|    |\n    \t|    2\n    \t1\n",
  },
  {
    note: "ref equality (data)",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tdata.a == data.b\n}", "data.json": "{\"a\": 1, \"b\": 2}"},
    expected: "  %ROOT%/test.rego:4:\n    \tdata.a == data.b\n    \t|         |\n    \t|         2\n    \t1\n",
  },
  {
    note: "with, containing local vars",
    files: {"test.rego": "package test\n\np := input.x\n\ntest_p if {\n\ta := 1\n\tp == 2 with input.x as a\n}"},
    expected: "  %ROOT%/test.rego:7:\n    \tp == 2 with input.x as a\n    \t|                      |\n    \t|                      1\n    \t1\n",
  },
  {
    note: "with, containing ref",
    files: {"test.rego": "package test\n\np := input.x\n\ntestInput := {\"x\": 1}\n\ntest_p if {\n\tp == 2 with input as testInput\n}"},
    expected: "  %ROOT%/test.rego:8:\n    \tp == 2 with input as testInput\n    \t|                    |\n    \t|                    {\"x\": 1}\n    \t1\n",
  },
  {
    note: "negated rule ref",
    files: {"test.rego": "package test\n\na if {true}\n\ntest_foo if {\n\tnot a\n}", "data.json": "{\"a\": true}"},
    expected: "  %ROOT%/test.rego:6:\n    \tnot a\n    \t    |\n    \t    true\n",
  },
  {
    note: "negated data ref",
    files: {"test.rego": "package test\n\ntest_foo if {\n\tnot data.a\n}", "data.json": "{\"a\": true}"},
    expected: "  %ROOT%/test.rego:4:\n    \tnot data.a\n",
  },
];

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("regent test --var-values: OPA's TestFailVarValues cases", () => {
  for (const c of CASES) {
    it(c.note, async () => {
      const root = mkdtempSync(join(tmpdir(), 'regent-var-values-'));
      dirs.push(root);
      for (const [name, text] of Object.entries(c.files)) writeFileSync(join(root, name), text);
      const r = await runCaptured(testCommand, ['-b', '--var-values', root]);
      expect(r.code).toBe(2);
      const out = r.out.replace(/FAIL \([^)]*s\)/g, 'FAIL (T)');
      const block = /data\.test\.test_\w+: FAIL \(T\)\n\n([\s\S]*?)\nSUMMARY/.exec(out)?.[1];
      expect(block).toBe(c.expected.replaceAll('%ROOT%', root));
    });
  }
});
