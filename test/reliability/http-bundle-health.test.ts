// Issue 10, item 8 and "a health signal for failing downloads": a real
// `regent run --server` pulls a bundle from a local service, which then starts
// failing. Checked: /health?bundles keeps answering 200 {} (OPA's documented
// behaviour: the bundle was activated), while /health?plugins answers 500 and
// /v1/status shows the bundle plugin in state WARN (OPA's "operating, but
// degraded") with the failure, and the bundle status carries the error; the old
// revision keeps serving; once downloads succeed again everything is OK.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBundle } from '../../runtime/bundles/index.js';
import { fromJS } from '../../runtime/value/index.js';
import { probeDuring, reportProbe, send, withServer, type RunningServer } from './helpers.js';

interface Service {
  url: string;
  mode: 'ok' | 'fail';
  body: Buffer;
  etag: string;
  server: Server;
}

async function bundleBody(rev: string, admin: string): Promise<Buffer> {
  return writeBundle({
    manifest: { revision: rev, roots: ['app'] },
    modules: [{ path: '/app/authz.rego', text: 'package app\n\ndefault allow := false\n\nallow if input.user == data.app.admin\n' }],
    data: fromJS({ app: { admin } }),
  });
}

async function startService(): Promise<Service> {
  const svc = { mode: 'ok', body: Buffer.alloc(0), etag: '"1"' } as Service;
  svc.server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/status')) return void res.writeHead(200).end();
      if (svc.mode === 'fail') return void res.writeHead(500).end('down');
      if (req.headers['if-none-match'] === svc.etag) return void res.writeHead(304).end();
      res.writeHead(200, { etag: svc.etag, 'content-type': 'application/gzip' }).end(svc.body);
    });
  });
  await new Promise<void>((r) => svc.server.listen(0, '127.0.0.1', r));
  svc.url = `http://127.0.0.1:${(svc.server.address() as AddressInfo).port}`;
  return svc;
}

async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const get = (srv: RunningServer, path: string) => send(srv, { method: 'GET', path });

describe('a failing bundle download is visible in /health?plugins and /v1/status (item 8)', () => {
  let svc: Service;
  beforeAll(async () => {
    svc = await startService();
    svc.body = await bundleBody('one', 'alice');
  });
  afterAll(async () => {
    await new Promise((r) => svc?.server.close(r));
  });

  it('reports WARN while downloads fail, keeps /health?bundles at 200 {}, recovers', async () => {
    const config = [
      'services:',
      '  cp:',
      `    url: ${svc.url}`,
      'bundles:',
      '  authz:',
      '    service: cp',
      '    resource: /bundles/authz.tar.gz',
      '    polling: {min_delay_seconds: 0.2, max_delay_seconds: 0.3}',
      'status:',
      '  service: cp',
      '',
    ].join('\n');
    await withServer({ config }, async (srv) => {
      const allow = async (user: string): Promise<string> => (await send(srv, { path: '/v1/data/app/allow', body: JSON.stringify({ input: { user } }) })).text;
      await until('activation', async () => (await get(srv, '/health?plugins')).status === 200);
      expect((await get(srv, '/health?bundles')).text).toBe('{}\n');
      expect(await allow('alice')).toBe('{"result":true}\n');

      svc.mode = 'fail';
      const { probe } = await probeDuring(srv, () => until('plugins degraded', async () => (await get(srv, '/health?plugins')).status === 500));
      reportProbe('bundle downloads failing', probe);
      expect(probe.worstMs).toBeLessThan(2000);
      expect((await get(srv, '/health?plugins')).json()).toEqual({ error: 'one or more plugins are not up' });
      const bundles = await get(srv, '/health?bundles');
      expect([bundles.status, bundles.text]).toEqual([200, '{}\n']);
      const status = (await get(srv, '/v1/status')).json() as { result: { plugins: Record<string, { state: string; message?: string }>; bundles: Record<string, { code?: string; http_code?: number }> } };
      expect(status.result.plugins.bundle!.state).toBe('WARN');
      expect(status.result.plugins.bundle!.message).toMatch(/^bundle authz: /);
      expect(status.result.bundles.authz!.code).toBe('bundle_error');
      expect(await allow('alice')).toBe('{"result":true}\n'); // the old revision still serves

      svc.body = await bundleBody('two', 'bob');
      svc.etag = '"2"';
      svc.mode = 'ok';
      await until('recovery', async () => (await get(srv, '/health?plugins')).status === 200);
      const recovered = (await get(srv, '/v1/status')).json() as { result: { plugins: Record<string, { state: string }> } };
      expect(recovered.result.plugins.bundle!.state).toBe('OK');
      expect(await allow('bob')).toBe('{"result":true}\n');
      expect(srv.alive()).toBe(true);
    });
  });
});
