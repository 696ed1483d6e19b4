// `regent test` on tests with cases (cli/test-cases.ts), as OPA's tester reports them
// (v1/tester/runner.go subResults, reporter.go): a test rule whose head ref goes on
// past its name has one sub-result per case; a case recorded by the injected
// internal.test_case call but missing from the rule's value failed. The pretty report
// lists failed cases (all with -v) under their test, counts leaf cases, and with
// --var-values prints each failed case's lineage and failure line; JSON has
// `sub_results`. The compiled back end and the tracing interpreter (-v) agree.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testCommand } from '../../../cli/test.js';
import { runCaptured, tempTree } from './helpers.js';

const CONCAT = `package example_test

test_concat[note] if {
	some note, tc in {
		"empty + empty": {"a": [], "b": [], "exp": []},
		"empty + filled": {"a": [], "b": [1, 2], "exp": [1, 2]},
		"filled + filled": {"a": [1, 2], "b": [3, 4], "exp": [1, 2, 3]},
	}
	act := array.concat(tc.a, tc.b)
	act == tc.exp
}
`;

const NESTED = `package nested

test_n[a][b] if {
	some a in ["x", "y"]
	some b in [1, 2]
	not bad(a, b)
}

bad("y", 2) if true

test_ok[name] if {
	some name in ["p", "q"]
}

test_manual[name] if {
	some name in ["m"]
	internal.test_case(["custom", name])
	false
}
`;

const t = tempTree({ 'concat/example_test.rego': CONCAT, 'nested/n_test.rego': NESTED });
afterAll(() => t.cleanup());

const test = (...argv: string[]) => runCaptured(testCommand, argv);
/** Durations vary: `(1.2ms)` → `(D)`. */
const stable = (s: string) => s.replace(/ \([0-9.]+(ns|µs|ms|s)\)/g, ' (D)');
const HL = '-'.repeat(80);

describe('regent test: tests with cases', () => {
  it('lists the failed case under its test and counts the cases (OPA docs example)', async () => {
    const r = await test(join(t.dir, 'concat'));
    expect(r.code).toBe(2);
    expect(stable(r.out)).toBe(
      `${join(t.dir, 'concat', 'example_test.rego')}:\ndata.example_test.test_concat: FAIL (D)\n  filled + filled: FAIL\n${HL}\nPASS: 2/3\nFAIL: 1/3\n`,
    );
  });

  it('lists every case, nested cases indented, with -v; a case missing from the value failed', async () => {
    const r = await test('-v', join(t.dir, 'nested'));
    const summary = stable(r.out.slice(r.out.indexOf('SUMMARY')));
    expect(summary).toBe(
      [
        'SUMMARY',
        HL,
        `${join(t.dir, 'nested', 'n_test.rego')}:`,
        'data.nested.test_n: FAIL (D)',
        '  x: PASS',
        '    1: PASS',
        '    2: PASS',
        '  y: FAIL',
        '    1: PASS',
        '    2: FAIL',
        'data.nested.test_ok: PASS (D)',
        '  p: PASS',
        '  q: PASS',
        'data.nested.test_manual: FAIL (D)',
        '  custom: FAIL',
        '    m: FAIL',
        HL,
        'PASS: 5/7',
        'FAIL: 2/7',
        '',
      ].join('\n'),
    );
    // FAILURES: the whole trace, then each failed leaf's lineage.
    expect(r.out).toContain('\n\n  y: FAIL\n    2: FAIL\n');
  });

  it('writes sub_results in JSON, the same with the compiled back end and the tracing interpreter', async () => {
    const plain = JSON.parse((await test('--format', 'json', join(t.dir, 'nested'))).out) as Record<string, unknown>[];
    const traced = JSON.parse((await test('--format', 'json', '-v', join(t.dir, 'nested'))).out) as Record<string, unknown>[];
    const subs = (rs: Record<string, unknown>[]) => rs.map((x) => [x.name, x.fail ?? false, x.sub_results]);
    expect(subs(plain)).toEqual(subs(traced));
    expect(subs(plain)).toEqual([
      [
        'test_n',
        true,
        {
          x: { sub_results: { 1: { name: '1' }, 2: { name: '2' } }, name: 'x' },
          y: { sub_results: { 1: { name: '1' }, 2: { name: '2', fail: true } }, name: 'y', fail: true },
        },
      ],
      ['test_ok', false, { p: { name: 'p' }, q: { name: 'q' } }],
      ['test_manual', true, { custom: { sub_results: { m: { name: 'm', fail: true } }, name: 'custom', fail: true } }],
    ]);
    expect(Object.keys(plain[0]!)).toEqual(['location', 'sub_results', 'package', 'name', 'fail', 'duration']);
  });

  it('prints each failed case with its lineage and failure line with --var-values', async () => {
    const r = await test('--var-values', join(t.dir, 'concat'));
    const failures = stable(r.out.slice(0, r.out.indexOf('SUMMARY')));
    expect(failures).toBe(
      [
        'FAILURES',
        HL,
        'data.example_test.test_concat: FAIL (D)',
        '',
        '  filled + filled: FAIL',
        '    ',
        `      ${join(t.dir, 'concat', 'example_test.rego')}:10:`,
        // The source's tab stays a tab (OPA's padLocationText and printArrows).
        '        \tact == tc.exp',
        '        \t|      |',
        '        \t|      {"a": [1, 2], "b": [3, 4], "exp": [1, 2, 3]}',
        '        \t[1, 2, 3, 4]    ',
        '',
        '',
      ].join('\n'),
    );
  });
});
