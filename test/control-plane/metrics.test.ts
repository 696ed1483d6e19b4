// The control plane's Prometheus endpoint (control-plane-behaviors.md §2.2
// `metrics`, §4.1, e2e notes 39 run_api_prefix and 42 run_git_bundle_build):
// /metrics needs no token and lives under service.api_prefix; one git-sourced
// build yields exactly one git sync and one build; the `metrics` key turns
// everything, an area or a single metric off. Several control planes run in this
// process, each with its own registry.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from '../../server/control-plane/index.js';
import { parseConfigText } from '../../server/control-plane/config/load.js';
import { goFloat } from '../../server/metrics/families.js';
import { databaseOperation, handlerLabel } from '../../server/control-plane/metrics.js';
import { startServer, type TestServer } from './helpers.js';

const KEY = 'metrics-admin-key';
let dir: string;
let repo: string;

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x', GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' };
const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-cp-metrics-'));
  repo = join(dir, 'repo');
  const files: Record<string, string> = { 'unrelated.yaml': 'ignore: me\n', 'users/data.json': '[{"id": "alice"}, {"id": "bob"}]\n' };
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, p)), { recursive: true });
    writeFileSync(join(repo, p), text);
  }
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial-commit');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The run_git_bundle_build configuration, with `extra` YAML appended. */
function gitConfig(name: string, extra = '', reference = 'main'): string {
  return `
tokens: {admin: {api_key: ${KEY}, scopes: [{role: administrator}]}}
bundles:
  hello-world:
    object_storage: {filesystem: {path: ${join(dir, name, 'bundles/hello-world/bundle.tar.gz')}}}
    requirements: [{source: git-data}]
sources:
  git-data:
    git: {repo: "file://${repo}", reference: ${reference}, excluded_files: [unrelated.yaml]}
${extra}`;
}

interface Running {
  cp: ControlPlane;
  url: string;
  get(path: string, key?: string): Promise<{ status: number; type: string; text: string }>;
}

const running: ControlPlane[] = [];
afterAll(async () => {
  await Promise.all(running.map((cp) => cp.stop()));
});

/** A control plane on SQLite under `dir/name` with the builder's default scheduler. */
async function start(name: string, yaml: string): Promise<Running> {
  const cp = createControlPlane({ config: parseConfigText(yaml), dataDir: join(dir, name, 'data'), port: 0, logLevel: 'silent' });
  running.push(cp);
  const url = await cp.start();
  const get: Running['get'] = async (path, key) => {
    const res = await fetch(url + path, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  };
  return { cp, url, get };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Wait until the first build of hello-world is recorded, then return the bundle's latest status. */
async function firstBuild(s: Running): Promise<{ status: string; phase: string }> {
  return until('the first build', async () => {
    const r = await s.get('/v1/bundles/hello-world/status/latest', KEY);
    return r.status === 200 ? (JSON.parse(r.text).result as { status: string; phase: string }) : undefined;
  });
}

const lines = (text: string): string[] => text.split('\n');
const familyNames = (text: string): string[] => lines(text).filter((l) => l.startsWith('# TYPE ')).map((l) => l.split(' ')[2]!);

describe('/metrics under service.api_prefix (run_api_prefix)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('sqlite', 'service: {api_prefix: /my/api}\n');
  });
  afterAll(async () => {
    await s?.close();
  });

  it('answers without a token, under the prefix only, for any method', async () => {
    expect((await s.req('GET', '/my/api/health', { key: null })).text).toBe('{}\n');
    expect((await s.req('GET', '/my/api/v1/bundles')).status).toBe(200);
    expect((await s.req('GET', '/my/api/v1/bundles', { key: null })).status).toBe(401);

    const m = await s.req('GET', '/my/api/metrics', { key: null });
    expect(m.status).toBe(200);
    expect(m.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(m.text).toContain('/my/api');
    // Only authenticated /v1 requests are observed, labelled with the prefixed route pattern.
    expect(lines(m.text)).toContain('ocp_http_request_duration_seconds_count{code="200",handler="/my/api/v1/bundles",method="get"} 1');
    expect(m.text).not.toContain('code="401"');
    expect(m.text).toMatch(/^ocp_database_query_count_total\{operation="select",state="SUCCESS"\} [1-9]/m);

    expect((await s.req('POST', '/my/api/metrics', { key: null, raw: '' })).status).toBe(200);
    expect((await s.req('DELETE', '/my/api/metrics', { key: null })).status).toBe(200);
    for (const path of ['/metrics', '/health', '/v1/bundles']) expect((await s.req('GET', path)).status).toBe(404);
  });
});

describe('metrics after one git-sourced build (run_git_bundle_build)', () => {
  it('count exactly one git sync and one successful build', async () => {
    const s = await start('one', gitConfig('one'));
    expect(await firstBuild(s)).toMatchObject({ status: 'SUCCESS', phase: 'PUSH' });
    const text = await until('the build metrics', async () => {
      const r = await s.get('/metrics');
      expect(r.status).toBe(200);
      return r.text.includes('ocp_bundle_build_count_total') ? r.text : undefined;
    });
    const repoLabel = `repo="file://${repo}"`;
    expect(lines(text)).toEqual(
      expect.arrayContaining([
        `ocp_git_sync_count_total{${repoLabel},source="git-data",state="SUCCESS"} 1`,
        `ocp_git_sync_duration_seconds_count{${repoLabel},source="git-data"} 1`,
        `ocp_git_sync_duration_seconds_bucket{${repoLabel},source="git-data",le="+Inf"} 1`,
        `ocp_bundle_build_duration_seconds_count{bundle="hello-world"} 1`,
        `ocp_bundle_build_duration_seconds_bucket{bundle="hello-world",le="+Inf"} 1`,
        `ocp_bundle_build_count_total{bundle="hello-world",state="SUCCESS"} 1`,
      ]),
    );
    expect(text).toMatch(/^ocp_git_sync_duration_seconds_sum\{.*source="git-data"\} \d/m);
    expect(text).toMatch(/^ocp_bundle_build_duration_seconds_sum\{bundle="hello-world"\} \d/m);
    // The reference's default buckets.
    expect(text).toContain(`ocp_git_sync_duration_seconds_bucket{${repoLabel},source="git-data",le="0.1"}`);
    expect(text).toContain('ocp_bundle_build_duration_seconds_bucket{bundle="hello-world",le="60"}');
    expect(text).not.toContain('FAILED');
  });

  it('a failing sync counts FAILED and the build state, with no durations (another instance, its own registry)', async () => {
    const s = await start('broken', gitConfig('broken', '', 'no-such-branch'));
    expect(await firstBuild(s)).toMatchObject({ status: 'USER_ERROR', phase: 'SYNC' });
    const text = await until('the build metrics', async () => {
      const r = await s.get('/metrics');
      return r.text.includes('ocp_bundle_build_count_total') ? r.text : undefined;
    });
    expect(lines(text)).toEqual(
      expect.arrayContaining([
        `ocp_git_sync_count_total{repo="file://${repo}",source="git-data",state="FAILED"} 1`,
        'ocp_bundle_build_count_total{bundle="hello-world",state="USER_ERROR"} 1',
      ]),
    );
    expect(familyNames(text)).not.toContain('ocp_git_sync_duration_seconds');
    expect(familyNames(text)).not.toContain('ocp_bundle_build_duration_seconds');
    expect(text).not.toMatch(/^ocp_(git_sync|bundle_build)_count_total\{.*state="SUCCESS"/m);
  });
});

describe('the metrics configuration key', () => {
  it('metrics.enabled: false leaves /metrics answering 200 with no series', async () => {
    const s = await start('off', gitConfig('off', 'metrics: {enabled: false}'));
    expect(await firstBuild(s)).toMatchObject({ status: 'SUCCESS' });
    await new Promise((r) => setTimeout(r, 100));
    const r = await s.get('/metrics');
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('ocp_');
    expect(s.cp.metrics.queryObserver).toBeUndefined();
  });

  it('areas and single metrics switch off; buckets_seconds replaces the default buckets', async () => {
    const extra = `metrics:
  http: {enabled: false}
  gitsync: {git_sync_duration: {buckets_seconds: [0.5, 100]}}
  worker: {bundle_build_count: {enabled: false}}
  database: {database_query_duration: {enabled: false}}
`;
    const s = await start('partial', gitConfig('partial', extra));
    expect(await firstBuild(s)).toMatchObject({ status: 'SUCCESS' });
    const text = await until('the git metrics', async () => {
      const r = await s.get('/metrics');
      return r.text.includes('ocp_git_sync_count_total') ? r.text : undefined;
    });
    await new Promise((r) => setTimeout(r, 100));
    const after = (await s.get('/metrics')).text;
    const buckets = lines(text).filter((l) => l.startsWith('ocp_git_sync_duration_seconds_bucket'));
    expect(buckets.map((l) => /le="([^"]+)"/.exec(l)![1])).toEqual(['0.5', '100', '+Inf']);
    // As in the reference, a disabled build counter also keeps the build duration from being recorded.
    expect(familyNames(after).sort()).toEqual(['ocp_database_query_count_total', 'ocp_git_sync_count_total', 'ocp_git_sync_duration_seconds']);
  });

  it('rejects unknown keys and buckets that do not increase', () => {
    expect(() => parseConfigText('metrics: {gitsync: {bogus: {enabled: true}}}')).toThrow(/configuration validation error/);
    expect(() => parseConfigText('metrics: {enabled: "yes"}')).toThrow(/configuration validation error/);
    expect(() => parseConfigText('metrics: {worker: {bundle_build_duration: {buckets_seconds: [1, 1]}}}')).toThrow(
      /metrics\.worker\.bundle_build_duration\.buckets_seconds must be in increasing order/,
    );
    expect(parseConfigText('metrics: {enabled: true, database: {database_query_count: {enabled: false}}}').metrics).toEqual({
      enabled: true,
      database: { database_query_count: { enabled: false } },
    });
  });
});

describe('label helpers', () => {
  it('handler patterns, statement operations and Go float formatting', () => {
    expect(handlerLabel('/p/v1/bundles/:bundle/status/latest')).toBe('/p/v1/bundles/{bundle}/status/latest');
    expect(handlerLabel('/v1/sources/:source/data/*')).toBe('/v1/sources/{source}/data/{path...}');
    expect(handlerLabel('/v1/sources/:source/data')).toBe('/v1/sources/{source}/data/{path...}');
    expect(databaseOperation('\n  SELECT 1')).toBe('select');
    expect(databaseOperation('WITH x AS (SELECT 1) SELECT * FROM x')).toBe('other');
    expect(databaseOperation('')).toBe('other');
    expect([1e-6, 5e-5, 0.0001, 0.5, 1, 60, 100000, 1e6, 1.5e21, Infinity].map(goFloat)).toEqual(['1e-06', '5e-05', '0.0001', '0.5', '1', '60', '100000', '1e+06', '1.5e+21', '+Inf']);
  });
});
