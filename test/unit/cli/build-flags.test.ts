// `regent build` flags added for parity with `opa build`: --ignore, --capabilities,
// --v1-compatible, --follow-symlinks, signature verification of -b inputs
// (--verification-key, --verification-key-id, --scope, --exclude-files-verify),
// signing details (kid/keyid, --signing-plugin), --partial-namespace and --debug
// with -O, and for -t wasm --prune-unused and --wasm-include-print; each with the
// exact bundle contents or output, and the exit code.
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCommand } from '../../../cli/build.js';
import { extractTarGz, hashBundleFile, readBundle, signFiles, type Bundle } from '../../../runtime/bundles/index.js';
import { toJS } from '../../../runtime/value/index.js';
import { runCaptured, tempTree } from './helpers.js';
import { entrypointDependents } from '../../../cli/build-steps.js';
import { erasePrints } from '../../../compiler/passes/erase-print.js';
import { compile, formatModule, parseModule } from '../../../compiler/index.js';

const AUTHZ = `package authz

# METADATA
# entrypoint: true
allow if {
	some grant in data.grants[input.user]
	grant == input.action
	not blocked
}

blocked if input.action in data.frozen
`;

const tree = tempTree({
  'src/policy.rego': 'package foo\np := 1\n',
  'src/policy_test.rego': 'package foo\ntest_p if p\n',
  'src/roles/policy.rego': 'package bar\np := 1\n',
  'src/roles/policy_test.rego': 'package bar\ntest_p if p\n',
  'src/roles/skip.json': '{"g": 1}',
  'src/deep/er/data.json': '{"e": "f"}',
  'cap/p.rego': 'package c\n\nx := time.format(0)\n\ny := upper("a")\n',
  'v0/p.rego': 'package v\np[x] { x := 1 }\n',
  'signed/p.rego': 'package s\nx := 1\n',
  'signed/data.json': '{"a": 1}',
  'opt/.manifest': '{"roots": ["authz", "grants", "frozen"]}',
  'opt/authz/policy.rego': AUTHZ,
  'opt/data.json': JSON.stringify({ grants: { alice: ['read', 'write'] }, frozen: ['write'] }),
  'linked/p.rego': 'package l\nx := 1\n',
  'elsewhere/q.rego': 'package l\ny := 2\n',
  'wasm/p.rego': 'package test\n\np contains 1\n\nq if {\n\tprint("q", p)\n\tp[1]\n}\n\nr if {\n\tprint("only")\n}\n',
});
afterAll(() => tree.cleanup());
const at = (p: string): string => join(tree.dir, p);

const build = (...argv: string[]): Promise<{ code: number; err: string; out: string }> => runCaptured(buildCommand, argv);

async function files(archive: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await extractTarGz(readFileSync(archive))) out[f.path] = Buffer.from(f.bytes).toString('utf8');
  return out;
}

const read = async (archive: string): Promise<Bundle> => readBundle(readFileSync(archive), { skipVerify: true });

/** The JWS header and payload of an archive's .signatures.json. */
async function token(archive: string): Promise<{ header: unknown; payload: Record<string, unknown> }> {
  const sig = JSON.parse((await files(archive))['/.signatures.json']!) as { signatures: string[] };
  const [h, p] = sig.signatures[0]!.split('.');
  return { header: JSON.parse(Buffer.from(h!, 'base64url').toString()), payload: JSON.parse(Buffer.from(p!, 'base64url').toString()) };
}

describe('build --ignore', () => {
  it('skips matching files and directories in plain mode (data files too)', async () => {
    const out = at('ignored.tar.gz');
    expect(await build('--ignore', '*_test.rego', '--ignore', 'skip.json', at('src'), '-o', out)).toEqual({ code: 0, out: '', err: '' });
    const b = await read(out);
    expect(b.modules.map((m) => m.path)).toEqual([`${at('src')}/policy.rego`, `${at('src')}/roles/policy.rego`]);
    expect(toJS(b.data)).toEqual({ deep: { er: { e: 'f' } } });
  });

  it('skips them in bundle mode, comma-separated globs too', async () => {
    const out = at('ignored-b.tar.gz');
    expect(await build('-b', '--ignore', '*_test.rego,skip.json', at('src'), '-o', out)).toEqual({ code: 0, out: '', err: '' });
    expect(Object.keys(await files(out)).sort()).toEqual(['/.manifest', '/data.json', '/policy.rego', '/roles/policy.rego']);
  });
});

describe('build --capabilities', () => {
  it('refuses builtins the capabilities do not list, as check does', async () => {
    const out = at('cap.tar.gz');
    expect(await build('--v0-compatible', '--capabilities', 'v0.46.0', at('cap'), '-o', out)).toEqual({
      code: 1,
      out: '',
      err: `error: 1 error occurred:\n${at('cap/p.rego')}:3:6: rego_type_error: undefined function time.format\n`,
    });
    expect(existsSync(out)).toBe(false);
    expect((await build('--v0-compatible', '--capabilities', 'v0.48.0', at('cap'), '-o', out)).code).toBe(0);
    // Without --v0-compatible the modules are v1, which a release before v1.0.0 cannot parse.
    expect((await build('--capabilities', 'v0.48.0', at('cap'), '-o', at('cap1.tar.gz'))).err).toBe('error: 1 error occurred:\nrego_parse_error: illegal capabilities: rego_v1 feature required for parsing v1 Rego\n');
    expect((await build('--capabilities', 'v1.0.0', at('cap'), '-o', at('cap1.tar.gz'))).code).toBe(0);
  });

  it('reports an unknown version as opa reports a bad flag value', async () => {
    const r = await build('--capabilities', 'v0.16.0', at('cap'), '-o', at('x.tar.gz'));
    expect(r.code).toBe(1);
    expect(r.err.split('\n')[0]).toBe('Error: invalid argument "v0.16.0" for "--capabilities" flag: no such file or capabilities version found: v0.16.0');
  });
});

describe('build --v1-compatible', () => {
  it('is accepted (v1 is the default); --v0-compatible takes precedence', async () => {
    const v1 = await build('--v1-compatible', at('v0'), '-o', at('v1.tar.gz'));
    expect(v1.code).toBe(1);
    expect(v1.err).toContain('rego_parse_error: `if` keyword is required before rule body');
    expect(await build('--v1-compatible', '--v0-compatible', at('v0'), '-o', at('v0.tar.gz'))).toEqual({ code: 0, out: '', err: '' });
    expect((await read(at('v0.tar.gz'))).manifest.rego_version).toBe(0);
  });
});

describe('build --follow-symlinks', () => {
  it('includes symlinked files of a bundle directory only with the flag', async () => {
    symlinkSync(at('elsewhere/q.rego'), at('linked/q.rego'));
    expect((await build('-b', at('linked'), '-o', at('nolink.tar.gz'))).code).toBe(0);
    expect((await read(at('nolink.tar.gz'))).modules.map((m) => m.path)).toEqual(['/p.rego']);
    expect((await build('-b', '--follow-symlinks', at('linked'), '-o', at('link.tar.gz'))).code).toBe(0);
    expect((await read(at('link.tar.gz'))).modules.map((m) => m.path)).toEqual(['/p.rego', '/q.rego']);
  });
});

describe('build signing and verification', () => {
  const signed = at('signed.tar.gz');

  it('signs with the verification key id as kid and keyid claim unless a claims file is given', async () => {
    expect(await build('-b', at('signed'), '--signing-key', 'secret', '--signing-alg', 'HS256', '-o', signed)).toEqual({ code: 0, out: '', err: '' });
    const t = await token(signed);
    expect(t.header).toEqual({ alg: 'HS256', kid: 'default' });
    expect(t.payload.keyid).toBe('default');
    const other = at('signed-other.tar.gz');
    expect((await build('-b', at('signed'), '--signing-key', 'secret', '--signing-alg', 'HS256', '--verification-key-id', 'k2', '-o', other)).code).toBe(0);
    expect((await token(other)).header).toEqual({ alg: 'HS256', kid: 'k2' });
    writeFileSync(at('claims.json'), '{"scope": "write"}');
    const claimed = at('signed-claims.tar.gz');
    expect((await build('-b', at('signed'), '--signing-key', 'secret', '--signing-alg', 'HS256', '--claims-file', at('claims.json'), '-o', claimed)).code).toBe(0);
    const c = await token(claimed);
    expect(c.header).toEqual({ alg: 'HS256' });
    expect(c.payload.scope).toBe('write');
    expect(c.payload.keyid).toBeUndefined();
  });

  it('verifies signed -b inputs: a key is required and must match', async () => {
    const out = at('verified.tar.gz');
    expect(await build('-b', signed, '-o', out)).toEqual({ code: 1, out: '', err: `error: load error: bundle ${signed}: verification key not provided\n` });
    expect(await build('-b', signed, '--verification-key', 'wrong', '--signing-alg', 'HS256', '-o', out)).toEqual({
      code: 1,
      out: '',
      err: `error: load error: bundle ${signed}: failed to verify JWT signature: signature verification failed\n`,
    });
    expect(existsSync(out)).toBe(false);
    expect(await build('-b', signed, '--verification-key', 'secret', '--signing-alg', 'HS256', '-o', out)).toEqual({ code: 0, out: '', err: '' });
    expect((await read(out)).modules.map((m) => m.path)).toEqual(['/p.rego']);
    // with a key, an unsigned input is refused
    expect(await build('-b', at('signed'), '--verification-key', 'secret', '-o', at('unsigned.tar.gz'))).toEqual({
      code: 1,
      out: '',
      err: `error: load error: bundle ${at('signed')}: bundle missing .signatures.json file\n`,
    });
  });

  it('checks --scope and reads the key from a file', async () => {
    writeFileSync(at('secret.key'), 'secret');
    const scoped = at('signed-claims.tar.gz');
    const out = at('scoped.tar.gz');
    expect(await build('-b', scoped, '--verification-key', at('secret.key'), '--signing-alg', 'HS256', '-o', out)).toEqual({
      code: 1,
      out: '',
      err: `error: load error: bundle ${scoped}: scope mismatch\n`,
    });
    expect(await build('-b', scoped, '--verification-key', at('secret.key'), '--signing-alg', 'HS256', '--scope', 'write', '-o', out)).toEqual({ code: 0, out: '', err: '' });
  });

  it('--exclude-files-verify leaves files out of the signature check', async () => {
    const dir = tempTree({ 'p.rego': 'package e\nx := 1\n', 'notes.txt': 'unsigned' });
    try {
      const signedFiles = [{ name: 'p.rego', hash: hashBundleFile('SHA-256', 'p.rego', Buffer.from('package e\nx := 1\n')), algorithm: 'SHA-256' }];
      const jws = await signFiles(signedFiles, { key: 'secret', algorithm: 'HS256', keyId: 'default' });
      writeFileSync(join(dir.dir, '.signatures.json'), JSON.stringify({ signatures: [jws] }));
      const flags = ['-b', dir.dir, '--verification-key', 'secret', '--signing-alg', 'HS256', '-o', join(dir.dir, 'out.tar.gz')];
      expect(await build(...flags)).toEqual({ code: 1, out: '', err: `error: load error: bundle ${dir.dir}: file notes.txt not included in bundle signature\n` });
      expect(await build(...flags, '--exclude-files-verify', 'notes.txt')).toEqual({ code: 0, out: '', err: '' });
    } finally {
      dir.cleanup();
    }
  });

  it('needs bundle mode and a signing key, as opa build', async () => {
    const out = at('never.tar.gz');
    const mode = 'error: enable bundle mode (ie. --bundle) to verify or sign bundle files or directories\n';
    expect(await build(at('signed'), '--verification-key', 'secret', '-o', out)).toEqual({ code: 1, out: '', err: mode });
    expect(await build(at('signed'), '--signing-key', 'secret', '-o', out)).toEqual({ code: 1, out: '', err: mode });
    const incomplete = 'error: specify the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)\n';
    expect(await build('-b', at('signed'), '--claims-file', at('claims.json'), '-o', out)).toEqual({ code: 1, out: '', err: incomplete });
    expect(await build('-b', at('signed'), '--signing-plugin', 'custom', '-o', out)).toEqual({ code: 1, out: '', err: incomplete });
    expect(existsSync(out)).toBe(false);
  });

  it('--signing-plugin fails as opa does for a signer it does not know', async () => {
    const out = at('plugin.tar.gz');
    expect(await build('-b', at('signed'), '--signing-key', 'secret', '--signing-alg', 'HS256', '--signing-plugin', 'custom', '-o', out)).toEqual({
      code: 1,
      out: '',
      err: 'error: no signer exists under id custom\n',
    });
    expect(existsSync(out)).toBe(false);
  });
});

describe('build -O --partial-namespace / --debug', () => {
  it('puts the negation support rules in the namespace and adds it to the roots', async () => {
    const out = at('ns.tar.gz');
    expect(await build('-b', '-O=2', '--partial-namespace', 'pe', at('opt'), '-o', out)).toEqual({ code: 0, out: '', err: '' });
    const b = await read(out);
    expect(b.manifest.roots).toEqual(['authz', 'grants', 'frozen', 'pe']);
    expect(b.modules.map((m) => m.path)).toEqual(['/authz/policy.rego', '/optimized/authz.rego', '/optimized/pe.rego']);
    const support = b.modules.find((m) => m.path === '/optimized/pe.rego')!.text;
    expect(support).toBe('package pe\n\n__not1_0_1__ if {\n\tinput.action in ["write"]\n}\n');
    expect(b.modules[1]!.text).toBe(
      'package authz\n\nallow := __result__ if {\n\t{"alice": ["read", "write"]}[input.user][__local1__1] = input.action\n\tnot data.pe.__not1_0_1__\n\t__result__ = true\n}\n',
    );
    // the default namespace: same layout under `partial`
    const def = at('ns-default.tar.gz');
    expect((await build('-b', '-O=2', at('opt'), '-o', def)).code).toBe(0);
    const d = await read(def);
    expect(d.manifest.roots).toEqual(['authz', 'grants', 'frozen', 'partial']);
    expect(d.modules.map((m) => m.path)).toEqual(['/authz/policy.rego', '/optimized/authz.rego', '/optimized/partial.rego']);
    expect(d.modules.find((m) => m.path === '/optimized/partial.rego')!.text).toBe(support.replace('package pe', 'package partial'));
    expect(d.modules[1]!.text).toBe(b.modules[1]!.text.replace('data.pe.', 'data.partial.'));
  });

  it('refuses a namespace that is not a name (only when optimizing)', async () => {
    expect(await build('-b', '-O=2', '--partial-namespace', 'a.b', at('opt'), '-o', at('bad.tar.gz'))).toEqual({ code: 1, out: '', err: 'error: bad partial namespace\n' });
    expect((await build('-b', '--partial-namespace', 'a.b', at('opt'), '-o', at('bad.tar.gz'))).code).toBe(0);
  });

  it('--debug prints the optimizer events on stderr', async () => {
    expect(await build('-b', '-O=1', '--debug', '-e', 'authz/allow', at('opt'), '-o', at('debug.tar.gz'))).toEqual({
      code: 0,
      out: '',
      err: 'optimizer: entrypoint: data.authz.allow\n  partial-namespace: partial\n  shallow-inlining: true\n',
    });
    expect(await build('-b', '-O=1', '-e', 'authz/allow', at('opt'), '-o', at('debug.tar.gz'))).toEqual({ code: 0, out: '', err: '' });
  });
});

describe('build -t wasm --prune-unused / --wasm-include-print', () => {
  it('erases print calls (a body left empty is `true`), as opa compiles Wasm by default', () => {
    const m = parseModule('package t\n\np if {\n\tprint("a")\n\tx := [y | y := 1; print(y)]\n\tcount(x) == 1\n}\n\nq if {\n\tprint("only")\n}\n', 't.rego');
    expect(formatModule(erasePrints(m))).toBe(formatModule(parseModule('package t\n\np if {\n\tx := [y | y := 1]\n\tcount(x) == 1\n}\n\nq if {\n\ttrue\n}\n', 't.rego')));
  });

  it('finds the transitive dependents of the entrypoints (OPA adds them unless --prune-unused)', () => {
    const policy = compile([{ file: 'd.rego', text: 'package d\n\np contains 1\n\nq if p[1]\n\nr if q\n\nf(x) if p[x]\n\nother := 2\n' }]);
    expect(entrypointDependents(policy.modules, ['d/p'])).toEqual(['d/f', 'd/q', 'd/r']);
    expect(entrypointDependents(policy.modules, ['d/q'])).toEqual(['d/r']);
    expect(entrypointDependents(policy.modules, ['d/other'])).toEqual([]);
  });

  it('--wasm-include-print is refused for a policy that calls print (Regent cannot compile print to Wasm)', async () => {
    const out = at('print.tar.gz');
    expect(await build('-t', 'wasm', '-e', 'test/p', '--wasm-include-print', at('wasm'), '-o', out)).toEqual({
      code: 1,
      out: '',
      err: `error: --wasm-include-print: print statements cannot be compiled to Wasm by regent (${at('wasm/p.rego')} calls print); build without the flag to erase them, as opa does by default\n`,
    });
    expect(existsSync(out)).toBe(false);
  });

  it('without --prune-unused the dependents are entrypoints too; print calls are erased', async () => {
    const out = at('deps.tar.gz');
    const r = await build('-t', 'wasm', '-e', 'test/p', at('wasm'), '-o', out);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^policy\.wasm: \d+ bytes, 2 entrypoint\(s\) \(test\/p, test\/q\), -O1, \d+ ms\n$/);
    const b = await read(out);
    expect(b.manifest.wasm).toEqual([{ entrypoint: 'test/p', module: '/policy.wasm' }, { entrypoint: 'test/q', module: '/policy.wasm' }]);
    expect(b.wasmModules?.map((w) => w.path)).toEqual(['/policy.wasm']);
    // the rego files keep their print calls
    expect(b.modules[0]!.text).toContain('print("q", p)');
  }, 180_000);

  it('--prune-unused keeps only the given entrypoints', async () => {
    const out = at('pruned.tar.gz');
    const r = await build('-t', 'wasm', '-e', 'test/p', '--prune-unused', at('wasm'), '-o', out);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^policy\.wasm: \d+ bytes, 1 entrypoint\(s\) \(test\/p\), -O1, \d+ ms\n$/);
    expect((await read(out)).manifest.wasm).toEqual([{ entrypoint: 'test/p', module: '/policy.wasm' }]);
  }, 180_000);
});
