// `regent test`: discovery of test_* / todo_test_* rules, OPA's pretty and JSON
// reports, exit codes, --run filtering, print() capture, -v failure traces,
// --coverage from trace events, and `regent eval --explain`.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { main } from '../../../cli/main.js';
import { formatDuration } from '../../../cli/test.js';
import { capture, tempTree } from './helpers.js';

const POLICY = `package authz

allow if {
	input.path == ["users"]
	input.method == "POST"
}

allow if {
	input.path == ["users", input.user_id]
	input.method == "GET"
}

unused if {
	input.x == 1
}
`;

const TESTS = `package authz_test

import data.authz.allow

test_post_allowed if {
	allow with input as {"path": ["users"], "method": "POST"}
}

test_get_user_allowed if {
	allow with input as {"path": ["users", "bob"], "method": "GET", "user_id": "bob"}
}

test_uses_data if {
	data.roles.admin == "alice"
}
`;

const FAILING = `package authz_fail

import data.authz.allow

test_get_denied if {
	print("checking get")
	allow with input as {"path": ["users"], "method": "GET"}
}

todo_test_later if {
	false
}

f(_) := 1
f(_) := 2

test_error if {
	f(1)
}
`;

const good = tempTree({ 'authz.rego': POLICY, 'authz_test.rego': TESTS, 'roles/data.json': '{"admin": "alice"}' });
const bad = tempTree({ 'authz.rego': POLICY, 'authz_fail_test.rego': FAILING });
afterAll(() => {
  good.cleanup();
  bad.cleanup();
});

async function run(...argv: string[]) {
  const c = capture();
  const code = await main(['test', ...argv], c.io);
  return { code, out: c.out, err: c.err };
}

const DUR = /\((\d+(\.\d+)?(ns|µs|ms|s))\)/g;

describe('regent test', () => {
  it('prints only the summary when everything passes', async () => {
    const r = await run(good.dir);
    expect(r.code).toBe(0);
    expect(r.out).toBe('PASS: 3/3\n');
  });

  it('lists every test with -v, grouped by file', async () => {
    const r = await run('-v', good.dir);
    expect(r.code).toBe(0);
    expect(r.out.replace(DUR, '(T)')).toBe(
      [
        `${join(good.dir, 'authz_test.rego')}:`,
        'data.authz_test.test_post_allowed: PASS (T)',
        'data.authz_test.test_get_user_allowed: PASS (T)',
        'data.authz_test.test_uses_data: PASS (T)',
        '-'.repeat(80),
        'PASS: 3/3',
        '',
      ].join('\n'),
    );
  });

  it('reports failures, errors and skips, with exit code 2', async () => {
    const r = await run(bad.dir);
    expect(r.code).toBe(2);
    const out = r.out.replace(DUR, '(T)');
    expect(out).toContain('data.authz_fail.test_get_denied: FAIL (T)\n\n  checking get\n\n');
    expect(out).toContain('data.authz_fail.todo_test_later: SKIPPED\n');
    expect(out).toMatch(/data\.authz_fail\.test_error: ERROR \(T\)\n {2}.*eval_conflict_error: functions must not produce multiple outputs for same inputs\n/);
    expect(out).toContain('-'.repeat(80) + '\nFAIL: 1/3\nSKIPPED: 1/3\nERROR: 1/3\n');
  });

  it('shows the fails explanation of each failure with -v', async () => {
    const r = await run('-v', '--run', 'denied', bad.dir);
    expect(r.code).toBe(2);
    expect(r.out.startsWith('FAILURES\n' + '-'.repeat(80) + '\ndata.authz_fail.test_get_denied: FAIL')).toBe(true);
    // The rule index on input.method leaves out the POST definition (as OPA's does):
    // only the GET one is entered, and fails on its path test.
    expect(r.out).toMatch(/authz\.rego:9 +\| \| \| Fail input\.path == \["users", input\.user_id\]/);
    expect(r.out).not.toContain('Fail input.method == "POST"');
    expect(r.out).toContain('SUMMARY\n');
    expect(r.out).toContain('FAIL: 1/1\n');
  });

  it('filters with --run and prints JSON with --format json', async () => {
    const r = await run('--format', 'json', '--run', 'post', good.dir);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out);
    expect(json).toHaveLength(1);
    expect(json[0]).toMatchObject({ package: 'data.authz_test', name: 'test_post_allowed', location: { file: join(good.dir, 'authz_test.rego'), row: 5 } });
    expect(typeof json[0].duration).toBe('number');
  });

  it('exits 0 on skipped tests with -z', async () => {
    const r = await run('-z', '--run', 'todo', bad.dir);
    expect(r.code).toBe(0);
    expect(r.out).toContain('SKIPPED: 1/1');
  });

  it('reports coverage from trace events', async () => {
    const r = await run('--coverage', good.dir);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    const policy = report.files[join(good.dir, 'authz.rego')];
    expect(policy.covered).toEqual([{ start: { row: 3 }, end: { row: 5 } }, { start: { row: 8 }, end: { row: 10 } }]);
    expect(policy.not_covered).toEqual([{ start: { row: 13 }, end: { row: 14 } }]);
    expect(policy.covered_lines).toBe(6);
    expect(policy.not_covered_lines).toBe(2);
    expect(policy.coverage).toBe(75);
    expect(report.files[join(good.dir, 'authz_test.rego')].not_covered).toBeUndefined();
    expect(report.coverage).toBeCloseTo((100 * report.covered_lines) / (report.covered_lines + report.not_covered_lines));
  });

  it('fails --threshold when coverage is too low', async () => {
    const r = await run('--threshold', '99', good.dir);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^Code coverage threshold not met: got \d+\.\d\d instead of 99\.00/);
  });

  it('reports compile errors with exit code 1', async () => {
    const broken = tempTree({ 'x.rego': 'package x\n\ntest_x if { y }\n' });
    try {
      const r = await run(broken.dir);
      expect(r.code).toBe(1);
      expect(r.err).toContain('rego_unsafe_var_error');
    } finally {
      broken.cleanup();
    }
  });

  it('formats durations as Go does', () => {
    expect([0, 512, 1500, 2_345_000, 1_200_000_000, 62_500_000_000].map(formatDuration)).toEqual(['0s', '512ns', '1.5µs', '2.345ms', '1.2s', '1m2.5s']);
  });
});

describe('regent eval --explain', () => {
  async function evalCmd(...argv: string[]) {
    const c = capture();
    const code = await main(['eval', ...argv], c.io);
    return { code, out: c.out };
  }

  it('prints the filtered trace before the pretty result', async () => {
    const r = await evalCmd('-d', join(good.dir, 'authz.rego'), '--format', 'pretty', '--explain', 'fails', 'data.authz.allow');
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^query:1 +Enter data\.authz\.allow = _$/);
    // Without input the rule index (on input.method) picks no definition: none is entered.
    expect(lines).toContainEqual(expect.stringMatching(/^query:1 +\| Fail data\.authz\.allow = _$/));
    expect(lines.some((l) => l.includes('Enter data.authz.allow') && l.startsWith('authz.rego'))).toBe(false);
    expect(lines.at(-1)).toBe('undefined');
  });

  it('adds an explanation array to JSON output', async () => {
    const r = await evalCmd('-d', join(good.dir, 'authz.rego'), '--explain', 'full', 'x := 1');
    const json = JSON.parse(r.out);
    expect(json.result[0].bindings).toEqual({ x: 1 });
    expect(json.explanation.map((e: { Op: string }) => e.Op)).toEqual(['Enter', 'Eval', 'Exit', 'Redo', 'Redo']);
    expect(json.explanation[0]).toMatchObject({ QueryID: 0, ParentID: 0, Location: { row: 1 } });
  });

  it('leaves output unchanged without --explain', async () => {
    const r = await evalCmd('x := 1');
    expect(JSON.parse(r.out).explanation).toBeUndefined();
  });
});
