// The bundle format: write → read round trips, determinism, and every rule the
// reader enforces (paths, data merging, manifest types, roots, size limits).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  BundleError,
  applyBundlePatch,
  checkRootsConflict,
  pathOwnedByBundle,
  readBundle,
  readBundleDir,
  writeBundle,
  type Bundle,
} from '../../runtime/bundles/index.js';
import { fromJS, toJS } from '../../runtime/value/index.js';
import { tarGz } from './helpers.js';

const sample = (): Bundle => ({
  manifest: { revision: 'rev-1', roots: ['authz', 'users'], metadata: { team: 'a' } },
  modules: [
    { path: '/authz/policy.rego', text: 'package authz\n\nallow if input.user == "admin"\n' },
    { path: '/authz/v0.rego', text: '# comment\npackage authz.legacy\n\ndeny[x] { x := 1 }\n' },
  ],
  data: fromJS({ users: { alice: { admin: true, n: 12345678901234567890 } }, authz: { levels: [1, 2.5] } }),
});

async function rejects(p: Promise<unknown>, message: string | RegExp): Promise<BundleError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(BundleError);
  if (typeof message === 'string') expect((e as Error).message).toBe(message);
  else expect((e as Error).message).toMatch(message);
  return e as BundleError;
}

describe('bundle round trip', () => {
  it('writes and reads back the same bundle', async () => {
    const b = sample();
    const back = await readBundle(await writeBundle(b));
    expect(back.manifest).toEqual(b.manifest);
    expect(back.modules.map((m) => [m.path, m.text, m.packagePath, m.regoVersion])).toEqual([
      ['/authz/policy.rego', b.modules[0]!.text, ['authz'], 1],
      ['/authz/v0.rego', b.modules[1]!.text, ['authz', 'legacy'], 1],
    ]);
    expect(toJS(back.data)).toEqual(toJS(b.data));
    expect(back.type).toBe('snapshot');
  });

  it('is deterministic and omits an empty manifest', async () => {
    const a = await writeBundle(sample());
    expect((await writeBundle(sample())).equals(a)).toBe(true);
    const empty = await readBundle(await writeBundle({ manifest: { roots: [''] }, modules: [], data: fromJS({}) }));
    expect(empty.manifest).toEqual({});
  });

  it('merges data files at their directory path (json, yaml, yml)', async () => {
    const b = await readBundle(
      await tarGz({
        '/data.json': '{"top": 1}',
        'a/b/data.json': '{"x": [1, 2]}',
        './a/c/data.yaml': 'y: hello\nz: [true]\n',
        'a/d/data.yml': 'w: 3\n',
        'a/ignored.json': '{"nope": 1}',
      }),
    );
    expect(toJS(b.data)).toEqual({ top: 1, a: { b: { x: [1, 2] }, c: { y: 'hello', z: [true] }, d: { w: 3 } } });
  });

  it('applies rego_version and file_rego_versions per file', async () => {
    const b = await readBundle(
      await tarGz({
        '/.manifest': JSON.stringify({ rego_version: 0, file_rego_versions: { '/x/new*.rego': 1 } }),
        '/x/old.rego': 'package x\np[1] { true }\n',
        '/x/new.rego': 'package x\nq if true\n',
      }),
    );
    expect(Object.fromEntries(b.modules.map((m) => [m.path, m.regoVersion]))).toEqual({ '/x/old.rego': 0, '/x/new.rego': 1 });
    await rejects(readBundle(await tarGz({ '/.manifest': '{"rego_version": 2}', '/p.rego': 'package p\n' })), "unknown bundle rego-version 2 for file '/p.rego'");
  });

  it('reads a directory as a bundle, dot-files included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-bundle-'));
    mkdirSync(join(dir, 'authz'));
    writeFileSync(join(dir, '.manifest'), JSON.stringify({ revision: 'd1', roots: ['authz'] }));
    writeFileSync(join(dir, 'authz', 'p.rego'), 'package authz\nallow := true\n');
    writeFileSync(join(dir, 'authz', 'data.json'), '{"k": "v"}');
    const b = await readBundleDir(dir);
    expect(b.manifest.revision).toBe('d1');
    expect(b.modules.map((m) => m.path)).toEqual(['/authz/p.rego']);
    expect(toJS(b.data)).toEqual({ authz: { k: 'v' } });
  });

  it('reads delta bundles and applies their patch', async () => {
    const d = await readBundle(await tarGz({ '/patch.json': JSON.stringify({ data: [{ op: 'upsert', path: '/a/b', value: 2 }, { op: 'remove', path: '/a/c' }] }) }));
    expect(d.type).toBe('delta');
    expect(toJS(applyBundlePatch(fromJS({ a: { c: 1 } }), d.patch!))).toEqual({ a: { b: 2 } });
    await rejects(readBundle(await tarGz({ '/patch.json': '{"data":[{"op":"upsert","path":"/a","value":1}]}', '/data.json': '{"x":1}' })), 'delta bundle expected to contain only patch file but data files found');
  });
});

describe('bundle rejections', () => {
  it('rejects archives that are not gzip or not tar', async () => {
    await rejects(readBundle(Buffer.from('not a bundle')), /^archive read failed: /);
    await rejects(readBundle(gzipSync(Buffer.from('x'.repeat(1000)))), /^archive read failed: /);
  });

  it('rejects paths that escape the bundle and duplicate files', async () => {
    await rejects(readBundle(await tarGz({ '../evil.rego': 'package evil\n' })), "bundle file '../evil.rego' has an invalid path: path escapes the bundle root");
    await rejects(readBundle(await tarGz({ 'a/../../x/data.json': '{}' })), /path escapes the bundle root/);
    await rejects(readBundle(await tarGz({ '/p.rego': 'package p\n', './p.rego': 'package p\n' })), "bundle contains duplicate file '/p.rego'");
  });

  it('rejects data that does not parse, conflicts, or is not an object at the root', async () => {
    await rejects(readBundle(await tarGz({ '/a/data.json': '{"x": ' })), /^bundle load failed on \/a\/data.json: /);
    await rejects(readBundle(await tarGz({ '/data.json': '[1]' })), 'bundle load failed on /data.json: root value must be object');
    await rejects(readBundle(await tarGz({ '/data.json': '{"a": {"x": 1}}', '/a/data.yaml': 'x: 2\n' })), 'bundle load failed on /a/data.yaml: failed to insert data file from path a');
    await rejects(readBundle(await tarGz({ '/data.json': '' })), 'bundle load failed on /data.json: EOF');
  });

  it('rejects manifests of the wrong shape', async () => {
    await rejects(readBundle(await tarGz({ '/.manifest': '{"revision": 7}' })), 'bundle load failed on manifest decode: json: cannot unmarshal number into Go struct field Manifest.revision of type string');
    await rejects(readBundle(await tarGz({ '/.manifest': '{"roots": "a"}' })), /cannot unmarshal string into Go struct field Manifest.roots of type \[\]string/);
    await rejects(readBundle(await tarGz({ '/.manifest': '{' })), /^bundle load failed on manifest decode: /);
  });

  it('rejects overlapping roots, data and packages outside the roots', async () => {
    await rejects(readBundle(await tarGz({ '/.manifest': '{"roots": ["a", "a/b"]}' })), "manifest has overlapped roots: 'a' and 'a/b'");
    await rejects(readBundle(await tarGz({ '/.manifest': '{"roots": ["a"]}', '/b/data.json': '{"x": 1}' })), "manifest roots [a] do not permit data at path '/b' (hint: check bundle directory structure)");
    await rejects(readBundle(await tarGz({ '/.manifest': '{"roots": ["a/b"]}', '/a/data.json': '{"c": 1}' })), "manifest roots [a/b] do not permit data at path '/a/c' (hint: check bundle directory structure)");
    await rejects(readBundle(await tarGz({ '/.manifest': '{"roots": ["a", "c"]}', '/x.rego': 'package b.x\n' })), "manifest roots [a c] do not permit 'package b.x' in module '/x.rego'");
    await rejects(readBundle(await tarGz({ '/.manifest': '{"roots": ["a"]}', '/x.rego': 'import rego.v1\n' })), '/x.rego: rego_parse_error: package expected');
    // Allowed: data and packages under the roots, and parents of roots holding only objects.
    const ok = await readBundle(await tarGz({ '/.manifest': '{"roots": ["a/b"]}', '/a/b/data.json': '{"c": 1}', '/p.rego': 'package a.b.c\n' }));
    expect(ok.manifest.roots).toEqual(['a/b']);
  });

  it('enforces the per-file size limit and the file count', async () => {
    const big = await tarGz({ '/data.json': JSON.stringify({ x: 'y'.repeat(200) }) });
    await rejects(readBundle(big, { sizeLimitBytes: 100 }), /^bundle file \/data.json size \(\d+ bytes\) exceeds configured size_limit_bytes \(100 bytes\)$/);
    const many = await tarGz(Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`/f${i}.txt`, 'x'])));
    await rejects(readBundle(many, { maxFiles: 3 }), /too many files/);
    await rejects(readBundle(big, { maxArchiveBytes: 64 }), /^archive read failed: decompressed bundle exceeds 64 bytes$/);
  });
});

describe('roots ownership', () => {
  it('detects overlap between bundles', () => {
    expect(() => checkRootsConflict({ one: ['a'] }, { two: ['a/b'] })).toThrow('detected overlapping roots in bundle manifest with: [one]');
    expect(() => checkRootsConflict({ one: ['a'] }, { one: ['a/b'], two: ['c'] })).not.toThrow();
    expect(() => checkRootsConflict({ one: [''] }, { two: ['x'] })).toThrow(/\[one\]/);
  });

  it('answers REST write scope checks as OPA does', () => {
    const bundles = { b1: ['a/b'], b2: undefined };
    expect(pathOwnedByBundle('/', { b1: ['a'] })).toBe("can't write to document root with bundle roots configured");
    expect(pathOwnedByBundle('/x', bundles)).toBe('all paths owned by bundle "b2"');
    expect(pathOwnedByBundle('/a/b/c', { b1: ['a/b'] })).toBe('path a/b/c is owned by bundle "b1"');
    expect(pathOwnedByBundle('/a/', { b1: ['a/b'] })).toBe('path a is owned by bundle "b1"');
    expect(pathOwnedByBundle('/ab', { b1: ['a/b'] })).toBeUndefined();
  });
});
