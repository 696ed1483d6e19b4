// `regent eval` edges: bundle archives with -b (bundle.tar.gz, manifest rego_version,
// module names, data), -i read as YAML whatever the file is called (as OPA's
// util.Unmarshal), OPA-worded errors for unreadable data and input files (no
// JavaScript parser text, no stack overflow text), and a closed stdout pipe
// (`regent eval … | head -1`) ending quietly; deep documents printed back.
// Failures exit 2, as opa eval's RunE (newExitErrorWrap(2, err)) makes them, and
// non-JSON formats print the errors on stderr (OPA v1.9+ presentation package).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { evalCommand } from '../../../cli/eval.js';
import { repoRoot } from '../../shared-dir.js';
import { tarEntries } from '../../../runtime/bundles/index.js';
import { fromJS, RSet } from '../../../runtime/value/index.js';
import { toJSON, toJSONDeep } from '../../../cli/output.js';
import { capture, tempTree } from './helpers.js';

let dir: string;
let cleanup: () => void;
const JS_TEXT = /Unexpected token|Expected double-quoted|Maximum call stack|is not valid JSON|SyntaxError|at .*\.ts:\d+/;

beforeAll(async () => {
  ({ dir, cleanup } = tempTree({
    'policy/p.rego': 'package app\n\nallow if input.user == "alice"\n',
    'bad/data.json': '{"a": }',
    'bad/trailing.json': '{"a": 1} x',
    'badyaml/data.yaml': 'a: [1,\n b: 2\n',
    'inputs/in.json': '{"user": "alice", "big": 12345678901234567890}',
    'inputs/in.yaml': 'user: alice\nroles: [admin, dev]\n',
    'inputs/yaml-named.json': 'user: alice\n',
    'inputs/flow.json': '{"user": }',
    'inputs/broken.yaml': 'user: [alice,\n',
    'inputs/empty.json': '',
    'conflict/p.rego': 'package app\n\nlevel := 2\n\nmode := "x"\n',
    'conflict/data.json': '{"app": {"level": 1}}',
    'scalar/p.rego': 'package app\n\nlevel := 2\n',
    'scalar/data.json': '{"app": 1}',
    ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`many/m${String(i).padStart(2, '0')}.rego`, `package m${i}\n\nq := x if input.y\n`])),
  }));
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  writeFileSync(join(dir, 'inputs', 'deep.json'), deep(5000));
  writeFileSync(join(dir, 'inputs', 'toodeep.json'), deep(20000));
  writeFileSync(join(dir, 'deepdata.json'), `{"d": ${deep(5000)}}`);
  const archive = async (policy: string) =>
    gzipSync(
      await tarEntries([
        { path: '/.manifest', bytes: Buffer.from('{"revision": "r1", "roots": ["old", "cfg"], "rego_version": 0}') },
        { path: '/old/policy.rego', bytes: Buffer.from(policy) },
        { path: '/cfg/data.json', bytes: Buffer.from('{"level": 3}') },
      ]),
    );
  writeFileSync(join(dir, 'bundle.tar.gz'), await archive('package old\n\np[x] { x := [1, 2][_] }\n'));
  writeFileSync(join(dir, 'broken.tar.gz'), await archive('package old\n\nbroken := 1 {\n  input.z ==\n}\n'));
  writeFileSync(join(dir, 'notgzip.tar.gz'), 'plain text');
});
afterAll(() => cleanup());

async function run(...argv: string[]) {
  const c = capture();
  const code = await evalCommand(argv, c.io);
  return { code, out: c.out, err: c.err };
}

const value = (out: string): unknown => JSON.parse(out).result[0].expressions[0].value;

describe('eval -b bundle.tar.gz', () => {
  it('reads an archive: modules in the manifest rego version, data at their path', async () => {
    const r = await run('-b', join(dir, 'bundle.tar.gz'), '-f', 'raw', '[data.old.p, data.cfg.level]');
    expect(r.err).toBe('');
    expect(r.out).toBe('[[1,2],3]\n');
    expect(r.code).toBe(0);
  });

  it('loads an archive given with -d as well, under its prefix', async () => {
    const r = await run('-d', join(dir, 'bundle.tar.gz'), '-f', 'raw', 'data.cfg.level');
    expect(r.out).toBe('3\n');
    const p = await run('-d', `x.y:${join(dir, 'bundle.tar.gz')}`, '-f', 'raw', 'data.x.y.cfg.level');
    expect(p.out).toBe('3\n');
  });

  it('names archive modules by their bundle path in errors', async () => {
    const r = await run('-b', join(dir, 'broken.tar.gz'), 'data.old');
    expect(r.code).toBe(2);
    const e = JSON.parse(r.out).errors[0];
    expect(e.code).toBe('rego_parse_error');
    expect(e.location.file).toBe('/old/policy.rego');
  });

  it('reports an unreadable archive as a bundle load error', async () => {
    const r = await run('-b', join(dir, 'notgzip.tar.gz'), 'data');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out).errors[0].message).toMatch(/^bundle .*notgzip\.tar\.gz: archive read failed/);
  });
});

describe('eval -i: YAML as OPA reads it', () => {
  it('reads .yaml input, and YAML in a file named .json', async () => {
    expect(value((await run('-i', join(dir, 'inputs', 'in.yaml'), 'input')).out)).toEqual({ user: 'alice', roles: ['admin', 'dev'] });
    expect(value((await run('-i', join(dir, 'inputs', 'yaml-named.json'), 'input')).out)).toEqual({ user: 'alice' });
    // `{"user": }` is a YAML flow mapping with a null value, as go-yaml reads it.
    expect(value((await run('-i', join(dir, 'inputs', 'flow.json'), 'input')).out)).toEqual({ user: null });
  });

  it('keeps JSON numbers exact and reads empty input as null', async () => {
    expect((await run('-i', join(dir, 'inputs', 'in.json'), '-f', 'raw', 'input.big')).out).toBe('12345678901234567890\n');
    expect((await run('-i', join(dir, 'inputs', 'empty.json'), '-f', 'raw', 'input')).out).toBe('null\n');
  });

  it('reads deeply nested JSON input and refuses what Go refuses', async () => {
    expect((await run('-i', join(dir, 'inputs', 'deep.json'), '-f', 'raw', 'count(input)')).out).toBe('1\n');
    const r = await run('-i', join(dir, 'inputs', 'toodeep.json'), 'input');
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe('unable to parse input: error converting YAML to JSON: yaml: exceeded max depth of 10000\n');
  });

  it('prints input errors plainly on stderr, as opa eval does', async () => {
    const bad = await run('-i', join(dir, 'inputs', 'broken.yaml'), 'input');
    expect(bad.code).toBe(2);
    expect(bad.out).toBe('');
    expect(bad.err).toMatch(/^unable to parse input: error converting YAML to JSON: yaml: line \d+: /);
    const missing = await run('-i', join(dir, 'inputs', 'nope.json'), 'input');
    expect(missing.err).toBe(`open ${join(dir, 'inputs', 'nope.json')}: no such file or directory\n`);
    expect(missing.code).toBe(2);
  });
});

describe('eval -d: bad data files', () => {
  it("words JSON errors as Go's decoder, prefixed by the file", async () => {
    const r = await run('-d', join(dir, 'bad', 'data.json'), 'data');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out).errors).toEqual([{ message: `${join(dir, 'bad', 'data.json')}: invalid character '}' looking for beginning of value` }]);
    // util.UnmarshalJSON reads one value, then decoder.Token() rejects what follows.
    const t = await run('-d', join(dir, 'bad', 'trailing.json'), '-f', 'pretty', 'data');
    expect(t.out).toBe('');
    expect(t.err).toBe(`1 error occurred: ${join(dir, 'bad', 'trailing.json')}: invalid character 'x' looking for beginning of value\n`);
  });

  it('words YAML errors as OPA does, with the line', async () => {
    const r = await run('-d', join(dir, 'badyaml'), '-f', 'pretty', 'data');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^1 error occurred: ${join(dir, 'badyaml', 'data.yaml').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: error converting YAML to JSON: yaml: line 3: `));
  });

  it('loads deeply nested data; never shows JavaScript error text', async () => {
    expect((await run('-d', join(dir, 'deepdata.json'), '-f', 'raw', 'count(data.d)')).out).toBe('1\n');
    for (const args of [['-d', join(dir, 'bad')], ['-d', join(dir, 'badyaml')], ['-i', join(dir, 'inputs', 'toodeep.json')], ['-i', join(dir, 'inputs', 'broken.yaml')]]) {
      const r = await run(...args, 'data');
      expect(r.out + r.err).not.toMatch(JS_TEXT);
    }
  });
});

describe('eval output to a closed pipe', () => {
  it('exits quietly when the reader goes away (… | head -1)', () => {
    const script = `node ${JSON.stringify(join(repoRoot, 'bin', 'regent.js'))} eval 'numbers.range(1, 300000)' | head -1; echo "status=\${PIPESTATUS[0]}"`;
    const r = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 60_000 });
    expect(r.stdout).toBe('{\nstatus=141\n');
    expect(r.stderr).toBe('');
  });
});

describe('JSON output of deep documents', () => {
  it('writes the same text with the explicit stack as recursively', () => {
    const v = fromJS({ b: [1, { z: null, a: 'x<y' }, [], {}], a: { c: [true, 2.5, '\u2028'] } });
    const set = new RSet();
    set.add(3);
    set.add(fromJS({ k: [1] }));
    for (const x of [v, set, [], {}, 'plain', 12, null, [v, set]]) {
      expect(toJSONDeep(x, '  ', '')).toBe(toJSON(x));
      expect(toJSONDeep(x, '', '')).toBe(toJSON(x, ''));
      expect(toJSONDeep(x, '  ', '    ')).toBe(toJSON(x, '  ', '    '));
    }
  });

  it('prints a 5,000-deep input back (json and pretty)', async () => {
    const r = await run('-i', join(dir, 'inputs', 'deep.json'), '-f', 'pretty', 'input');
    expect(r.code).toBe(0);
    expect(r.out.replace(/\s/g, '')).toBe('['.repeat(5000) + ']'.repeat(5000));
  });
});

describe('eval: rules where the loaded data is (OPA WithPathConflictsCheck)', () => {
  it('refuses a rule at a data path, or under a scalar, with OPA\'s error', async () => {
    const r = await run('-d', join(dir, 'conflict'), 'data.app');
    expect(r.code).toBe(2);
    const errors = JSON.parse(r.out).errors;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'rego_compile_error', message: 'conflicting rule for data path app/level found', location: { row: 3 } });
    const s = await run('-d', join(dir, 'scalar'), 'data.app');
    expect(JSON.parse(s.out).errors[0].message).toBe('conflicting rule for data path app/level found');
  });
});

describe('eval: OPA\'s compile error limit', () => {
  it('reports 10 errors, then `error limit reached`', async () => {
    const r = await run('-d', join(dir, 'many'), 'data');
    const errors = JSON.parse(r.out).errors;
    expect(errors).toHaveLength(11);
    expect(errors[0]).toMatchObject({ code: 'rego_unsafe_var_error', message: 'var x is unsafe' });
    expect(errors[10]).toEqual({ code: 'rego_compile_error', message: 'error limit reached' });
  });
});
