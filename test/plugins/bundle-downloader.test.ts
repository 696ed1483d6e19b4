// The bundle plugin against a real HTTP server: ETag polling with 304s,
// activation of new revisions, corrupt and uncompilable bundles rejected with the
// old bundle kept and the error in the status, HTTP errors, long polling,
// signature checks and persistence.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { signBundle, writeBundle, type Bundle } from '../../runtime/bundles/index.js';
import { fromJS } from '../../runtime/value/index.js';
import { startPlugins, type RunningPlugins } from '../../server/plugins/index.js';
import { FakeHost, startServer, waitFor, type TestServer } from './helpers.js';

const bundle = (rev: string, extra = ''): Bundle => ({
  manifest: { revision: rev, roots: ['app'] },
  modules: [{ path: '/app/p.rego', text: `package app\nallow := true\n${extra}` }],
  data: fromJS({ app: { rev } }),
});

/** A bundle server: serves `current` with its ETag, 304 on a match, optional long polling. */
class BundleServer {
  current: { body: Buffer; etag: string; status?: number } | undefined;
  private waiters: (() => void)[] = [];
  server!: TestServer;

  async start(): Promise<this> {
    this.server = await startServer((req, _body, res) => this.handle(req, res));
    return this;
  }

  publish(body: Buffer, etag: string, status?: number): void {
    this.current = { body, etag, ...(status !== undefined ? { status } : {}) };
    for (const w of this.waiters.splice(0)) w();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const wait = /wait=(\d+)/.exec(String(req.headers.prefer ?? ''));
    const inm = req.headers['if-none-match'];
    if (wait && this.current && inm === this.current.etag) {
      await Promise.race([new Promise<void>((r) => this.waiters.push(r)), new Promise((r) => setTimeout(r, Number(wait[1]) * 1000))]);
    }
    const cur = this.current;
    const ctype = wait ? 'application/vnd.openpolicyagent.bundles' : 'application/gzip';
    if (!cur) {
      res.statusCode = 404;
      return void res.end();
    }
    if (cur.status) {
      res.statusCode = cur.status;
      return void res.end('boom');
    }
    if (inm === cur.etag) {
      res.writeHead(304, { etag: cur.etag, 'content-type': ctype });
      return void res.end();
    }
    res.writeHead(200, { etag: cur.etag, 'content-type': ctype });
    res.end(cur.body);
  }
}

const fast = { min_delay_seconds: 0.02, max_delay_seconds: 0.04 };
let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function setup(bundleCfg: Record<string, unknown> = {}, extra: Record<string, unknown> = {}, opts = {}): Promise<{ bs: BundleServer; host: FakeHost; plugins: RunningPlugins }> {
  const bs = await new BundleServer().start();
  cleanups.push(() => bs.server.close());
  const host = new FakeHost();
  const plugins = await startPlugins(
    { services: { acme: { url: bs.server.url + '/api/' } }, bundles: { main: { service: 'acme', resource: '/bundles/main.tar.gz', polling: fast, ...bundleCfg } }, ...extra },
    host,
    opts,
  );
  cleanups.unshift(() => plugins.stop());
  return { bs, host, plugins };
}

describe('bundle downloader', () => {
  it('activates, then polls with If-None-Match and handles 304', async () => {
    const { bs, host } = await setup();
    bs.publish(await writeBundle(bundle('r1')), '"e1"');
    expect(host.states.get('bundle')).toBeDefined();
    await waitFor(() => host.active.get('main')?.manifest.revision === 'r1', 5000, 'r1');
    await waitFor(() => bs.server.requests.filter((r) => r.headers['if-none-match'] === '"e1"').length >= 2, 5000, '304 polls');
    const r = bs.server.requests[0]!;
    expect(r.url).toBe('/api/bundles/main.tar.gz');
    expect(r.headers.prefer).toBe('modes=snapshot,delta');
    expect(host.activations).toBe(1);
    expect(host.states.get('bundle')).toBe('OK');
    const s = host.lastStatus()!;
    expect(s).toMatchObject({ name: 'main', active_revision: 'r1', type: 'snapshot' });
    expect(s.code).toBeUndefined();
    expect(s.last_successful_request).not.toBe('0001-01-01T00:00:00Z');
    expect(Date.parse(s.last_successful_activation!)).toBeGreaterThan(0);

    bs.publish(await writeBundle(bundle('r2')), '"e2"');
    await waitFor(() => host.active.get('main')?.manifest.revision === 'r2', 5000, 'r2');
    expect(host.active.get('main')!.etag).toBe('"e2"');
  });

  it('keeps the old bundle and reports errors for corrupt, uncompilable and failing downloads', async () => {
    const { bs, host } = await setup();
    bs.publish(await writeBundle(bundle('good')), '"g"');
    await waitFor(() => host.active.get('main')?.manifest.revision === 'good');

    bs.publish(Buffer.from('this is not a tarball'), '"bad"');
    await waitFor(() => host.lastStatus()?.code === 'bundle_error', 5000, 'archive error');
    expect(host.lastStatus()!.message).toMatch(/^archive read failed: /);
    expect(host.active.get('main')!.manifest.revision).toBe('good');
    // After a failure the last *activated* ETag is sent again.
    const n = bs.server.requests.length;
    await waitFor(() => bs.server.requests.length > n + 1);
    expect(bs.server.requests[bs.server.requests.length - 1]!.headers['if-none-match']).toBe('"g"');

    bs.publish(await writeBundle(bundle('broken', 'BROKEN\n')), '"b2"');
    await waitFor(() => host.lastStatus()?.message === 'error(s) occurred while compiling module(s)', 5000, 'compile error');
    expect(host.lastStatus()!.errors).toEqual([{ code: 'rego_parse_error', message: 'unexpected identifier', location: { file: '/app/p.rego', row: 2, col: 1 } }]);
    expect(host.active.get('main')!.manifest.revision).toBe('good');

    bs.publish(Buffer.alloc(0), '"x"', 500);
    await waitFor(() => host.lastStatus()?.http_code === 500, 5000, 'http error');
    expect(host.lastStatus()!.message).toBe('server replied with Internal Server Error');

    bs.publish(await writeBundle(bundle('better')), '"b3"');
    await waitFor(() => host.active.get('main')?.manifest.revision === 'better');
    await waitFor(() => host.lastStatus()?.code === undefined);
    expect(host.lastStatus()!.http_code).toBeUndefined();
  });

  it('long-polls: the server holds the request and answers on change', async () => {
    const { bs, host } = await setup({ polling: { min_delay_seconds: 60, max_delay_seconds: 120, long_polling_timeout_seconds: 5 } });
    bs.publish(await writeBundle(bundle('lp1')), '"l1"');
    await waitFor(() => host.active.get('main')?.manifest.revision === 'lp1');
    // With min_delay 60s only long polling can deliver the next revision quickly.
    // The downloader may have asked before lp1 was published; wait for the request
    // that carries lp1's ETag: that is the held long-poll.
    const held = () => bs.server.requests.find((r) => r.headers['if-none-match'] === '"l1"');
    await waitFor(() => held() !== undefined, 3000, 'held request');
    expect(held()!.headers.prefer).toBe('modes=snapshot,delta;wait=5');
    const t0 = Date.now();
    bs.publish(await writeBundle(bundle('lp2')), '"l2"');
    await waitFor(() => host.active.get('main')?.manifest.revision === 'lp2', 3000, 'lp2');
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('verifies signatures configured through keys and signing', async () => {
    const keys = { k: { key: 'shared-secret', algorithm: 'HS256' } };
    const { bs, host } = await setup({ signing: { keyid: 'k' } }, { keys });
    bs.publish(await writeBundle(bundle('unsigned')), '"u"');
    await waitFor(() => host.lastStatus()?.message === 'bundle missing .signatures.json file');
    bs.publish(await writeBundle(await signBundle(bundle('signed'), { key: 'shared-secret', algorithm: 'HS256', keyId: 'k' })), '"s"');
    await waitFor(() => host.active.get('main')?.manifest.revision === 'signed');
  });

  it('persists activated bundles and loads them at the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-persist-'));
    const { bs, host, plugins } = await setup({ persist: true }, {}, { persistenceDirectory: dir });
    bs.publish(await writeBundle(bundle('kept')), '"k"');
    await waitFor(() => host.active.get('main')?.manifest.revision === 'kept');
    const file = join(dir, 'bundles', 'main', 'bundle.tar.gz');
    await waitFor(() => existsSync(file));
    await plugins.stop();
    bs.publish(Buffer.alloc(0), '"down"', 503);
    const host2 = new FakeHost();
    const again = await startPlugins({ services: { acme: { url: bs.server.url } }, bundles: { main: { service: 'acme', persist: true, polling: fast } } }, host2, { persistenceDirectory: dir });
    cleanups.unshift(() => again.stop());
    expect(host2.active.get('main')?.manifest.revision).toBe('kept');
    expect(host2.states.get('bundle')).toBe('OK');
    await waitFor(() => host2.lastStatus()?.http_code === 503);
    expect(bs.server.requests[bs.server.requests.length - 1]!.url).toBe('/bundles/main');
  });

  it('rejects invalid configuration before starting', async () => {
    const host = new FakeHost();
    await expect(startPlugins({ services: { a: { url: 'http://x' } }, bundles: { b: { service: 'nope' } } }, host)).rejects.toThrow('invalid service name "nope" in bundle "b"');
    await expect(startPlugins({ services: { a: { url: 'http://x' } }, bundles: { b: { polling: { min_delay_seconds: 10, max_delay_seconds: 5 } } } }, host)).rejects.toThrow(/max polling delay must be >= min polling delay/);
    await expect(startPlugins({ services: { a: { url: 'http://x' } }, bundles: { b: { signing: { keyid: 'missing' } } } }, host)).rejects.toThrow(/key id missing not found/);
    await expect(startPlugins({ services: { a: { url: 'http://x', credentials: { oauth2: { token_url: 'http://t', client_id: 'c', client_secret: 's' } } } } }, host)).rejects.toThrow(/token_url required to use https scheme/);
  });
});
