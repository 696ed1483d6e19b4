// Black-box, continued: data in bundles — HTTP datasources with transforms and
// credentials, datasource hashes in revisions (`regent control-plane build`), and
// documents pushed through the API of `regent control-plane run` (an empty
// source with a prefix, the SQL hash revision), against the reference's goldens
// (build_http_transform*, build_revision_http_hashsum, build_empty_source_prefix,
// build_revision_sql_hashsum).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { e2eService, referenceCases } from './reference-cases.js';
import { freePort, startServer, tarList, tarRead, type Running } from './blackbox.js';

const running: Running[] = [];
const { caseDir, build } = referenceCases('regent-refdata-', e2eService, async () => {
  for (const r of running) await r.stop();
});
const OK = { code: 0, stdout: '', stderr: '1/1 bundles built and pushed successfully\n' };

describe('HTTP datasources', () => {
  it('transform with a rule from the same source, token and basic auth (build_http_transform)', async () => {
    const dir = await caseDir({
      'aux/transform.rego': 'package transform\nimport rego.v1\nrule := [a, b] if {\n  some a, b\n  [_, a, b] = split(input.Authorization[0], " ")\n}\nrule := [u, p] if {\n  [_, enc] = split(input.Authorization[0], " ")\n  [u, p]:= split(base64.decode(enc), ":")\n}\n',
      'config.d/bundle.yml': `bundles:
  hello-world:
    object_storage:
      filesystem:
        path: bundles/hello-world/bundle.tar.gz
    requirements:
    - source: http-with-transform
    excluded_files:
    - transform.rego
sources:
  http-with-transform:
    datasources:
    - type: http
      name: hello
      path: headers
      transform_query: data.transform.rule
      config:
        url: http://\${HTTP_ENDPOINT}/headers
      credentials: api-token
    - type: http
      name: world
      path: basicauth
      transform_query: data.transform.rule
      config:
        url: http://\${HTTP_ENDPOINT}/headers
      credentials: basic-auth
    directory: aux/
    paths:
    - transform.rego
secrets:
  api-token:
    type: token_auth
    token: open sesame
  basic-auth:
    type: basic_auth
    username: user001
    password: letmein
`,
    });
    expect(await build(dir)).toEqual(OK);
    const tgz = join(dir, 'bundles/hello-world/bundle.tar.gz');
    expect(tarList(tgz)).toBe('/data.json\n/.manifest\n');
    const f = await tarRead(tgz, join(dir, 'x'), ['data.json', '.manifest']);
    expect(f['data.json']).toBe('{"basicauth":["user001","letmein"],"headers":["open","sesame"]}\n');
    expect(f['.manifest']).toBe('{"revision":"","roots":["basicauth","headers"],"rego_version":0}\n');
  });

  it('an inline comprehension transform (build_http_transform_inline)', async () => {
    const dir = await caseDir({
      'config.d/bundle.yml': `bundles:
  hello-world:
    object_storage:
      filesystem:
        path: bundles/hello-world/bundle.tar.gz
    requirements:
    - source: http-with-transform
    excluded_files:
    - transform.rego
sources:
  http-with-transform:
    datasources:
    - type: http
      name: hello
      path: users
      transform_query: '{user.id: object.remove(user, {"id"}) | user := input.users[_]}'
      config:
        url: http://\${HTTP_ENDPOINT}/users
`,
    });
    expect(await build(dir)).toEqual(OK);
    const tgz = join(dir, 'bundles/hello-world/bundle.tar.gz');
    expect(tarList(tgz)).toBe('/data.json\n/.manifest\n');
    const f = await tarRead(tgz, join(dir, 'x'), ['data.json', '.manifest']);
    expect(f['data.json']).toBe('{"users":{"alice":{"roles":["admin","editor"]},"bob":{"roles":["viewer"]}}}\n');
    expect(f['.manifest']).toBe('{"revision":"","roots":["users"],"rego_version":0}\n');
  });

  it('datasource hashes in a revision over two sources (build_revision_http_hashsum)', async () => {
    const dir = await caseDir({
      'config.d/bundle.yml': `bundles:
  hello-world:
    object_storage:
      filesystem:
        path: bundles/hello-world/bundle.tar.gz
    requirements:
    - source: data-a
    - source: data-b
    revision: '$"{substring(input.sources["data-a"].http.users.hash, 0, 8)}-{substring(input.sources["data-a"].http.headers.hash, 0, 8)}-{substring(input.sources["data-b"].http.extra.hash, 0, 8)}"'
sources:
  data-a:
    datasources:
    - type: http
      name: users
      path: users
      config:
        url: http://\${HTTP_ENDPOINT}/users
    - type: http
      name: headers
      path: headers
      config:
        url: http://\${HTTP_ENDPOINT}/headers
  data-b:
    datasources:
    - type: http
      name: extra
      path: extra
      config:
        url: http://\${HTTP_ENDPOINT}/users
`,
    });
    expect(await build(dir)).toEqual(OK);
    const f = await tarRead(join(dir, 'bundles/hello-world/bundle.tar.gz'), join(dir, 'x'), ['.manifest']);
    // users/data.json hashes to 0aa9261a… (notes §5.10); the same document under `extra` too.
    expect(f['.manifest']).toMatch(/^\{"revision":"[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}","roots":\["headers","users","extra"\],"rego_version":0\}\n$/);
  });
});

describe('documents pushed through the API (run)', () => {
  const TOKEN = 'database:\n  sql:\n    driver: sqlite\n    dsn: sqlite.db\ntokens:\n  test-token:\n    api_key: test-key\n    scopes:\n    - role: administrator\n';

  async function run(config: string): Promise<{ cp: Running; dir: string }> {
    const dir = await caseDir({ 'config.d/bundle.yml': TOKEN + config });
    const port = await freePort();
    const cp = await startServer(['control-plane', 'run', '--config', 'config.d/bundle.yml', '--data-dir', 'tmp', '--addr', `127.0.0.1:${port}`], dir, `http://127.0.0.1:${port}`);
    running.push(cp);
    return { cp, dir };
  }
  const put = (cp: Running, path: string, body: string) =>
    fetch(`${cp.url}${path}`, { method: 'PUT', headers: { authorization: 'Bearer test-key' }, body }).then(async (r) => [r.status, await r.text()]);

  /** Wait until the bundle's manifest is `want` (rebuilds run every second). */
  async function manifestBecomes(dir: string, want: string): Promise<Record<string, string>> {
    const tgz = join(dir, 'bundles/hello-world/bundle.tar.gz');
    let last: Record<string, string> = {};
    for (let i = 0; i < 100; i++) {
      last = await tarRead(tgz, join(dir, `x${i}`), ['.manifest', 'data.json']).catch(() => ({}));
      if (last['.manifest'] === want) return last;
      await new Promise((r) => setTimeout(r, 200));
    }
    return last;
  }

  it('an empty source with a prefix claims it; pushed data moves the root (build_empty_source_prefix)', async () => {
    const { cp, dir } = await run('bundles:\n  hello-world:\n    rebuild_interval: 1s\n    object_storage:\n      filesystem:\n        path: bundles/hello-world/bundle.tar.gz\n    requirements:\n    - source: sql-source\n      prefix: abc\nsources:\n  sql-source: {}\n');
    const empty = await manifestBecomes(dir, '{"revision":"","roots":["abc"],"rego_version":0}\n');
    expect(empty).toEqual({ '.manifest': '{"revision":"","roots":["abc"],"rego_version":0}\n', 'data.json': '{}\n' });
    expect(await put(cp, '/v1/sources/sql-source/data/users', '{"alice":{"role":"admin"}}')).toEqual([200, '{}\n']);
    const full = await manifestBecomes(dir, '{"revision":"","roots":["abc/users"],"rego_version":0}\n');
    expect(full).toEqual({ '.manifest': '{"revision":"","roots":["abc/users"],"rego_version":0}\n', 'data.json': '{"abc":{"users":{"alice":{"role":"admin"}}}}\n' });
  });

  it('the SQL hash of pushed documents as the revision (build_revision_sql_hashsum)', async () => {
    const { cp, dir } = await run('bundles:\n  hello-world:\n    rebuild_interval: 1s\n    revision: \'input.sources["sql-source"].sql.hash\'\n    object_storage:\n      filesystem:\n        path: bundles/hello-world/bundle.tar.gz\n    requirements:\n    - source: sql-source\nsources:\n  sql-source: {}\n');
    expect(await put(cp, '/v1/sources/sql-source/data/users', '{"alice":{"role":"admin"},"bob":{"role":"viewer"}}')).toEqual([200, '{}\n']);
    expect(await put(cp, '/v1/sources/sql-source/data/config', '{"enabled":true,"timeout":30}')).toEqual([200, '{}\n']);
    const want = '{"revision":"c22697e36da57821179b766397ebf58f84399bd797c374942e8d5de81d230fdd","roots":["config","users"],"rego_version":0}\n';
    expect((await manifestBecomes(dir, want))['.manifest']).toBe(want);
  });
});
