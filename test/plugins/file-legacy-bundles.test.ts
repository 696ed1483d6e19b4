// `file://` bundle resources (read from a local tar.gz or directory once at
// start and on every trigger, no service needed, same activation and status
// path as downloads) and the deprecated single `bundle` key mapped onto one
// bundle source, including the legacy top-level provenance `revision`.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBundle, type Bundle } from '../../runtime/bundles/index.js';
import { fromJS } from '../../runtime/value/index.js';
import { buildServer } from '../../server/index.js';
import { loadConfig } from '../../server/config/config.js';
import { parseBundleSources, parseLegacyBundleConfig } from '../../server/plugins/bundle-config.js';
import { parseServices, startPlugins, type RunningPlugins } from '../../server/plugins/index.js';
import { FakeHost, startServer, waitFor } from './helpers.js';

const bundle = (rev: string, extra = ''): Bundle => ({
  manifest: { revision: rev, roots: ['app'] },
  modules: [{ path: '/app/p.rego', text: `package app\nallow := true\n${extra}` }],
  data: fromJS({ app: { rev } }),
});

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups) await c();
  cleanups = [];
});

async function start(config: Record<string, unknown>, host = new FakeHost()): Promise<RunningPlugins> {
  const p = await startPlugins(config, host, { random: () => 0.5 });
  cleanups.push(() => p.stop());
  return p;
}

describe('file:// bundle resources', () => {
  it('loads a tar.gz once without a service, re-reads it on trigger, keeps the old bundle on errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-file-bundle-'));
    const file = join(dir, 'bundle.tar.gz');
    writeFileSync(file, await writeBundle(bundle('one')));
    const host = new FakeHost();
    const p = await start({ bundles: { app: { resource: `file://${file}`, polling: { min_delay_seconds: 0.01, max_delay_seconds: 0.02 } } } }, host);
    await waitFor(() => host.active.get('app')?.manifest.revision === 'one', 5000, 'activation');
    expect(host.states.get('bundle')).toBe('OK');
    const s = p.downloaders.get('app')!.status();
    expect(s).toMatchObject({ name: 'app', active_revision: 'one', type: 'snapshot' });
    expect(s.size).toBeUndefined();
    expect(s.code).toBeUndefined();
    expect(s.last_successful_download).not.toBe('0001-01-01T00:00:00Z');
    expect(s.last_successful_request).toBe(s.last_request);

    // No polling: a changed file is only picked up by a trigger.
    writeFileSync(file, await writeBundle(bundle('two')));
    await new Promise((r) => setTimeout(r, 100));
    expect(host.activations).toBe(1);
    await p.triggerBundles();
    expect(host.active.get('app')?.manifest.revision).toBe('two');

    writeFileSync(file, await writeBundle(bundle('three', 'BROKEN')));
    await p.triggerBundles();
    expect(host.active.get('app')?.manifest.revision).toBe('two');
    expect(p.downloaders.get('app')!.status()).toMatchObject({ code: 'bundle_error', message: 'error(s) occurred while compiling module(s)', active_revision: 'two' });
  });

  it('loads a directory, and reports a missing path as OPA does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-dir-bundle-'));
    mkdirSync(join(dir, 'app'));
    writeFileSync(join(dir, '.manifest'), JSON.stringify({ revision: 'dir-1', roots: ['app'] }));
    writeFileSync(join(dir, 'app', 'p.rego'), 'package app\nallow := true\n');
    writeFileSync(join(dir, 'app', 'data.json'), '{"x": 1}');
    const missing = join(dir, 'nope.tar.gz');
    const host = new FakeHost();
    // A `service` naming nothing is not checked for file:// resources.
    const p = await start({ bundles: { d: { resource: `file://${dir}`, trigger: 'manual' }, m: { resource: `file://${missing}`, service: 'unknown' } } }, host);
    await waitFor(() => host.active.has('d'), 5000, 'directory activation');
    expect(host.active.get('d')!.manifest.revision).toBe('dir-1');
    await waitFor(() => p.downloaders.get('m')!.status().code !== undefined, 5000, 'missing error');
    expect(p.downloaders.get('m')!.status()).toMatchObject({ code: 'bundle_error', message: `stat ${missing}: no such file or directory` });
    expect(p.downloaders.get('m')!.status().last_successful_request).toBe('0001-01-01T00:00:00Z');
    expect(host.states.get('bundle')).toBe('NOT_READY');
  });

  it('rejects a malformed file URL at config time', async () => {
    await expect(startPlugins({ bundles: { x: { resource: 'file://[bad' } } }, new FakeHost())).rejects.toThrow(/invalid URL for bundle "x"/);
  });
});

describe('the deprecated single `bundle` key', () => {
  const services = parseServices({ a: { url: 'http://a.invalid' }, b: { url: 'http://b.invalid' } });

  it('maps name/prefix/service/polling onto one source as OPA does', () => {
    expect(parseLegacyBundleConfig({ name: 'authz' }, services)).toMatchObject({ name: 'authz', service: 'a', resource: 'bundles/authz', persist: false, trigger: 'periodic', polling: { minDelayMs: 60000, maxDelayMs: 120000 } });
    expect(parseLegacyBundleConfig({ name: 'x/y', service: 'b', prefix: '/v1/b/', polling: { min_delay_seconds: 5, max_delay_seconds: 6 } }, services)).toMatchObject({
      service: 'b',
      resource: 'v1/b/x/y',
      polling: { minDelayMs: 5000, maxDelayMs: 6000 },
    });
    expect(parseLegacyBundleConfig({ name: 'n', prefix: '' }, services)!.resource).toBe('n');
    expect(() => parseLegacyBundleConfig({ service: 'a' }, services)).toThrow('invalid bundle name ""');
    expect(() => parseLegacyBundleConfig({ name: 'n', service: 'zz' }, services)).toThrow('invalid configuration for bundle "n": service name "zz" not found');
    expect(() => parseLegacyBundleConfig({ name: 'n' }, new Map())).toThrow('service name "" not found');
    // `bundle` wins over `bundles`.
    const both = parseBundleSources({ bundle: { name: 'old' }, bundles: { new: {} } }, services, {});
    expect(both.legacy).toBe(true);
    expect(both.sources.map((s) => s.name)).toEqual(['old']);
  });

  it('downloads and activates through the engine, with a top-level provenance revision', async () => {
    const body = await writeBundle({
      manifest: { revision: 'legacy-7', roots: ['app'] },
      modules: [{ path: '/app/authz.rego', text: 'package app\n\nallow := true\n' }],
      data: fromJS({}),
    });
    const remote = await startServer((req, _body, res) => {
      if (req.url !== '/v1/b/authz') {
        res.statusCode = 404;
        return void res.end();
      }
      res.writeHead(200, { etag: '"1"', 'content-type': 'application/gzip' });
      res.end(body);
    });
    cleanups.push(() => remote.close());
    const config = loadConfig({
      text: JSON.stringify({ services: { cp: { url: remote.url } }, bundle: { name: 'authz', prefix: 'v1/b', polling: { min_delay_seconds: 10, max_delay_seconds: 20 } } }),
      version: 'test',
    });
    const app = await buildServer({ config });
    const plugins = await startPlugins(config.document, app.regent.host);
    app.regent.attachPlugins(plugins);
    cleanups.unshift(() => app.close());
    expect(plugins.legacyBundle).toBe(true);
    await waitFor(() => app.regent.host.activeBundles().length === 1, 10000, 'activation');
    const r = await app.inject({ method: 'GET', url: '/v1/data/app/allow?provenance' });
    const prov = (JSON.parse(r.body) as { provenance: Record<string, unknown> }).provenance;
    expect(prov.revision).toBe('legacy-7');
    expect(prov.bundles).toBeUndefined();
    expect((await app.inject({ method: 'GET', url: '/health?bundles' })).statusCode).toBe(200);
  });
});
