// Black-box, continued: more of the reference's e2e goldens for
// `regent control-plane build` — stacks (automount, no_default_stack_mount,
// automount: false), a source with both git and directory content, revisions
// from git, and a revision over missing metadata. Roots follow the reference's
// order: requirement lists in source creation order (its database returns them
// by source id), stacks in name order (issue 13 item 1).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceCases } from './reference-cases.js';
import { gitInit, tarList, tarRead } from './blackbox.js';

const { caseDir, build } = referenceCases('regent-refstk-', (req, res) => res.end(JSON.stringify({ 'User-Agent': [req.headers['user-agent'] ?? ''] }) + '\n'));

const GLOBAL_DATA = {
  'data/common/foo/foo.json': '{ "foo": true }\n',
  'data/rules.rego': 'package common.rules\nimport rego.v1\nresult if data.foo.common != "uncommon"\n',
};

describe('stacks', () => {
  it('automount under data.stacks.<name>, bracketed for hyphenated names (build_stack_automount)', async () => {
    const dir = await caseDir({
      ...GLOBAL_DATA,
      'config.d/bundle.yml': `bundles:
  hello-world:
    labels:
      env: production
    object_storage:
      filesystem:
        path: bundles/hello-world/bundle.tar.gz
stacks:
  without-mount:
    selector:
      env:
      - production
    requirements:
    - source: global-data
  with-mount:
    selector:
      env:
      - production
    requirements:
    - source: global-data
      prefix: global
sources:
  global-data:
    directory: data/
    paths:
    - rules.rego
    - common/foo/foo.json
`,
    });
    expect(await build(dir)).toEqual({ code: 0, stdout: '', stderr: '1/1 bundles built and pushed successfully\n' });
    const tgz = join(dir, 'bundles/hello-world/bundle.tar.gz');
    expect(tarList(tgz)).toBe('/data.json\n/global-data/rules.rego\n/global-data1/rules.rego\n/.manifest\n');
    const f = await tarRead(tgz, join(dir, 'x'), ['.manifest', 'data.json', 'global-data/rules.rego', 'global-data1/rules.rego']);
    expect(f['.manifest']).toBe('{"revision":"","roots":["stacks/with-mount/global/common/rules","stacks/with-mount/global/common/foo","stacks/without-mount/common/rules","stacks/without-mount/common/foo"],"rego_version":0}\n');
    expect(f['data.json']).toBe('{"stacks":{"with-mount":{"global":{"common":{"foo":{"foo":true}}}},"without-mount":{"common":{"foo":{"foo":true}}}}}\n');
    expect(f['global-data/rules.rego']).toBe('package stacks["with-mount"].global.common.rules\n\nimport rego.v1\n\nresult if data.stacks["with-mount"].global.foo.common != "uncommon"\n');
    expect(f['global-data1/rules.rego']).toBe('package stacks["without-mount"].common.rules\n\nimport rego.v1\n\nresult if data.stacks["without-mount"].foo.common != "uncommon"\n');
  });

  it('no_default_stack_mount uses the requirement mounts verbatim (build_stack_mounts)', async () => {
    const dir = await caseDir({
      ...GLOBAL_DATA,
      'config.d/bundle.yml': `bundles:
  hello-world:
    options:
      no_default_stack_mount: true
    labels:
      env: production
    object_storage:
      filesystem:
        path: bundles/hello-world/bundle.tar.gz
    requirements:
    - source: global-data
      prefix: data.bundle.req
stacks:
  stack-with-mount:
    selector:
      env:
      - production
    requirements:
    - source: global-data
      path: data.common
      prefix: data.stack.req.new
sources:
  global-data:
    directory: data/
    paths:
    - rules.rego
    - common/foo/foo.json
`,
    });
    expect(await build(dir, '--non-interactive')).toEqual({ code: 0, stdout: '', stderr: '' });
    const tgz = join(dir, 'bundles/hello-world/bundle.tar.gz');
    expect(tarList(tgz)).toBe('/data.json\n/global-data/rules.rego\n/global-data1/rules.rego\n/.manifest\n');
    const f = await tarRead(tgz, join(dir, 'x'), ['.manifest', 'data.json', 'global-data/rules.rego', 'global-data1/rules.rego']);
    expect(f['.manifest']).toBe('{"revision":"","roots":["bundle/req/common/rules","bundle/req/common/foo","stack/req/new/rules","stack/req/new/foo"],"rego_version":0}\n');
    expect(f['data.json']).toBe('{"bundle":{"req":{"common":{"foo":{"foo":true}}}},"stack":{"req":{"new":{"foo":{"foo":true}}}}}\n');
    expect(f['global-data/rules.rego']).toBe('package bundle.req.common.rules\n\nimport rego.v1\n\nresult if data.bundle.req.foo.common != "uncommon"\n');
    expect(f['global-data1/rules.rego']).toBe('package stack.req.new.rules\n\nimport rego.v1\n\nresult if data.foo.common != "uncommon"\n');
  });

  it('automount: false keeps a predictable entrypoint; roots in source order (build_stack_docs_conflict_resolution)', async () => {
    const dir = await caseDir({
      'petshop-svc/rules.rego': 'package service\nimport rego.v1\n\nallow if {\n  input.action == "view_pets"\n}\n',
      'globalsecurity/rules.rego': 'package globalsecurity\nimport rego.v1\n\ndeny if {\n  input.principal.username in data.blocklist\n}\n',
      'main/rules.rego': 'package main\nimport rego.v1\n\nmain if {\n  data.service.allow\n  not data.globalsecurity.deny\n}\n',
      'notifications-svc/rules.rego': 'package service\nimport rego.v1\n\nallow if {\n  input.action == "subscribe_to_newsletter"\n  input.principal.is_customer\n}\n',
      'config.d/bundle.yml': `bundles:
  petshop-svc:
    labels:
      environment: prod
    requirements:
    - source: petshop-svc
    object_storage:
      filesystem:
        path: bundles/petshop-svc/bundle.tar.gz
  notifications-svc:
    labels:
      environment: prod
    requirements:
    - source: notifications-svc
    object_storage:
      filesystem:
        path: bundles/notifications-svc/bundle.tar.gz
stacks:
  globalsecurity:
    selector:
      environment: [prod]
    requirements:
    - source: main
      automount: false # want predictable entrypoint
    - source: globalsecurity
sources:
  notifications-svc:
    directory: notifications-svc/
    paths: [rules.rego]
  petshop-svc:
    directory: petshop-svc/
    paths: [rules.rego]
  main:
    directory: main/
    paths: [rules.rego]
  globalsecurity:
    directory: globalsecurity/
    paths: [rules.rego]
`,
    });
    expect(await build(dir, '--non-interactive')).toEqual({ code: 0, stdout: '', stderr: '' });
    for (const svc of ['notifications-svc', 'petshop-svc']) {
      const tgz = join(dir, `bundles/${svc}/bundle.tar.gz`);
      expect(tarList(tgz)).toBe(`/data.json\n/globalsecurity/rules.rego\n/main/rules.rego\n/${svc}/rules.rego\n/.manifest\n`);
      const f = await tarRead(tgz, join(dir, svc), ['.manifest']);
      expect(f['.manifest']).toBe('{"revision":"","roots":["service","stacks/globalsecurity/globalsecurity","main"],"rego_version":0}\n');
    }
  });
});

describe('unmounted modules are printed as OPA formats them too (build_stack_example)', () => {
  it('roots in source order, stack data and policy under data.stacks.stack1', async () => {
    const dir = await caseDir({
      'entry/rules.rego': 'package entrypoint\nimport rego.v1\nallow if {\n\tdata.rules.allow\n\tevery stack in data.stacks {\n\t\tnot stack.stack.deny\n\t}\n}\n',
      'stack1/stack/data.json': '{\n  "bad_apples": ["b_id_1", "b_id_13"]\n}\n',
      'stack1/rules.rego': 'package stack\nimport rego.v1\ndeny if data.stack.bad_apples[_] in input.payload.fruits\n',
      'svc/rules.rego': 'package rules\nimport rego.v1\nallow if input.request in {"GET", "POST"}\n',
      'config.d/bundle.yml': `bundles:
  fruitsrv:
    labels:
      env: production
    object_storage:
      filesystem:
        path: bundles/fruitsrv/bundle.tar.gz
    requirements:
    - source: fruitsrv
    - source: entrypoint
stacks:
  stack1:
    selector:
      env:
      - production
    requirements:
    - source: stack1src
sources:
  entrypoint:
    directory: entry/
    paths:
    - rules.rego
  fruitsrv:
    directory: svc/
    paths:
    - rules.rego
  stack1src:
    directory: stack1/
    paths:
    - rules.rego
    - stack/data.json
`,
    });
    expect(await build(dir, '--non-interactive')).toEqual({ code: 0, stdout: '', stderr: '' });
    const tgz = join(dir, 'bundles/fruitsrv/bundle.tar.gz');
    expect(tarList(tgz)).toBe('/data.json\n/entrypoint/rules.rego\n/fruitsrv/rules.rego\n/stack1src/rules.rego\n/.manifest\n');
    const f = await tarRead(tgz, join(dir, 'x'), ['.manifest', 'data.json', 'fruitsrv/rules.rego', 'stack1src/rules.rego']);
    expect(f['.manifest']).toBe('{"revision":"","roots":["entrypoint","rules","stacks/stack1/stack"],"rego_version":0}\n');
    expect(f['data.json']).toBe('{"stacks":{"stack1":{"stack":{"bad_apples":["b_id_1","b_id_13"]}}}}\n');
    expect(f['fruitsrv/rules.rego']).toBe('package rules\n\nimport rego.v1\n\nallow if input.request in {"GET", "POST"}\n');
    expect(f['stack1src/rules.rego']).toBe('package stacks.stack1.stack\n\nimport rego.v1\n\ndeny if data.stacks.stack1.stack.bad_apples[_] in input.payload.fruits\n');
  });
});

describe('git', () => {
  it('a source with git and directory content keeps both (build_git_local_clash)', async () => {
    const dir = await caseDir({
      'path/foo/policy.rego': 'package foo\nimport rego.v1\nallow if true\n',
      'repo/foo/policy.rego': 'package foo\nimport rego.v1\nallow if false\n',
      'config.d/bundle.yml': 'bundles:\n  hello-world:\n    object_storage:\n      filesystem:\n        path: bundles/a.tar.gz\n    requirements:\n    - source: git+local\nsources:\n  git+local:\n    git:\n      repo: ./repo/\n      reference: main\n    directory: path/\n    paths:\n    - foo/policy.rego\n',
    });
    gitInit(join(dir, 'repo'));
    expect(await build(dir, '--non-interactive')).toEqual({ code: 0, stdout: '', stderr: '' });
    const tgz = join(dir, 'bundles/a.tar.gz');
    expect(tarList(tgz)).toBe('/data.json\n/git+local/foo/policy.rego\n/git+local1/foo/policy.rego\n/.manifest\n');
    const f = await tarRead(tgz, join(dir, 'x'), ['data.json', '.manifest', 'git+local/foo/policy.rego', 'git+local1/foo/policy.rego']);
    expect(f['data.json']).toBe('{}\n');
    expect(f['.manifest']).toBe('{"revision":"","roots":["foo"],"rego_version":0}\n');
    expect(f['git+local/foo/policy.rego']).toBe('package foo\n\nimport rego.v1\n\nallow := true\n');
    expect(f['git+local1/foo/policy.rego']).toBe('package foo\n\nimport rego.v1\n\nallow if false\n');
  });

  it('a revision from the commit (build_revision_git_input)', async () => {
    const dir = await caseDir({
      'repo/policy.rego': 'package rules\nimport rego.v1\nallow if true\n',
      'config.d/bundle.yml': 'bundles:\n  hello-world:\n    object_storage:\n      filesystem:\n        path: bundles/hello-world/bundle.tar.gz\n    requirements:\n    - source: policies\n    revision: $"git-{substring(input.sources.policies.git.commit, 0, 7)}"\nsources:\n  policies:\n    git:\n      repo: ./repo/\n      reference: main\n',
    });
    gitInit(join(dir, 'repo'));
    expect(await build(dir)).toEqual({ code: 0, stdout: '', stderr: '1/1 bundles built and pushed successfully\n' });
    const f = await tarRead(join(dir, 'bundles/hello-world/bundle.tar.gz'), join(dir, 'x'), ['.manifest']);
    expect(f['.manifest']).toMatch(/^\{"revision":"git-[0-9a-f]{7}","roots":\["rules"\],"rego_version":0\}\n$/);
  });
});

describe('revision over missing metadata (build_revision_missing_metadata)', () => {
  it('is BUILD_FAILED with `no results from Rego evaluation`', async () => {
    const dir = await caseDir({
      'config.d/bundle.yml': 'bundles:\n  hello-world:\n    object_storage:\n      filesystem:\n        path: bundles/hello-world/bundle.tar.gz\n    requirements:\n    - source: http-data\n    revision: substring(object.get(input.sources, "http-data", {}).commit, 0, 7)\nsources:\n  http-data:\n    datasources:\n    - type: http\n      name: data\n      path: mydata\n      config:\n        url: http://${HTTP_ENDPOINT}/headers\n',
    });
    const r = await build(dir, '--non-interactive');
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stderr) as { msg: string }).msg).toBe('failed to build a bundle "hello-world": revision: failed to resolve revision: no results from Rego evaluation');
  });
});
