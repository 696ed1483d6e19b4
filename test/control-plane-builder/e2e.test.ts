// End to end: the control plane (API + SQLite storage + our scheduler) builds a
// bundle to the filesystem; a bundle server with long polling serves it; an
// engine (buildServer + bundle plugin) pulls it. A policy PUT through the
// control plane API changes the engine's decision; the latency from the PUT to
// the changed decision is measured and printed (goal < 2 s).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir } from 'node:fs/promises';
import { createControlPlane, openStorage, type ControlPlane } from '../../server/control-plane/index.js';
import { parseConfig } from '../../server/control-plane/config/load.js';
import { Scheduler } from '../../server/control-plane/scheduler.js';
import { buildServer } from '../../server/index.js';
import { startPlugins, type RunningPlugins } from '../../server/plugins/index.js';
import { serveBundles, type BundleFileServer } from './bundle-server.js';
import { tempDir } from './helpers.js';

const KEY = 'admin-key';
const policy = (allow: boolean) =>
  Buffer.from(`package app\nimport rego.v1\ndefault allow := false\nallow if ${allow ? 'input.user == "alice"' : 'false'}\n`).toString('base64');

let dir: string;
let cleanup: () => Promise<void>;
let cp: ControlPlane;
let cpUrl: string;
let scheduler: Scheduler;
let files: BundleFileServer;
let engine: Awaited<ReturnType<typeof buildServer>>;
let plugins: RunningPlugins;

async function decision(): Promise<unknown> {
  const res = await engine.inject({ method: 'POST', url: '/v1/data/app/allow', payload: { input: { user: 'alice' } } });
  return (res.json() as { result?: unknown }).result;
}

async function until(pred: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const start = performance.now();
  while (!(await pred())) {
    if (performance.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return performance.now() - start;
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('regent-e2e-'));
  const config = parseConfig({
    tokens: { admin: { api_key: KEY, scopes: [{ role: 'administrator' }] } },
    sources: { policy: { files: { 'app/policy.rego': policy(false) } } },
    bundles: { app: { requirements: [{ source: 'policy' }], object_storage: { filesystem: { path: join(dir, 'bundles/app.tar.gz') } } } },
  });
  const dataDir = join(dir, 'data');
  await mkdir(dataDir, { recursive: true });
  const store = openStorage(config, dataDir);
  scheduler = new Scheduler({ store, dataDir, cwd: dir, debounceMs: 20 });
  cp = createControlPlane({ config, dataDir, port: 0, store, scheduler, logLevel: 'silent' });
  cpUrl = await cp.start();
  files = await serveBundles(dir);
  engine = await buildServer({});
  plugins = await startPlugins(
    {
      services: { files: { url: files.url } },
      bundles: { app: { service: 'files', resource: '/bundles/app.tar.gz', polling: { min_delay_seconds: 0.1, max_delay_seconds: 0.2, long_polling_timeout_seconds: 10 } } },
    },
    engine.regent.host,
  );
  engine.regent.attachPlugins(plugins as never);
}, 60_000);

afterAll(async () => {
  await plugins?.stop();
  await engine?.close();
  await files?.close();
  await cp?.stop();
  await cleanup();
});

describe('control plane → object storage → engine', () => {
  it('a policy PUT through the API changes the decision on the engine', async () => {
    await until(async () => (await decision()) === false, 20_000);
    const t0 = performance.now();
    const res = await fetch(`${cpUrl}/v1/sources/policy`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ files: { 'app/policy.rego': policy(true) } }),
    });
    expect(res.status).toBe(200);
    await until(async () => (await decision()) === true, 10_000);
    const latency = performance.now() - t0;
    console.log(`[e2e] PUT /v1/sources/policy → changed decision on the engine: ${latency.toFixed(0)} ms`);
    expect(latency).toBeLessThan(2_000);
    const status = await fetch(`${cpUrl}/v1/bundles/app/status/latest`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(((await status.json()) as { result: { status: string; phase: string } }).result).toMatchObject({ status: 'SUCCESS', phase: 'PUSH' });
  });

  it('a document PUT through the source data API reaches the engine', async () => {
    const t0 = performance.now();
    const res = await fetch(`${cpUrl}/v1/sources/policy/data/flags`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ open: true }),
    });
    expect(res.status).toBe(200);
    await until(async () => {
      const r = await engine.inject({ method: 'GET', url: '/v1/data/flags/open' });
      return (r.json() as { result?: unknown }).result === true;
    }, 10_000);
    const latency = performance.now() - t0;
    console.log(`[e2e] PUT /v1/sources/policy/data/flags → data on the engine: ${latency.toFixed(0)} ms`);
    expect(latency).toBeLessThan(2_000);
  });
});
