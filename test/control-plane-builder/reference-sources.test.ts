// Black-box, continued: which files a source contributes — `paths` globs (`**`
// included), bundle `excluded_files` over listed paths, an empty directory source
// with a prefix — and a git source with a relative URL built by
// `regent control-plane run`, with its sync and build metrics (build_globs,
// build_path_globs, build_empty_dir_source_prefix, run_git_bundle_build).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceCases } from './reference-cases.js';
import { freePort, gitInit, startServer, tarList, tarRead } from './blackbox.js';

const { caseDir, build } = referenceCases('regent-refsrc-');

describe('source files', () => {
  it('bundle excluded_files win over listed paths (build_globs)', async () => {
    const dir = await caseDir({
      'files/sources/hello-world/.hidden/data.json': '"not to be included"\n',
      'files/sources/hello-world/prefix/data.json': '{ "some": "thing" }\n',
      'files/sources/hello-world/rules/rules.rego': 'package rules\nimport rego.v1\nresult if input.yay\n',
      'config.d/bundle.yml': 'bundles:\n  hello-world:\n    object_storage:\n      filesystem:\n        path: bundles/hello-world/bundle.tar.gz\n    requirements:\n    - source: dir-paths\n    excluded_files:\n    - ".hidden/*" # for testing\nsources:\n  dir-paths:\n    directory: files/sources/hello-world\n    paths:\n    - .hidden/data.json\n    - prefix/data.json\n    - rules/rules.rego\n',
    });
    expect(await build(dir, '--non-interactive')).toEqual({ code: 0, stdout: '', stderr: '' });
    const tgz = join(dir, 'bundles/hello-world/bundle.tar.gz');
    expect(tarList(tgz)).toBe('/data.json\n/dir-paths/rules/rules.rego\n/.manifest\n');
    expect((await tarRead(tgz, join(dir, 'x'), ['data.json']))['data.json']).toBe('{"prefix":{"some":"thing"}}\n');
  });

  it('** globs pick nested files and skip others (build_path_globs)', async () => {
    const dir = await caseDir({
      'files/sources/hello-world/prefix/data.json': '{ "some": "thing" }\n',
      'files/sources/hello-world/rules/policy.rego': 'package rules\nimport rego.v1\nresult if input.yay\n',
      'files/sources/hello-world/rules/helpers.rego': 'package rules.helpers\nimport rego.v1\nhelper := true\n',
      'files/sources/hello-world/data/users.json': '{"users": ["alice", "bob"]}\n',
      'files/sources/hello-world/other.txt': 'this should not be included\n',
      'config.d/bundle.yml': 'bundles:\n  hello-world:\n    object_storage:\n      filesystem:\n        path: bundles/hello-world/bundle.tar.gz\n    requirements:\n    - source: glob-paths\nsources:\n  glob-paths:\n    directory: files/sources/hello-world\n    paths:\n    - "**/*.rego"\n    - "**/*.json"\n',
    });
    expect(await build(dir)).toEqual({ code: 0, stdout: '', stderr: '1/1 bundles built and pushed successfully\n' });
    const tgz = join(dir, 'bundles/hello-world/bundle.tar.gz');
    expect(tarList(tgz)).toBe('/data.json\n/glob-paths/rules/helpers.rego\n/glob-paths/rules/policy.rego\n/.manifest\n');
    expect((await tarRead(tgz, join(dir, 'x'), ['data.json']))['data.json']).toBe('{"data":{"users":["alice","bob"]},"prefix":{"some":"thing"}}\n');
  });

  it('a directory source without paths is empty, and its prefix is still a root (build_empty_dir_source_prefix)', async () => {
    const dir = await caseDir({
      'policy/rules.rego': 'package rules\nimport rego.v1\nallow if input.admin\n',
      'config.d/bundle.yml': "bundles:\n  hello-world:\n    object_storage:\n      filesystem:\n        path: bundles/hello-world/bundle.tar.gz\n    requirements:\n    - source: policy\n    - source: empty-data\n      prefix: ext\nsources:\n  policy:\n    directory: policy\n    paths:\n    - '*.rego'\n  empty-data:\n    directory: empty_src\n",
    });
    await mkdir(join(dir, 'empty_src'));
    expect(await build(dir, '--non-interactive')).toEqual({ code: 0, stdout: '', stderr: '' });
    const f = await tarRead(join(dir, 'bundles/hello-world/bundle.tar.gz'), join(dir, 'x'), ['.manifest']);
    expect(f['.manifest']).toBe('{"revision":"","roots":["rules","ext"],"rego_version":0}\n');
  });
});

describe('failures and literals', () => {
  it('a git path that does not exist fails the bundle (build_git_local_path_not_found)', async () => {
    const dir = await caseDir({
      'repo/foo/policies/authz.rego': 'package foo.authz\nimport rego.v1\nallow if input.user == "admin"\n',
      'config.d/bundle.yml': 'bundles:\n  hello-world:\n    object_storage:\n      filesystem:\n        path: bundles/a.tar.gz\n    requirements:\n    - source: git-local\n    - source: git-local1\nsources:\n  git-local:\n    git:\n      repo: ./repo/\n      reference: main\n      path: "bar" # DOES NOT EXIST\n  git-local1:\n    git:\n      repo: ./repo/\n      reference: main\n      path: "foo" # EXISTS',
    });
    gitInit(join(dir, 'repo'));
    const r = await build(dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^0\/1 bundles built and pushed successfully\n/m);
    expect(r.stderr).toMatch(/source "git-local".*does not exist/);
    expect(r.stderr).toContain('│ hello-world │ USER_ERROR │ source "git-local": git path "bar" does not exist │\n');
  });

  it('a quoted literal revision (build_revision_static)', async () => {
    const dir = await caseDir({
      'config.d/bundle.yml': 'bundles:\n  hello-world:\n    revision: \'"REVISION-091"\'\n    object_storage:\n      filesystem:\n        path: bundles/hello-world/bundle.tar.gz\n',
    });
    expect(await build(dir, '--non-interactive')).toEqual({ code: 0, stdout: '', stderr: '' });
    const f = await tarRead(join(dir, 'bundles/hello-world/bundle.tar.gz'), join(dir, 'x'), ['.manifest']);
    expect(f['.manifest']).toBe('{"revision":"REVISION-091","roots":[""],"rego_version":0}\n');
  });
});

describe('run with a relative git URL (run_git_bundle_build)', () => {
  it('syncs ./repo/ from the working directory; git sync and build metrics as the reference names them', async () => {
    const dir = await caseDir({
      'repo/unrelated.yaml': 'ignore: me\n',
      'repo/users/data.json': '[\n  {\n    "id": "alice"\n  },\n  {\n    "id": "bob"\n  }\n]\n',
      'config.d/bundle.yml': 'bundles:\n  hello-world:\n    object_storage:\n      filesystem:\n        path: bundles/hello-world/bundle.tar.gz\n    requirements:\n    - source: git-data\nsources:\n  git-data:\n    git:\n      repo: ./repo/\n      reference: main\n      excluded_files:\n      - unrelated.yaml\n',
    });
    gitInit(join(dir, 'repo'));
    const port = await freePort();
    const cp = await startServer(['control-plane', 'run', '--addr', `127.0.0.1:${port}`, '--config', 'config.d/bundle.yml', '--data-dir', 'tmp1'], dir, `http://127.0.0.1:${port}`);
    try {
      let metrics = '';
      for (let i = 0; i < 100 && !metrics.includes('ocp_bundle_build_count_total'); i++) {
        await new Promise((r) => setTimeout(r, 100));
        metrics = await fetch(`${cp.url}/metrics`).then((r) => r.text());
      }
      expect(metrics).toContain('ocp_git_sync_count_total{repo="./repo/",source="git-data",state="SUCCESS"} 1\n');
      expect(metrics).toContain('ocp_git_sync_duration_seconds_count{repo="./repo/",source="git-data"} 1\n');
      expect(metrics).toMatch(/ocp_git_sync_duration_seconds_sum\{repo="\.\/repo\/",source="git-data"\} /);
      expect(metrics).toMatch(/ocp_git_sync_duration_seconds_bucket\{/);
      expect(metrics).toContain('ocp_bundle_build_duration_seconds_count{bundle="hello-world"} 1\n');
      expect(metrics).toMatch(/ocp_bundle_build_duration_seconds_sum\{bundle="hello-world"\} /);
      expect(metrics).toContain('ocp_bundle_build_count_total{bundle="hello-world",state="SUCCESS"} 1\n');
      const tgz = join(dir, 'bundles/hello-world/bundle.tar.gz');
      expect(tarList(tgz)).toBe('/data.json\n/.manifest\n');
      const f = await tarRead(tgz, join(dir, 'x'), ['data.json', '.manifest']);
      expect(f['data.json']).toBe('{"users":[{"id":"alice"},{"id":"bob"}]}\n');
      expect(f['.manifest']).toBe('{"revision":"","roots":["users"],"rego_version":0}\n');
    } finally {
      await cp.stop();
    }
  });
});
