// Builder pipeline on local sources: mounts (path/prefix with reference
// rewriting), stacks selected by labels, root conflicts, compile errors in the
// status record, cycles, excluded files, builtin libraries, revisions and the
// filesystem object store's skip-when-unchanged.
import { readFile, stat, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../compiler/index.js';
import { fromJS, toJS } from '../../runtime/index.js';
import { FakeStore } from './fake-store.js';
import { buildOnce, readBack, tempDir, writeFiles } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  await writeFiles(dir, {
    'lib/lib.rego': 'package lib.util\nimport rego.v1\nadmin(u) if data.lib.util.admins[u]\n',
    'lib/admins/data.json': '{"alice": true}',
    'lib/other/data.json': '{"dropped": 1}',
    'app/policy.rego': 'package app\nimport rego.v1\ndefault allow := false\nallow if data.vendor.util.admin(input.user)\n',
    'shared/common.rego': 'package shared\nimport rego.v1\nx := 1\n',
    'clash/clash.rego': 'package shared.inner\nimport rego.v1\ny := 2\n',
    'deny/deny.rego': 'package deny\nimport rego.v1\ndeny contains "no" if input.bad\n',
    'broken/bad.rego': 'package broken\nimport rego.v1\n\nallow if {\n  input.x ==\n}\n',
    'unsafe/bad.rego': 'package unsafe\nimport rego.v1\n\nallow if {\n  y == 1\n}\n',
    'excl/keep.rego': 'package excl\nimport rego.v1\nkeep := true\n',
    'excl/transform.rego': 'package excl.xf\nimport rego.v1\nxf := input\n',
  });
});
afterAll(() => cleanup());

function src(name: string, directory: string, extra: object = {}) {
  return { name, directory: join(dir, directory), paths: ['**'], ...extra };
}

describe('mounts', () => {
  it('selects a subtree with path and re-mounts it with prefix, rewriting references', async () => {
    const store = new FakeStore({
      sources: [src('lib', 'lib'), src('app', 'app', { requirements: [{ source: 'lib', path: 'data.lib.util', prefix: 'data.vendor.util' }] })],
      bundles: [{ name: 'b', requirements: [{ source: 'app' }], object_storage: { filesystem: { path: join(dir, 'out/b.tar.gz') } } }],
    });
    // lib's admins data lives at lib/admins (outside `lib.util`), so mount a data-carrying path too.
    store.putData('lib', 'lib/util/admins', { alice: true });
    const out = await buildOnce(store, 'b', dir);
    expect(out.error_message).toBe('');
    expect(out.status).toBe('SUCCESS');
    expect(out.phase).toBe('PUSH');
    const { bundle, data, modules } = await readBack(out.bytes!);
    expect(bundle.manifest.roots).toEqual(['app', 'vendor/util']);
    expect(data).toEqual({ vendor: { util: { admins: { alice: true } } } });
    const lib = Object.entries(modules).find(([p]) => p.startsWith('/lib/'))!;
    expect(lib[0]).toBe('/lib/lib.rego');
    expect(lib[1]).toContain('package vendor.util');
    expect(lib[1]).toContain('data.vendor.util.admins[u]');
    // The rewritten bundle evaluates: alice is an admin, bob is not.
    const policy = compile(bundle.modules.map((m) => ({ file: m.path, text: m.text })), { v0Compatible: true });
    const allow = (user: string) => toJS(policy.prepare('data.app.allow').eval({ input: fromJS({ user }), data: bundle.data })[0]!.expressions[0]!.value);
    expect(allow('alice')).toBe(true);
    expect(allow('bob')).toBe(false);
  });

  it('an empty source with a prefix claims its root', async () => {
    const store = new FakeStore({
      sources: [{ name: 'pushed' }],
      bundles: [{ name: 'e', requirements: [{ source: 'pushed', prefix: 'abc' }] }],
    });
    let out = await buildOnce(store, 'e', dir);
    expect(out.status).toBe('SUCCESS');
    expect((await readBack(out.bytes!)).bundle.manifest.roots).toEqual(['abc']);
    store.putData('pushed', 'users', { alice: { role: 'admin' } });
    out = await buildOnce(store, 'e', dir);
    const rb = await readBack(out.bytes!);
    expect(rb.bundle.manifest.roots).toEqual(['abc/users']);
    expect(rb.data).toEqual({ abc: { users: { alice: { role: 'admin' } } } });
  });
});

describe('stacks', () => {
  it('apply to bundles whose labels match the selector, mounted under data.stacks.<name>', async () => {
    const store = new FakeStore({
      sources: [src('deny', 'deny'), src('shared', 'shared')],
      stacks: [{ name: 'global-deny', selector: { env: ['prod', 'stag*'] }, exclude_selector: { team: ['sandbox'] }, requirements: [{ source: 'deny' }] }],
      bundles: [
        { name: 'prod', labels: { env: 'prod' }, requirements: [{ source: 'shared' }] },
        { name: 'staging', labels: { env: 'staging-2' }, requirements: [{ source: 'shared' }] },
        { name: 'dev', labels: { env: 'dev' }, requirements: [{ source: 'shared' }] },
        { name: 'sandbox', labels: { env: 'prod', team: 'sandbox' }, requirements: [{ source: 'shared' }] },
      ],
    });
    const roots: Record<string, unknown> = {};
    for (const b of ['prod', 'staging', 'dev', 'sandbox']) {
      const out = await buildOnce(store, b, dir);
      expect(out.status, out.error_message).toBe('SUCCESS');
      const rb = await readBack(out.bytes!);
      roots[b] = rb.bundle.manifest.roots;
      if (b === 'prod') expect(rb.modules['/deny/deny.rego']).toContain('package stacks["global-deny"].deny');
    }
    expect(roots).toEqual({
      prod: ['shared', 'stacks/global-deny/deny'],
      staging: ['shared', 'stacks/global-deny/deny'],
      dev: ['shared'],
      sandbox: ['shared'],
    });
  });

  it('an empty selector matches every bundle', async () => {
    const store = new FakeStore({
      sources: [src('deny', 'deny')],
      stacks: [{ name: 'all', selector: {}, requirements: [{ source: 'deny' }] }],
      bundles: [{ name: 'x', labels: {} }],
    });
    const out = await buildOnce(store, 'x', dir);
    expect((await readBack(out.bytes!)).bundle.manifest.roots).toEqual(['stacks/all/deny']);
  });
});

describe('failures', () => {
  it('overlapping packages of two sources fail with a message naming both', async () => {
    const store = new FakeStore({
      sources: [src('shared', 'shared'), src('clash', 'clash')],
      bundles: [{ name: 'c', requirements: [{ source: 'shared' }, { source: 'clash' }] }],
    });
    const out = await buildOnce(store, 'c', dir);
    expect(out).toMatchObject({ phase: 'BUILD', status: 'BUILD_FAILED' });
    expect(out.error_message).toBe('requirement "clash" contains conflicting package shared.inner\n- package shared from "shared"');
    expect(store.statusOf('c').at(-1)?.error_message).toBe(out.error_message);
  });

  it('a parse error surfaces in the status record as OPA prints it', async () => {
    const store = new FakeStore({ sources: [src('broken', 'broken'), src('unsafe', 'unsafe')], bundles: [{ name: 'p', requirements: [{ source: 'broken' }] }, { name: 'u', requirements: [{ source: 'unsafe' }] }] });
    await buildOnce(store, 'p', dir);
    const rec = store.statusOf('p').at(-1)!;
    expect(rec).toMatchObject({ bundle_name: 'p', phase: 'BUILD', status: 'BUILD_FAILED' });
    // Go's ast.Errors.Error(): a parser error is followed by its source line and caret.
    expect(rec.error_message).toBe('source broken find roots: 1 error occurred: bad.rego:6: rego_parse_error: unexpected } token\n\t}\n\t^');
    await buildOnce(store, 'u', dir);
    expect(store.statusOf('u').at(-1)!.error_message).toBe('build: 1 error occurred: /unsafe/bad.rego:5: rego_unsafe_var_error: var y is unsafe');
  });

  it('requirement cycles and missing sources are build failures', async () => {
    const store = new FakeStore({
      sources: [{ name: 'a', requirements: [{ source: 'b' }] }, { name: 'b', requirements: [{ source: 'a' }] }],
      bundles: [{ name: 'cyc', requirements: [{ source: 'a' }] }, { name: 'miss', requirements: [{ source: 'nope' }] }],
    });
    expect((await buildOnce(store, 'cyc', dir)).error_message).toMatch(/^cycle found on source "a"/);
    expect((await buildOnce(store, 'miss', dir)).error_message).toBe('missing source "nope"');
  });

  it('conflicting git commit pins on one source are a build failure', async () => {
    const store = new FakeStore({
      sources: [{ name: 'g', git: { repo: 'file:///nonexistent', reference: 'main' } }, { name: 'mid', requirements: [{ source: 'g', git: { commit: 'b'.repeat(40) } }] }],
      bundles: [{ name: 'pin', requirements: [{ source: 'g', git: { commit: 'a'.repeat(40) } }, { source: 'mid' }] }],
    });
    expect((await buildOnce(store, 'pin', dir)).error_message).toBe('requirements on "g" conflict');
  });
});

describe('content', () => {
  it('bundle excluded_files drop files before roots are computed', async () => {
    const store = new FakeStore({ sources: [src('excl', 'excl')], bundles: [{ name: 'x', requirements: [{ source: 'excl' }], excluded_files: ['transform*'] }] });
    const rb = await readBack((await buildOnce(store, 'x', dir)).bytes!);
    expect(Object.keys(rb.modules)).toEqual(['/excl/keep.rego']);
    expect(rb.bundle.manifest.roots).toEqual(['excl']);
  });

  it('builtin libraries can be mounted and used', async () => {
    const store = new FakeStore({ sources: [{ name: 'rbac', builtin: 'rbac-v1/library' }, { name: 'bad', builtin: 'nope/x' }], bundles: [{ name: 'lib', requirements: [{ source: 'rbac', path: 'library.rbac.v1', prefix: 'rbac' }] }, { name: 'badlib', requirements: [{ source: 'bad' }] }] });
    const rb = await readBack((await buildOnce(store, 'lib', dir)).bytes!);
    expect(rb.bundle.manifest.roots).toEqual(['rbac']);
    const policy = compile(rb.bundle.modules.map((m) => ({ file: m.path, text: m.text })), { v0Compatible: true });
    const q = 'data.rbac.allowed([{"user": "alice", "roles": ["admin"]}], {"admin": [{"action": "read", "resource": "docs/*"}]}, "alice", "read", "docs/1")';
    expect(toJS(policy.prepare(q).eval({})[0]!.expressions[0]!.value)).toBe(true);
    expect(await buildOnce(store, 'badlib', dir)).toMatchObject({ status: 'USER_ERROR', phase: 'SYNC', error_message: 'source "bad": directory does not exist' });
  });

  it('revision defaults to "" (as the reference); input.bundle.hash and other Rego expressions opt in', async () => {
    const store = new FakeStore({ sources: [src('shared', 'shared'), { name: 'pushed' }], bundles: [{ name: 'r', requirements: [{ source: 'shared' }, { source: 'pushed' }] }] });
    expect((await buildOnce(store, 'r', dir)).revision).toBe('');
    store.bundles.set('r', { ...store.bundles.get('r')!, revision: 'input.bundle.hash' });
    const first = await buildOnce(store, 'r', dir);
    expect(first.revision).toMatch(/^[0-9a-f]{64}$/);
    expect((await buildOnce(store, 'r', dir)).revision).toBe(first.revision);
    store.putData('pushed', 'cfg', { on: true });
    expect((await buildOnce(store, 'r', dir)).revision).not.toBe(first.revision);
    store.bundles.set('r', { ...store.bundles.get('r')!, revision: '$"rev-{substring(input.sources.pushed.sql.hash, 0, 8)}"' });
    const out = await buildOnce(store, 'r', dir);
    expect(out.revision).toMatch(/^rev-[0-9a-f]{8}$/);
    expect((await readBack(out.bytes!)).bundle.manifest.revision).toBe(out.revision);
    store.bundles.set('r', { ...store.bundles.get('r')!, revision: 'input.sources.pushed.git.commit' });
    expect((await buildOnce(store, 'r', dir)).error_message).toBe('revision: failed to resolve revision: no results from Rego evaluation');
  });
});

describe('filesystem object storage', () => {
  it('writes the bundle and skips the upload when the content hash is unchanged', async () => {
    const path = join(dir, 'fs-out/nested/bundle.tar.gz');
    const store = new FakeStore({ sources: [src('shared', 'shared'), { name: 'pushed' }], bundles: [{ name: 'f', requirements: [{ source: 'shared' }, { source: 'pushed' }], object_storage: { filesystem: { path } } }] });
    const a = await buildOnce(store, 'f', dir);
    expect(a.uploaded).toBe(true);
    const mtime = (await stat(path)).mtimeMs;
    const b = await buildOnce(store, 'f', dir);
    expect(b).toMatchObject({ uploaded: false, status: 'SUCCESS', phase: 'PUSH' });
    expect((await stat(path)).mtimeMs).toBe(mtime);
    store.putData('pushed', 'x', 1);
    expect((await buildOnce(store, 'f', dir)).uploaded).toBe(true);
    expect((await readBack(await readFile(path))).data).toEqual({ x: 1 });
    await rm(path);
    expect((await buildOnce(store, 'f', dir)).uploaded).toBe(true);
  });
});
