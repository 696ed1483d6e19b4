// Black-box: `regent control-plane run` from config files (issue 13 items 8 and
// 11, and run_api_prefix / run_basic of the reference's e2e scripts). Bodies are
// compared byte for byte: an empty list is `{}` for bundles and sources and
// `{"result":null}` for stacks and secrets, as the reference's Go structs marshal
// them. The periodic rebuild logs "bundle built" at info only when the bundle
// changed; unchanged rebuilds log at debug.
import { spawn, spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, REGENT, startServer, tarList, tarRead, workDir, writeAll, type Running } from './blackbox.js';

let root: string;
let cleanup: () => Promise<void>;
const running: Running[] = [];

beforeAll(async () => ({ dir: root, cleanup } = await workDir('regent-refrun-')));
afterAll(async () => {
  for (const r of running) await r.stop();
  await cleanup();
});

async function run(name: string, config: string, extra: string[] = [], files: Record<string, string> = {}, health = '/health'): Promise<{ cp: Running; dir: string }> {
  const dir = join(root, name);
  await writeAll(dir, { 'config.d/config.yml': config, ...files });
  const port = await freePort();
  const cp = await startServer(['control-plane', 'run', '--config', 'config.d', '--addr', `127.0.0.1:${port}`, '--data-dir', 'tmp', ...extra], dir, `http://127.0.0.1:${port}`, health);
  running.push(cp);
  return { cp, dir };
}

const get = async (url: string, key = 'admin-key') => {
  const r = await fetch(url, { headers: { authorization: `bearer ${key}` } });
  return { status: r.status, body: await r.text() };
};

const TOKENS = 'tokens:\n  admin:\n    api_key: admin-key\n    scopes:\n    - role: administrator\n';

describe('item 8: empty list responses (run_api_prefix)', () => {
  it('are {} for bundles and sources, {"result":null} for stacks and secrets', async () => {
    const { cp } = await run('empty', `service:\n  api_prefix: /my/api\n${TOKENS}`, [], {}, '/my/api/health');
    expect(await get(`${cp.url}/my/api/health`)).toEqual({ status: 200, body: '{}\n' });
    expect(await get(`${cp.url}/my/api/v1/bundles`)).toEqual({ status: 200, body: '{}\n' });
    expect(await get(`${cp.url}/my/api/v1/sources`)).toEqual({ status: 200, body: '{}\n' });
    expect(await get(`${cp.url}/my/api/v1/stacks`)).toEqual({ status: 200, body: '{"result":null}\n' });
    expect(await get(`${cp.url}/my/api/v1/secrets`)).toEqual({ status: 200, body: '{"result":null}\n' });
    expect((await get(`${cp.url}/health`)).status).toBe(404);
    expect((await get(`${cp.url}/v1/bundles`)).status).toBe(404);
    const metrics = await fetch(`${cp.url}/my/api/metrics`).then((r) => r.text());
    expect(metrics).toContain('/my/api');
  });

  it('a non-empty list has `result` and no `next_cursor` when nothing follows', async () => {
    const { cp } = await run('one', `${TOKENS}secrets:\n  s1: {type: token_auth, token: x}\n`);
    expect(await get(`${cp.url}/v1/secrets`)).toEqual({ status: 200, body: '{"result":["s1"]}\n' });
    expect(await get(`${cp.url}/v1/secrets?limit=1`)).toEqual({ status: 200, body: '{"result":["s1"]}\n' });
  });
});

describe('--addr ./ocp.sock: a unix socket, as the reference\'s run tests use it', () => {
  it('serves /health and the API on the socket, mode 0666', async () => {
    const dir = join(root, 'sock');
    await writeAll(dir, { 'config.d/config.yml': TOKENS });
    const child = spawn(process.execPath, [REGENT, 'control-plane', 'run', '--config', 'config.d', '--data-dir', 'tmp', '--addr', './ocp.sock'], { cwd: dir, stdio: 'ignore' });
    try {
      const curl = (...a: string[]) => spawnSync('curl', ['-s', '--unix-socket', join(dir, 'ocp.sock'), ...a], { encoding: 'utf8' }).stdout;
      for (let i = 0; i < 150 && curl('http://localhost/health') !== '{}\n'; i++) await new Promise((r) => setTimeout(r, 100));
      expect(curl('http://localhost/health')).toBe('{}\n');
      expect(curl('-H', 'Authorization: Bearer admin-key', 'http://localhost/v1/bundles')).toBe('{}\n');
      expect(statSync(join(dir, 'ocp.sock')).mode & 0o777).toBe(0o666);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.on('close', r));
    }
  });
});

describe('environment variables in tokens and the database DSN (run_env_vars)', () => {
  it('expands ${API_TOKEN} and ${SQLITE_FILE}; lower-case bearer works', async () => {
    const dir = join(root, 'env');
    await writeAll(dir, {
      'config.d/bundle.yml': 'tokens:\n  api01:\n    api_key: ${API_TOKEN}\n    scopes:\n    - role: viewer\ndatabase:\n  sql:\n    driver: sqlite3\n    dsn: ${SQLITE_FILE}\nbundles:\n  hello-world:\n    object_storage:\n      filesystem:\n        path: bundles/hello-world/bundle.tar.gz\n',
    });
    const port = await freePort();
    const cp = await startServer(['control-plane', 'run', '--addr', `127.0.0.1:${port}`, '--config', 'config.d/bundle.yml'], dir, `http://127.0.0.1:${port}`, '/health', { API_TOKEN: 'sesame', SQLITE_FILE: 'sqlite123.db' });
    try {
      const r = await fetch(`${cp.url}/v1/bundles`, { headers: { authorization: 'bearer sesame' } });
      expect(r.status).toBe(200);
      expect(((await r.json()) as { result: { name: string }[] }).result.map((b) => b.name)).toEqual(['hello-world']);
    } finally {
      await cp.stop();
    }
    expect(statSync(join(dir, 'sqlite123.db')).isFile()).toBe(true);
  });
});

describe('item 11: a quiet timer (run_basic)', () => {
  it('builds the bundle of build_basic, then logs "bundle built" once while rebuilding every second', async () => {
    const { cp, dir } = await run(
      'timer',
      `${TOKENS}bundles:
  hello-world:
    rebuild_interval: 1s
    object_storage:
      filesystem:
        path: bundles/hello-world/bundle.tar.gz
    requirements:
    - source: dir-paths
    - source: global-data
sources:
  dir-paths:
    directory: files/sources/hello-world
    paths:
    - prefix/data.json
    - rules/rules.rego
  global-data:
    paths:
    - data/common.json
`,
      ['--log-level', 'debug'],
      {
        'data/common.json': '{ "common": true }\n',
        'files/sources/hello-world/prefix/data.json': '{ "some": "thing" }\n',
        'files/sources/hello-world/rules/rules.rego': 'package rules\nimport rego.v1\nresult if input.yay\n',
      },
    );
    const statusOf = async () => JSON.parse((await get(`${cp.url}/v1/bundles/hello-world/status`)).body) as { result?: { status: string }[] };
    const deadline = Date.now() + 20_000;
    const lines = () => cp.stderr().split('\n').filter((l) => l.includes('"bundle built')).map((l) => JSON.parse(l) as { level: number; msg: string });
    while (lines().length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const seen = lines();
    expect(seen.length).toBeGreaterThanOrEqual(4);
    // pino levels: 30 info, 20 debug
    expect(seen.filter((l) => l.level === 30).map((l) => l.msg)).toEqual(['bundle built']);
    expect(seen.slice(1).every((l) => l.level === 20 && l.msg === 'bundle built, not modified')).toBe(true);
    expect((await statusOf()).result?.[0]?.status).toBe('SUCCESS');
    const tgz = join(dir, 'bundles/hello-world/bundle.tar.gz');
    expect(tarList(tgz)).toBe('/data.json\n/dir-paths/rules/rules.rego\n/.manifest\n');
    const f = await tarRead(tgz, join(dir, 'x'), ['.manifest', 'data.json']);
    expect(f['.manifest']).toBe('{"revision":"","roots":["rules","prefix","data"],"rego_version":0}\n');
    expect(f['data.json']).toBe('{"data":{"common":true},"prefix":{"some":"thing"}}\n');
  });
});
