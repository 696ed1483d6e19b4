// Configuration loading (reference format, JSON Schema validation, merging,
// env expansion), start-up behaviour (health 500 before ready, invalid config
// stops start-up, config definitions overwrite API edits on restart while the
// database keeps everything else), api_prefix, and the CLI entry point.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { controlPlaneCommand, parseAddr } from '../../cli/control-plane.js';
import { loadConfigFiles, parseConfigText } from '../../server/control-plane/config/load.js';
import { ConfigError } from '../../server/control-plane/errors.js';
import { openSqliteStorage } from '../../server/control-plane/storage/sqlite.js';
import type { Storage } from '../../server/control-plane/storage/storage.js';
import { createControlPlane } from '../../server/control-plane/index.js';
import { KEYS, startServer, TOKENS_YAML } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'regent-cp-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const configError = (yaml: string, env: NodeJS.ProcessEnv = {}): string => {
  try {
    parseConfigText(yaml, env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a configuration error');
};

describe('configuration', () => {
  it('parses the reference format into sorted definitions', () => {
    const c = parseConfigText(
      `
bundles:
  b: {labels: {a: x}, revision: '"v1"', rebuild_interval: 1m, options: {target: rego}, object_storage: {aws: {bucket: bk, key: k, region: r}}, requirements: [{source: top}]}
sources:
  top: {requirements: [{source: base}], datasources: [{name: d, type: http, path: p, config: {url: "\${URL_HOST}/x", headers: {A: "$NOT"}}}]}
  base: {builtin: kubernetes-v2/library, styra.extra: ignored}
  empty:
stacks:
  s: {selector: {a: [x]}, exclude_selector: {b: []}}
secrets:
  sec: {type: token_auth, token: "\${TOKEN}"}
tokens:
  t: {api_key: "\${KEY}", scopes: [{role: viewer}]}
service: {api_prefix: /api}
database: {sql: {driver: sqlite3, dsn: "\${DB}"}}
`,
      { URL_HOST: 'https://h', KEY: 'k1', DB: '/tmp/x.db' },
    );
    expect(c.sources.map((s) => s.name)).toEqual(['base', 'empty', 'top']);
    expect(c.sources[0]).toEqual({ name: 'base', builtin: 'kubernetes-v2/library' });
    expect(c.sources[2]!.datasources![0]!.config).toEqual({ url: 'https://h/x', headers: { A: '$NOT' } });
    expect(c.bundles[0]).toMatchObject({ name: 'b', revision: '"v1"', rebuild_interval: '1m', options: { target: 'rego' } });
    expect(c.secrets).toEqual([{ name: 'sec', value: { type: 'token_auth', token: '${TOKEN}' } }]);
    expect(c.tokens).toEqual([{ name: 't', apiKey: 'k1', role: 'viewer' }]);
    expect(c.apiPrefix).toBe('/api');
    expect(c.database).toEqual({ driver: 'sqlite', dsn: '/tmp/x.db' });
  });

  it('rejects invalid files with clear messages', () => {
    expect(configError('bundles: {b: {unknown_key: 1}}')).toMatch(/^configuration validation error:\n- at '\/bundles\/b': must NOT have additional properties: "unknown_key"/);
    expect(configError('bundles: {empty-bundle: }')).toContain(`- at '/bundles/empty-bundle': must be object`);
    expect(configError('tokens: {t: {api_key: k, scopes: [{role: root}]}}')).toContain('must be equal to one of the allowed values');
    expect(configError('tokens: {t: {api_key: k, scopes: []}}')).toBe('exactly one scope must be provided for token "t"');
    expect(configError('tokens: {t: {api_key: $UNSET, scopes: [{role: viewer}]}}')).toBe('token "t": no API key (after env expansion)');
    expect(configError('sources: {a: {requirements: [{source: b}]}, b: {requirements: [{source: a}]}}')).toMatch(/cycle found on source/);
    expect(configError('service: {api_prefix: "/trailing/"}')).toContain('/service/api_prefix');
    expect(configError('bundles: {b: {object_storage: {aws: {bucket: x}}}}')).toContain("must have required property 'key'");
    expect(configError('unknown_top: 1')).toContain('"unknown_top"');
    expect(configError('bundles: [1')).toMatch(/^configuration: /);
  });

  it('merges files and directories (later wins, maps merge)', () => {
    mkdirSync(join(dir, 'conf.d', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'conf.d', '1.yaml'), 'bundles: {b: {labels: {a: "1", b: "1"}}}\n');
    writeFileSync(join(dir, 'conf.d', 'sub', '2.yml'), 'bundles: {b: {labels: {b: "2"}}}\n');
    writeFileSync(join(dir, 'extra.json'), '{"stacks": {"s": {"selector": {}}}}');
    const c = loadConfigFiles([join(dir, 'conf.d'), join(dir, 'extra.json')]);
    expect(c.bundles).toEqual([{ name: 'b', labels: { a: '1', b: '2' } }]);
    expect(c.stacks).toEqual([{ name: 's', selector: {} }]);
    expect(() => loadConfigFiles([join(dir, 'missing.yaml')])).toThrow(ConfigError);
  });
});

describe('start-up', () => {
  it('answers /health 500 until start-up has finished', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const real = openSqliteStorage(join(dir, 'slow', 'sqlite.db'));
    const slow: Storage = Object.create(real, { migrate: { value: async () => (await gate, real.migrate()) } });
    const cp = createControlPlane({ config: parseConfigText(TOKENS_YAML), port: 0, store: slow, scheduler: null, logStream: { write: () => undefined } });
    const started = cp.start();
    // The server listens before migrations finish: wait for the socket.
    let addr = cp.app.server.address();
    while (!addr || typeof addr === 'string') {
      await new Promise((r) => setTimeout(r, 10));
      addr = cp.app.server.address();
    }
    const url = `http://127.0.0.1:${addr.port}`;
    const before = await fetch(`${url}/health`);
    expect(before.status).toBe(500);
    expect(await before.json()).toEqual({ code: 'internal_error', message: 'not ready' });
    expect((await fetch(`${url}/v1/bundles`, { headers: { authorization: `Bearer ${KEYS.admin}` } })).status).toBe(500);
    expect(cp.ready).toBe(false);
    release();
    expect(await started).toBe(url);
    expect(cp.ready).toBe(true);
    const after = await fetch(`${url}/health`);
    expect(after.status).toBe(200);
    expect(await after.text()).toBe('{}\n');
    await cp.stop();
  });

  it('loads config definitions on every start, keeping API-made definitions', async () => {
    const file = join(dir, 'persist', 'sqlite.db');
    const first = await startServer('sqlite', 'bundles: {cfg: {labels: {v: "config"}}}\n', { store: openSqliteStorage(file) });
    await first.req('PUT', '/v1/bundles/cfg', { body: { labels: { v: 'api' } } });
    await first.req('PUT', '/v1/bundles/api-made', { body: {} });
    await first.close();
    const second = await startServer('sqlite', 'bundles: {cfg: {labels: {v: "config"}}}\n', { store: openSqliteStorage(file) });
    expect((await second.req('GET', '/v1/bundles')).json.result).toEqual([
      { name: 'cfg', labels: { v: 'config' } },
      { name: 'api-made' },
    ]);
    await second.close();
  });

  it('stops start-up when config definitions are inconsistent', async () => {
    await expect(startServer('sqlite', 'bundles: {b: {requirements: [{source: missing}]}}\n')).rejects.toThrow(
      /load config failed: upsert bundle "b" failed: .*"missing" does not exist/,
    );
  });

  it('serves every route under service.api_prefix', async () => {
    const s = await startServer('sqlite', 'service: {api_prefix: /my/api}\n');
    expect((await fetch(`${s.url}/my/api/health`)).status).toBe(200);
    expect((await s.req('GET', '/my/api/v1/bundles')).status).toBe(200);
    expect((await s.req('GET', '/v1/bundles')).status).toBe(404);
    expect((await fetch(`${s.url}/health`)).status).toBe(404);
    await s.close();
  });
});

describe('regent control-plane CLI', () => {
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { io: { out: (s: string) => void out.push(s), err: (s: string) => void err.push(s) }, out, err };
  };

  it('exits 1 with the validation message for an invalid configuration', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'bundles: {b: {labels: [1]}}\n');
    const t = io();
    expect(await controlPlaneCommand(['run', '-c', bad, '--addr', '127.0.0.1:0', '--data-dir', join(dir, 'd')], t.io)).toBe(1);
    expect(t.err.join('')).toMatch(/^regent control-plane: configuration validation error:\n- at '\/bundles\/b\/labels': must be object/);
  });

  it('reports usage errors with exit code 2', async () => {
    const t = io();
    expect(await controlPlaneCommand(['run', '--bogus'], t.io)).toBe(2);
    expect(await controlPlaneCommand(['run', '--addr', 'nonsense'], t.io)).toBe(2);
    expect(await controlPlaneCommand(['frobnicate'], t.io)).toBe(2);
    expect(await controlPlaneCommand([], t.io)).toBe(2);
    expect(parseAddr(':8282')).toEqual({ host: '0.0.0.0', port: 8282 });
    expect(parseAddr('localhost:1')).toEqual({ host: '127.0.0.1', port: 1 });
    expect(parseAddr('[::1]:80')).toEqual({ host: '::1', port: 80 });
  });
});
