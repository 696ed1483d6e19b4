// Tests of `regent eval`, called directly with a capturing IO: argument handling,
// data loading from a temp dir, the json/pretty/raw outputs, --fail/--fail-defined,
// and error JSON (load, parse/compile, eval) with exit codes.
// Exit codes are opa eval's: 2 when loading, parsing, compiling or evaluating fails
// (cmd/eval.go RunE: newExitErrorWrap(2, err)), 1 for a bad command line (a PreRunE
// error, which main turns into os.Exit(1)) and for --fail/--fail-defined.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { evalCommand, parseDuration, parseEvalArgs } from '../../../cli/eval.js';
import { capture, tempTree } from './helpers.js';

let dir: string;
let cleanup: () => void;

beforeAll(() => {
  ({ dir, cleanup } = tempTree({
    'policy/authz.rego': [
      'package app.authz',
      '',
      'default allow := false',
      '',
      'allow if {',
      '  some role in data.app.roles[input.user]',
      '  role == "admin"',
      '}',
      '',
      'users contains u if some u, _ in data.app.roles',
      '',
      'ratio := 10 / input.divisor',
      '',
    ].join('\n'),
    'data/app/roles.json': '{"roles": {"alice": ["admin"], "bob": ["viewer"]}}',
    'inputs/input.json': '{"user": "alice", "divisor": 0}',
    'inputs/input.yaml': 'user: bob\ndivisor: 4\n',
    'bad/broken.rego': 'package broken\n\np := \n',
    'unsafe/u.rego': 'package u\n\np if { x > 1 }\n\nq if { y > 1 }\n',
    'v0/old.rego': 'package old\n\np[x] { x := [1, 2][_] }\n',
  }));
});
afterAll(() => cleanup());

async function run(...argv: string[]) {
  const c = capture('{"user": "bob", "divisor": 2}');
  const code = await evalCommand(argv, c.io);
  return { code, out: c.out, err: c.err };
}

describe('eval arguments', () => {
  it('parses the flags into a request', async () => {
    const req = parseEvalArgs(['-d', 'a', '--data=b', '-b', 'bun', '-i', 'in.json', '--format', 'raw', '--fail', '--timeout', '2s', 'data.x']);
    expect(req).toMatchObject({ query: 'data.x', data: ['a', 'b'], bundles: ['bun'], input: 'in.json', format: 'raw', fail: true, failDefined: false, timeoutMs: 2000 });
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('1m')).toBe(60_000);
  });

  it('exits 1 with usage on missing query or bad flags', async () => {
    const none = await run('-d', dir);
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/^Error: specify query argument or --stdin\n/);
    expect(none.err).toContain('Usage: regent eval');
    expect((await run('--format', 'xml', 'x')).code).toBe(1);
    expect((await run('--fail', '--fail-defined', 'x')).code).toBe(1);
    expect((await run('--help')).code).toBe(0);
  });

  it('reports load errors as JSON errors with exit code 2', async () => {
    const r = await run('-d', join(dir, 'does-not-exist'), 'data');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual({ errors: [{ message: `stat ${join(dir, 'does-not-exist')}: no such file or directory` }] });
  });
});

// The following need a working compiler.
describe('eval results', () => {
  it('prints OPA json output for a rule, with data loaded from the directory tree', async () => {
    const r = await run('-d', join(dir, 'policy'), '-d', join(dir, 'data'), '-i', join(dir, 'inputs', 'input.json'), 'data.app.authz.allow');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      result: [{ expressions: [{ value: true, text: 'data.app.authz.allow', location: { row: 1, col: 1 } }] }],
    });
    expect(r.out).toContain('\n  "result": [\n');
  });

  it('includes bindings, sorted, and reads YAML input and stdin input', async () => {
    const r = await run('-d', join(dir, 'policy'), '-d', join(dir, 'data'), '-i', join(dir, 'inputs', 'input.yaml'), 'x := input.user; y := data.app.roles[x]');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).result[0].bindings).toEqual({ x: 'bob', y: ['viewer'] });
    const s = await run('-d', join(dir, 'data'), '--stdin-input', 'input.divisor');
    expect(JSON.parse(s.out).result[0].expressions[0].value).toBe(2);
  });

  it('prints {} for undefined and honours --fail / --fail-defined', async () => {
    const undef = await run('-d', join(dir, 'data'), 'data.app.nothing');
    expect(undef.out.trim()).toBe('{}');
    expect(undef.code).toBe(0);
    expect((await run('-d', join(dir, 'data'), '--fail', 'data.app.nothing')).code).toBe(1);
    expect((await run('-d', join(dir, 'data'), '--fail', 'data.app.roles')).code).toBe(0);
    expect((await run('-d', join(dir, 'data'), '--fail-defined', 'data.app.roles')).code).toBe(1);
    expect((await run('-d', join(dir, 'data'), '--fail-defined', 'data.app.nothing')).code).toBe(0);
  });

  it('supports pretty and raw formats', async () => {
    const p = await run('-d', join(dir, 'policy'), '-d', join(dir, 'data'), '--format', 'pretty', 'data.app.authz.users');
    expect(p.out).toBe('[\n  "alice",\n  "bob"\n]\n');
    const t = await run('-d', join(dir, 'data'), '--format=pretty', 'data.app.roles[name]');
    expect(t.out).toMatch(/^\+-+\+-+\+\n\|\s+name\s+\|\s+data\.app\.roles\[name\]\s+\|/);
    expect(t.out).toContain('| "alice" | ["admin"]');
    expect((await run('-d', join(dir, 'data'), '--format', 'raw', '"plain"')).out).toBe('plain\n');
    // raw prints expression values only: `x := …` is the expression `true`
    expect((await run('-d', join(dir, 'data'), '--format', 'raw', 'x := "plain"')).out).toBe('true\n');
    expect((await run('-d', join(dir, 'data'), '--format', 'raw', 'data.app.roles.alice')).out).toBe('["admin"]\n');
    expect((await run('-d', join(dir, 'data'), '--format', 'pretty', 'data.app.nothing')).out).toBe('undefined\n');
  });

  it('lists every compile error with code and location', async () => {
    const r = await run('-d', join(dir, 'unsafe'), 'data.u.p');
    expect(r.code).toBe(2);
    const errs = JSON.parse(r.out).errors;
    expect(errs.length).toBe(2);
    for (const e of errs) {
      expect(e.code).toBe('rego_unsafe_var_error');
      expect(e.location.file).toBe(join(dir, 'unsafe', 'u.rego'));
    }
    expect(errs.map((e: { location: { row: number } }) => e.location.row)).toEqual([3, 5]);
  });

  it('reports parse errors and query errors', async () => {
    const p = await run('-d', join(dir, 'bad'), 'data.broken.p');
    expect(p.code).toBe(2);
    expect(JSON.parse(p.out).errors[0].code).toBe('rego_parse_error');
    const q = await run('-d', join(dir, 'data'), '--format', 'pretty', 'x := ');
    expect(q.code).toBe(2);
    // OPA v1.9+: every format but json and discard prints its errors on stderr
    expect(q.out).toBe('');
    expect(q.err).toMatch(/^1 error occurred: .*rego_parse_error/);
  });

  it('reports eval errors under --strict-builtin-errors, undefined otherwise', async () => {
    const args = ['-d', join(dir, 'policy'), '-d', join(dir, 'data'), '-i', join(dir, 'inputs', 'input.json')];
    const strict = await run(...args, '--strict-builtin-errors', 'data.app.authz.ratio');
    expect(strict.code).toBe(2);
    expect(JSON.parse(strict.out).errors[0]).toMatchObject({ code: 'eval_builtin_error', message: 'div: divide by zero' });
    const lax = await run(...args, 'data.app.authz.ratio');
    expect(lax.code).toBe(0);
    expect(lax.out.trim()).toBe('{}');
  });

  it('accepts v0 syntax only with --v0-compatible', async () => {
    expect((await run('-d', join(dir, 'v0'), 'data.old.p')).code).toBe(2);
    const ok = await run('-d', join(dir, 'v0'), '--v0-compatible', 'data.old.p');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out).result[0].expressions[0].value).toEqual([1, 2]);
  });
});
