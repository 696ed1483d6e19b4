// Black-box: `regent control-plane build` driven from config files, as the
// reference control plane's e2e scripts (e2e/cli/*.txtar) drive `opactl build`.
// Whole bundle files (`tar tf` listing, `.manifest`, `data.json`, mounted Rego)
// and whole outputs are compared byte for byte with the reference's goldens or,
// where the goldens only match a pattern, with the text the reference's code
// prints (control-plane-behaviors.md; server/control-plane/README.md). Issue 13
// items 1–7 and 9; run mode (items 8, 11) is reference-run.test.ts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceCases } from './reference-cases.js';
import { gitInit, regent, tarList, tarRead } from './blackbox.js';

const { caseDir, build } = referenceCases('regent-ref-');

const BASIC = {
  'data/common.json': '{ "common": true }\n',
  'files/sources/hello-world/prefix/data.json': '{ "some": "thing" }\n',
  'files/sources/hello-world/rules/rules.rego': 'package rules\nimport rego.v1\nresult if input.yay\n',
  'config.d/bundle.yml': `bundles:
  hello-world:
    object_storage:
      filesystem:
        path: bundles/hello-world/bundle.tar.gz
    requirements:
    - source: dir-paths
    - source: global-data
    - source: builtin-entz
sources:
  dir-paths:
    directory: files/sources/hello-world
    paths:
    - prefix/data.json
    - rules/rules.rego
  builtin-entz:
    styra.entitlements.v1: entitlements-v1/completions/completions/completions.rego
  global-data:
    paths:
    - data/common.json
`,
};

describe('item 1: bundle files as OPA bundle writer emits them (build_basic)', () => {
  it('tarball listing, data.json and .manifest byte for byte; silent with --non-interactive', async () => {
    const dir = await caseDir(BASIC);
    const r = await build(dir, '--non-interactive');
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
    const tgz = join(dir, 'bundles/hello-world/bundle.tar.gz');
    expect(tarList(tgz)).toBe('/data.json\n/dir-paths/rules/rules.rego\n/.manifest\n');
    const f = await tarRead(tgz, join(dir, 'x'), ['.manifest', 'data.json', 'dir-paths/rules/rules.rego']);
    expect(f['.manifest']).toBe('{"revision":"","roots":["rules","prefix","data"],"rego_version":0}\n');
    expect(f['data.json']).toBe('{"data":{"common":true},"prefix":{"some":"thing"}}\n');
    // OPA's compile step prints every module of the bundle with its formatter.
    expect(f['dir-paths/rules/rules.rego']).toBe('package rules\n\nimport rego.v1\n\nresult if input.yay\n');
  });

  it('keeps JSON numbers as written and escapes HTML characters, as Go\'s encoder of json.Number', async () => {
    const dir = await caseDir({
      'd/x/data.json': '{"n": 1.0, "big": 12345678901234567890, "e": 1e3, "html": "<a&b>", "z": [0.10, -2]}',
      'config.d/bundle.yml': 'bundles:\n  b:\n    object_storage: {filesystem: {path: out.tar.gz}}\n    requirements: [{source: d}]\nsources:\n  d: {directory: d, paths: ["**/*.json"]}\n',
    });
    expect(await build(dir, '--non-interactive')).toEqual({ code: 0, stdout: '', stderr: '' });
    const f = await tarRead(join(dir, 'out.tar.gz'), join(dir, 'x'), ['data.json']);
    expect(f['data.json']).toBe('{"x":{"big":12345678901234567890,"e":1e3,"html":"\\u003ca\\u0026b\\u003e","n":1.0,"z":[0.10,-2]}}\n');
  });

  it('the content hash is opt-in: revision input.bundle.hash (build_revision_bundle_hash)', async () => {
    const dir = await caseDir({
      'config.d/bundle.yml': `bundles:
  hello-world:
    object_storage:
      filesystem:
        path: bundles/hello-world/bundle.tar.gz
    requirements:
    - source: http-data
    revision: 'input.bundle.hash'
sources:
  http-data:
    datasources:
    - type: http
      name: users
      path: users
      config:
        url: http://\${HTTP_ENDPOINT}/users
`,
    });
    const r = await build(dir);
    expect(r).toEqual({ code: 0, stdout: '', stderr: '1/1 bundles built and pushed successfully\n' });
    const f = await tarRead(join(dir, 'bundles/hello-world/bundle.tar.gz'), join(dir, 'x'), ['.manifest']);
    expect(f['.manifest']).toBe('{"revision":"0aa9261ac4e2c8c267a28b261acd98a17607b504bf2c9b51cddeb7dec7c750bb","roots":["users"],"rego_version":0}\n');
  });
});

const V1 = {
  'files/sources/my-policies/.manifest': '{"rego_version":1,"revision":"foobar","roots":["rules","foobar"]}\n',
  'files/sources/my-policies/rules/rules.rego': 'package rules\n\nrejection_reasons contains msg if {\n    msg := "test reason"\n}\n',
  'config.d/bundle.yml': `bundles:
  my-policies:
    object_storage:
      filesystem:
        path: bundles/my-policies/bundle.tar.gz
    requirements:
    - source: my-policies
sources:
  my-policies:
    directory: files/sources/my-policies
    paths:
    - rules/rules.rego
`,
};

describe('items 2 and 6: a source named like its bundle; source manifest warnings (build_v1_rego)', () => {
  it('includes the source, honours its .manifest and prints both warnings', async () => {
    const dir = await caseDir(V1);
    const r = await build(dir, '--non-interactive');
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'builder: source manifest roots [rules foobar] differ from computed roots [rules]; using manifest roots\n' +
        'builder: source manifest revision "foobar" overrides WithRevisionFunc result; using manifest revision\n',
    });
    const tgz = join(dir, 'bundles/my-policies/bundle.tar.gz');
    expect(tarList(tgz)).toBe('/data.json\n/my-policies/rules/rules.rego\n/.manifest\n');
    const f = await tarRead(tgz, join(dir, 'x'), ['.manifest', 'data.json', 'my-policies/rules/rules.rego']);
    expect(f['.manifest']).toBe('{"revision":"foobar","roots":["rules","foobar"],"rego_version":1}\n');
    expect(f['data.json']).toBe('{}\n');
    expect(f['my-policies/rules/rules.rego']).toBe('package rules\n\nrejection_reasons contains msg if {\n\tmsg := "test reason"\n}\n');
  });

  it('a same-named source without a manifest keeps its files and roots', async () => {
    const dir = await caseDir({
      'src/app.rego': 'package app\nimport rego.v1\nallow := true\n',
      'src/cfg/data.json': '{"on": true}',
      'config.d/bundle.yml': 'bundles:\n  app:\n    object_storage: {filesystem: {path: out/app.tar.gz}}\n    requirements: [{source: app}]\nsources:\n  app: {directory: src, paths: ["*.rego", "**/*.json"]}\n',
    });
    expect(await build(dir, '--non-interactive')).toEqual({ code: 0, stdout: '', stderr: '' });
    const tgz = join(dir, 'out/app.tar.gz');
    expect(tarList(tgz)).toBe('/data.json\n/app/app.rego\n/.manifest\n');
    const f = await tarRead(tgz, join(dir, 'x'), ['.manifest', 'data.json']);
    expect(f['.manifest']).toBe('{"revision":"","roots":["app","cfg"],"rego_version":0}\n');
    expect(f['data.json']).toBe('{"cfg":{"on":true}}\n');
  });
});

const GIT_LOCAL = {
  'repo/nested/policies/authz.rego': 'package deeply.nested.authz\nimport rego.v1\nallow if {\n  some user in data.users\n  user.id == input.user\n}\n',
  'repo/other/policies/authz.rego': 'package other.nested.authz\nimport rego.v1\nallow if true\n',
  'repo/unrelated.yaml': 'ignore: me\n',
  'repo/deeply/nested/users/data.json': '[\n  {\n    "id": "alice"\n  },\n  {\n    "id": "bob"\n  }\n]\n',
  'config.d/bundle.yml': `bundles:
  hello-world:
    object_storage:
      filesystem:
        path: bundles/a.tar.gz
    requirements:
    - source: git-local
      path: data.deeply.nested
    - source: intermed
sources:
  git-local:
    git:
      repo: ./repo/
      reference: main
      excluded_files:
      - unrelated.yaml
  intermed:
    requirements:
    - source: git-local
      path: data.other.nested
      prefix: data.on
`,
};

describe('items 3 and 4: relative git url; Rego printed as OPA formats it (build_git_local)', () => {
  it('resolves ./repo/ from the working directory and matches every golden', async () => {
    const dir = await caseDir(GIT_LOCAL);
    gitInit(join(dir, 'repo'));
    const r = await build(dir);
    expect(r).toEqual({ code: 0, stdout: '', stderr: '1/1 bundles built and pushed successfully\n' });
    const tgz = join(dir, 'bundles/a.tar.gz');
    expect(tarList(tgz)).toBe('/data.json\n/git-local/nested/policies/authz.rego\n/git-local1/other/policies/authz.rego\n/.manifest\n');
    const f = await tarRead(tgz, join(dir, 'x'), ['data.json', '.manifest', 'git-local/nested/policies/authz.rego', 'git-local1/other/policies/authz.rego']);
    expect(f['data.json']).toBe('{"users":[{"id":"alice"},{"id":"bob"}]}\n');
    expect(f['.manifest']).toBe('{"revision":"","roots":["authz","users","on/authz"],"rego_version":0}\n');
    expect(f['git-local/nested/policies/authz.rego']).toBe('package authz\n\nimport rego.v1\n\nallow if {\n\tsome user in data.users\n\tuser.id == input.user\n}\n');
    expect(f['git-local1/other/policies/authz.rego']).toBe('package on.authz\n\nimport rego.v1\n\nallow := true\n');
  });

  it('one-line rules and comments stay as written when already formatted', async () => {
    const text = 'package lib.x\n\nimport rego.v1\n\n# the switch\nallow := true\n\nresult if data.lib.y.on\n';
    const dir = await caseDir({
      'lib/x.rego': text,
      'config.d/bundle.yml': 'bundles:\n  b:\n    object_storage: {filesystem: {path: out.tar.gz}}\n    requirements: [{source: lib, path: data.lib, prefix: data.vendor}]\nsources:\n  lib: {directory: lib, paths: ["*.rego"]}\n',
    });
    expect((await build(dir, '--non-interactive')).code).toBe(0);
    const f = await tarRead(join(dir, 'out.tar.gz'), join(dir, 'x'), ['lib/x.rego']);
    expect(f['lib/x.rego']).toBe('package vendor.x\n\nimport rego.v1\n\n# the switch\nallow := true\n\nresult if data.vendor.y.on\n');
  });
});

describe('item 5: revision expressions', () => {
  it('read opa.runtime().env (build_revision_env_var)', async () => {
    const dir = await caseDir({
      'config.d/bundle.yml': 'bundles:\n  hello-world:\n    revision: opa.runtime().env.BUILD_NUMBER\n    object_storage:\n      filesystem:\n        path: bundles/hello-world/bundle.tar.gz\n',
    });
    const r = await regent(['control-plane', 'build', '--config', 'config.d/bundle.yml', '--data-dir', 'tmp', '--non-interactive'], dir, { BUILD_NUMBER: 'build-12345' });
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
    const f = await tarRead(join(dir, 'bundles/hello-world/bundle.tar.gz'), join(dir, 'x'), ['.manifest', 'data.json']);
    expect(f['.manifest']).toBe('{"revision":"build-12345","roots":[""],"rego_version":0}\n');
    expect(f['data.json']).toBe('{}\n');
  });

  it('report type errors with have/want (build_revision_error_message)', async () => {
    const dir = await caseDir({
      'repo/policy.rego': 'package rules\nimport rego.v1\nallow if true\n',
      'config.d/bundle.yml': `bundles:
  hello-world:
    object_storage:
      filesystem:
        path: bundles/hello-world/bundle.tar.gz
    requirements:
    - source: policies
    revision: input.sources.policies.s3.bucket
sources:
  policies:
    git:
      repo: ./repo/
      reference: main
`,
    });
    gitInit(join(dir, 'repo'));
    const r = await build(dir, '--non-interactive');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const line = JSON.parse(r.stderr) as Record<string, string>;
    expect(Object.keys(line)).toEqual(['time', 'level', 'msg']);
    expect(line.level).toBe('WARN');
    expect(line.msg).toBe(
      'failed to build a bundle "hello-world": revision: failed to resolve revision: 1 error occurred: 1:1: rego_type_error: undefined ref: input.sources.policies.s3.bucket\n' +
        '\tinput.sources.policies.s3.bucket\n' +
        '\t                       ^\n' +
        '\t                       have: "s3"\n' +
        '\t                       want (one of): ["git" "sql"]',
    );
  });
});
