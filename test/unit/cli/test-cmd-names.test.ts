// `regent test` naming as OPA's tester (v1/tester/runner.go): packages with quoted
// path segments (the test query is a ref term, not pasted text), same-named test
// rules run one by one and renamed `test_x#01`, `test_x#02` (each definition in
// isolation, counted separately, in the pretty and JSON reports and for --run),
// loading errors worded as OPA's loader (`1 error occurred during loading: …`),
// tests below a ref head (`a.test_b`), and partial-object tests.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { main } from '../../../cli/main.js';
import { capture, tempTree } from './helpers.js';

const QUOTED = `package global.systemtypes["entitlements:1.0"].lib

allow if input.user == "alice"

test_allow if allow with input as {"user": "alice"}

test_deny if not allow with input as {"user": "bob"}
`;

// v0, as gatekeeper-library writes them: three definitions of test_dup, the second fails.
const DUPS = `package dups

test_dup {
    true
}

test_dup {
    false
}

test_dup {
    1 == 1
}

test_other {
    true
}

todo_test_later {
    true
}
`;

// The same name in a second file of the same package continues the count.
const DUPS_MORE = `package dups

test_dup {
    true
}
`;

const REFS = `package refs

a.test_b := true

test_cases[name] := ok if {
	some name, ok in {"one": true, "two": true}
}

test_broken[name] := ok if {
	some name, ok in {"one": true, "two": false}
}
`;

const t = tempTree({ 'quoted/q.rego': QUOTED, 'dups/a.rego': DUPS, 'dups/b.rego': DUPS_MORE, 'refs/r.rego': REFS });
afterAll(() => t.cleanup());

async function run(...argv: string[]) {
  const c = capture();
  const code = await main(['test', ...argv], c.io);
  return { code, out: c.out, err: c.err };
}

interface JSONResult {
  package: string;
  name: string;
  fail?: boolean;
  error?: { message: string };
  skip?: boolean;
  location: { file: string; row: number };
}

async function json(...argv: string[]): Promise<JSONResult[]> {
  const r = await run('--format', 'json', ...argv);
  return JSON.parse(r.out) as JSONResult[];
}

describe('regent test: quoted package segments', () => {
  it('runs tests of a package with a quoted segment (no parse error)', async () => {
    const r = await run('-v', join(t.dir, 'quoted'));
    expect(r.err).toBe('');
    expect(r.out).not.toContain('rego_parse_error');
    expect(r.out).toContain('data.global.systemtypes["entitlements:1.0"].lib.test_allow: PASS');
    expect(r.out).toContain('data.global.systemtypes["entitlements:1.0"].lib.test_deny: PASS');
    expect(r.out).toContain('PASS: 2/2');
    expect(r.code).toBe(0);
  });

  it('prints the package as OPA does in JSON, and --run matches the full ref', async () => {
    const res = await json(join(t.dir, 'quoted'));
    expect(res.map((x) => [x.package, x.name])).toEqual([
      ['data.global.systemtypes["entitlements:1.0"].lib', 'test_allow'],
      ['data.global.systemtypes["entitlements:1.0"].lib', 'test_deny'],
    ]);
    const only = await json('--run', 'entitlements:1.0"\\]\\.lib\\.test_deny', join(t.dir, 'quoted'));
    expect(only.map((x) => x.name)).toEqual(['test_deny']);
  });
});

describe('regent test: same-named tests', () => {
  it('runs each definition on its own, named test_x#01, #02, … in file order', async () => {
    const res = await json('--v0-compatible', join(t.dir, 'dups'));
    expect(res.map((x) => `${x.name}${x.fail ? ' FAIL' : ''}${x.skip ? ' SKIP' : ''}`)).toEqual([
      'test_dup',
      'test_dup#01 FAIL',
      'test_dup#02',
      'test_other',
      'todo_test_later SKIP',
      'test_dup#03',
    ]);
    expect(res.map((x) => x.location.row)).toEqual([3, 7, 11, 15, 19, 3]);
    expect(res[5]!.location.file).toBe(join(t.dir, 'dups', 'b.rego'));
  });

  it('counts them separately in the pretty report and lists the failing repeat', async () => {
    const r = await run('--v0-compatible', join(t.dir, 'dups'));
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/^data\.dups\.test_dup#01: FAIL \(/m);
    expect(r.out).toContain('PASS: 4/6\nFAIL: 1/6\nSKIPPED: 1/6\n');
  });

  it('filters repeats with --run by their rewritten ref', async () => {
    const res = await json('--v0-compatible', '--run', 'test_dup#0[12]', join(t.dir, 'dups'));
    expect(res.map((x) => x.name)).toEqual(['test_dup#01', 'test_dup#02']);
  });

  it('explains a failing repeat with -v', async () => {
    const r = await run('-v', '--v0-compatible', '--run', 'test_dup#01', join(t.dir, 'dups'));
    expect(r.out).toContain('FAILURES');
    expect(r.out).toContain('data.dups.test_dup#01: FAIL');
    expect(r.out).toContain('Fail false');
  });
});

describe('regent test: tests under ref heads', () => {
  it('finds a.test_b and partial-object tests; an object passes when every value is true', async () => {
    const res = await json(join(t.dir, 'refs'));
    expect(res.map((x) => `${x.name}${x.fail ? ' FAIL' : ''}`)).toEqual(['a.test_b', 'test_cases', 'test_broken FAIL']);
  });
});

describe('regent test: loading and compile errors as opa test words them', () => {
  it('reports unreadable data and unparsable modules as loading errors, compile errors plainly', async () => {
    const bad = tempTree({ 'data/bad.json': '{"a": }', 'parse/p.rego': 'package p\n\np := \n', 'unsafe/u.rego': 'package u\n\ntest_u if { y }\n' });
    try {
      const data = await run(join(bad.dir, 'data'));
      expect(data.code).toBe(1);
      expect(data.err).toBe(`1 error occurred during loading: ${join(bad.dir, 'data', 'bad.json')}: invalid character '}' looking for beginning of value\n`);
      const parse = await run(join(bad.dir, 'parse'));
      expect(parse.code).toBe(1);
      expect(parse.err).toMatch(/^1 error occurred during loading: .*p\.rego:\d+: rego_parse_error: /);
      const unsafe = await run(join(bad.dir, 'unsafe'));
      expect(unsafe.code).toBe(1);
      expect(unsafe.err).toMatch(/^1 error occurred: .*u\.rego:3: rego_unsafe_var_error: /);
    } finally {
      bad.cleanup();
    }
  });
});
