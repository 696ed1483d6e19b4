// `regent check` flags added for parity with `opa check`: -b/--bundle (bundle rules,
// data path conflicts, --ignore inside bundles, tarballs), --v1-compatible and
// --rego-v1 (policies valid as Rego v0 and v1 at once: OPA's RegoV0CompatV1 cases
// from its cmd/check_test.go), each with the exact output and exit code.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkCommand } from '../../../cli/check.js';
import { writeBundle } from '../../../runtime/bundles/index.js';
import { RObject, fromJS } from '../../../runtime/value/index.js';
import { capture, runCaptured, tempTree } from './helpers.js';

const tree = tempTree({
  'conflict/policy.rego': 'package p\nallow := false\n',
  'conflict/data.json': '{"p":{"allow":false}}',
  'roots/.manifest': '{"roots":["a"]}',
  'roots/p.rego': 'package b\nx := 1\n',
  'ignore/ignore.rego': 'invalid rego',
  'ignore/include.rego': 'package valid\n',
  'ignore/sub/bad.rego': 'nope',
  'v0/.manifest': '{"rego_version":0}',
  'v0/p.rego': 'package v\np[x] { x := 1 }\n',
  'v1only/p.rego': 'package test\np contains x if {\n\tx := [1,2,3]\n}\n',
  'ok/rego-import.rego': 'package test\nimport rego.v1\np contains x if {\n\tx := [1,2,3]\n}\n',
  'ok/keywords.rego': 'package test2\nimport future.keywords.if\nimport future.keywords.contains\np contains x if {\n\tx := [1,2,3]\n}\n',
  'ok/plain.rego': 'package test3\np := 1\n',
  'parser/test.rego': 'package test\nimport rego.v1\np contains x {\n\tx := [1,2,3]\n}\n\nq.r\n',
  'imports/test.rego': 'package test\nimport rego.v1\n\nimport data.foo\nimport data.bar as foo\n',
  'shadow/test.rego': 'package test\nimport future.keywords.if\n\ninput := 1 if {\n\t1 == 2\n}\n',
  'partialset/test.rego': 'package test\np.x\n',
  'deprecated/t.rego': 'package t\n\nimport future.keywords.if\n\np if any([true])\n',
  'v1manifest/.manifest': '{"rego_version":1}',
  'v1manifest/p.rego': 'package m\np contains 1\n',
  'print/erased.rego': 'package pr\n\nq if {\n\tprint(y)\n}\n',
  'printvalue/p.rego': 'package pv\n\nq if {\n\tx := print("a")\n\tx\n}\n',
});
afterAll(() => tree.cleanup());
const at = (p: string): string => join(tree.dir, p);

const check = (...argv: string[]): Promise<{ code: number; err: string; out: string }> => runCaptured(checkCommand, argv);

describe('check -b/--bundle', () => {
  it('checks bundle modules against the bundle data (OPA: conflicting rule for data path)', async () => {
    expect(await check('-b', at('conflict'))).toEqual({
      code: 1,
      out: '',
      err: `1 error occurred: ${at('conflict/policy.rego')}:2: rego_compile_error: conflicting rule for data path p/allow found\n`,
    });
    // without -b the data is not looked at
    expect(await check(at('conflict'))).toEqual({ code: 0, out: '', err: '' });
  });

  it('applies the manifest: roots and the bundle rego_version', async () => {
    expect(await check('--bundle', at('roots'))).toEqual({
      code: 1,
      out: '',
      err: `1 error occurred: bundle ${at('roots')}: manifest roots [a] do not permit 'package b' in module '/p.rego'\n`,
    });
    expect(await check('-b', at('v0'))).toEqual({ code: 0, out: '', err: '' });
    const plain = await check(at('v0'));
    expect(plain.code).toBe(1);
    expect(plain.err).toContain('rego_parse_error: `if` keyword is required before rule body');
  });

  it('--ignore skips names inside the bundle (repeated or comma-separated)', async () => {
    expect(await check('-b', '--ignore', 'ignore.rego', '--ignore', 'sub', at('ignore'))).toEqual({ code: 0, out: '', err: '' });
    expect(await check('-b', '--ignore', 'ignore.rego,sub', at('ignore'))).toEqual({ code: 0, out: '', err: '' });
    expect(await check('-b', at('ignore'))).toEqual({
      code: 1,
      out: '',
      err:
        // OPA's parseModule errors carry no source line (only the parser's own do).
        `2 errors occurred:\n${at('ignore/ignore.rego')}:1: rego_parse_error: package expected\n` +
        `${at('ignore/sub/bad.rego')}:1: rego_parse_error: package expected\n`,
    });
  });

  it('reads bundle tarballs, naming modules <archive>/<path>', async () => {
    const archive = at('conflict.tar.gz');
    const bundle = { manifest: {}, modules: [{ path: '/x/policy.rego', text: 'package p\nallow := true\n' }], data: fromJS({ p: { allow: false } }) as RObject };
    writeFileSync(archive, await writeBundle(bundle));
    expect(await check('-b', archive)).toEqual({
      code: 1,
      out: '',
      err: `1 error occurred: ${archive}/x/policy.rego:2: rego_compile_error: conflicting rule for data path p/allow found\n`,
    });
  });

  it('is asynchronous only with -b; a missing bundle is a load error', async () => {
    const c = capture();
    const sync = checkCommand([at('ok')], c.io);
    expect(sync).toBe(0);
    expect(await check('-b', at('missing'))).toEqual({ code: 1, out: '', err: `1 error occurred: stat ${at('missing')}: no such file or directory\n` });
  });
});

describe('check --v1-compatible', () => {
  it('is accepted (v1 is the default); --v0-compatible takes precedence', async () => {
    expect(await check('--v1-compatible', at('v1only'))).toEqual({ code: 0, out: '', err: '' });
    const v0 = await check('--v1-compatible', '--v0-compatible', at('v1only'));
    expect(v0.code).toBe(1);
    expect(v0.err).toContain('rego_parse_error: var cannot be used for rule name');
  });
});

describe('check --rego-v1', () => {
  it('accepts modules valid in Rego v0 and v1', async () => {
    expect(await check('--rego-v1', at('ok'))).toEqual({ code: 0, out: '', err: '' });
  });

  it('reports the v1 rule checks on v0 syntax', async () => {
    const file = at('parser/test.rego');
    expect(await check('--rego-v1', at('parser'))).toEqual({
      code: 1,
      out: '',
      err:
        // CheckRegoV1's errors carry no source line (as OPA issue 6370 shows them).
        `2 errors occurred:\n${file}:3: rego_parse_error: \`if\` keyword is required before rule body\n` +
        `${file}:7: rego_parse_error: \`contains\` keyword is required for partial set rules\n`,
    });
    expect(await check('--rego-v1', at('partialset'))).toEqual({
      code: 1,
      out: '',
      err: `1 error occurred: ${at('partialset/test.rego')}:2: rego_parse_error: \`contains\` keyword is required for partial set rules\n`,
    });
  });

  it('requires the keywords to be imported (v0 syntax)', async () => {
    expect(await check('--rego-v1', at('v1only'))).toEqual({
      code: 1,
      out: '',
      err: `1 error occurred: ${at('v1only/p.rego')}:2: rego_parse_error: var cannot be used for rule name\n`,
    });
  });

  it('runs the compile checks of v1-compatible modules', async () => {
    expect(await check('--rego-v1', at('imports'))).toEqual({
      code: 1,
      out: '',
      err: `1 error occurred: ${at('imports/test.rego')}:5: rego_compile_error: import must not shadow import data.foo\n`,
    });
    expect(await check('--rego-v1', at('shadow'))).toEqual({
      code: 1,
      out: '',
      err: `1 error occurred: ${at('shadow/test.rego')}:4: rego_compile_error: rules must not shadow input (use a different rule name)\n`,
    });
    const deprecated = `1 error occurred: ${at('deprecated/t.rego')}:5: rego_type_error: deprecated built-in function calls in expression: any\n`;
    expect(await check('--rego-v1', at('deprecated'))).toEqual({ code: 1, out: '', err: deprecated });
    expect(await check('--rego-v1', '--strict', at('deprecated'))).toEqual({ code: 1, out: '', err: deprecated });
    // plain v0 accepts these (the rego.v1 import already asks for the v1 checks)
    for (const dir of ['shadow', 'deprecated']) expect((await check('--v0-compatible', at(dir))).code).toBe(0);
  });

  it('takes precedence over --v0-compatible; a bundle manifest version still applies', async () => {
    expect((await check('--rego-v1', '--v0-compatible', at('v1only'))).code).toBe(1);
    expect(await check('--rego-v1', '-b', at('v1manifest'))).toEqual({ code: 0, out: '', err: '' });
    expect(await check('--rego-v1', '-b', at('v0'))).toEqual({ code: 0, out: '', err: '' });
    const json = await check('--rego-v1', '-f', 'json', at('partialset'));
    expect(json.code).toBe(1);
    expect(JSON.parse(json.err).errors[0]).toMatchObject({ code: 'rego_parse_error', message: '`contains` keyword is required for partial set rules' });
  });

  it('lists the new flags in --help', async () => {
    const { code, out } = await check('--help');
    expect(code).toBe(0);
    for (const flag of ['-b, --bundle', '--rego-v1', '--v1-compatible']) expect(out).toContain(flag);
  });
});

describe('check --capabilities', () => {
  it('reports an unreadable file or unknown version as opa reports a bad flag value', async () => {
    for (const arg of [at('missing-capabilities.json'), 'v0.16.0']) {
      const r = await check('--capabilities', arg, at('ok/plain.rego'));
      expect(r.code).toBe(1);
      expect(r.out).toBe('');
      expect(r.err.split('\n')[0]).toBe(`Error: invalid argument ${JSON.stringify(arg)} for "--capabilities" flag: no such file or capabilities version found: ${arg}`);
    }
    expect(await check('--capabilities', 'v1.0.0', at('ok/plain.rego'))).toEqual({ code: 0, out: '', err: '' });
  });
});

describe('check: print statements on, as opa check (WithEnablePrintStatements(true))', () => {
  it('checks print arguments (`undeclared`), and a print used as a value is an error', async () => {
    const p = await check('--format', 'json', at('print'));
    expect(p.code).toBe(1);
    expect(JSON.parse(p.err).errors[0]).toMatchObject({ code: 'rego_compile_error', message: 'var y is undeclared' });
    const r = await check('--format', 'json', at('printvalue'));
    expect(r.code).toBe(1);
    expect(JSON.parse(r.err).errors[0]).toMatchObject({ code: 'rego_type_error', message: 'print("a") used as value' });
  });
});
