// The service client: URL joining, configured headers, bearer credentials
// (inline token and token_path, custom scheme), OAuth2 client credentials against a
// local https token endpoint, and config validation.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceClient, ServiceConfigError, parseServices } from '../../server/plugins/services.js';
import { startServer, type TestServer } from './helpers.js';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Pki } from '../server/certs.js';

let server: TestServer | undefined;
const clients: ServiceClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await server?.close();
});

describe('services', () => {
  it('sends configured headers and bearer tokens', async () => {
    server = await startServer((_req, _body, res) => void res.end('ok'));
    const dir = mkdtempSync(join(tmpdir(), 'regent-svc-'));
    writeFileSync(join(dir, 'token'), '  from-file\n');
    const services = parseServices([
      { name: 'a', url: server.url + '/base/', headers: { 'X-Tenant': 't1' }, credentials: { bearer: { token: 'abc' } } },
      { name: 'b', url: server.url, credentials: { bearer: { token_path: join(dir, 'token'), scheme: 'Token' } } },
    ]);
    const a = new ServiceClient(services.get('a')!, 'Regent/test');
    const b = new ServiceClient(services.get('b')!);
    clients.push(a, b);
    const res = await a.request('GET', '/bundles/x');
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('ok');
    await b.request('POST', 'logs', { body: '[]' });
    const [ra, rb] = server.requests;
    expect(ra!.url).toBe('/base/bundles/x');
    expect(ra!.headers.authorization).toBe('Bearer abc');
    expect(ra!.headers['x-tenant']).toBe('t1');
    expect(ra!.headers['user-agent']).toBe('Regent/test');
    expect(rb!.url).toBe('/logs');
    expect(rb!.headers.authorization).toBe('Token from-file');
  });

  it('gets an OAuth2 client_credentials token over https, sends it, and reuses it until it nears expiry', async () => {
    const pki = new Pki();
    const ca = pki.ca('/CN=Token CA');
    const cert = pki.issue(ca, '/CN=localhost', { extensions: ['subjectAltName=DNS:localhost,IP:127.0.0.1'] });
    let issued = 0;
    const seen: { url: string; authorization?: string; contentType?: string }[] = [];
    const tokenServer = createHttpsServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', authorization: req.headers.authorization, contentType: req.headers['content-type'] });
        if (req.url === '/token') {
          const form = new URLSearchParams(Buffer.concat(chunks).toString());
          const ok = req.headers.authorization === `Basic ${Buffer.from('regent:s3cret').toString('base64')}` && form.get('grant_type') === 'client_credentials' && form.get('scope') === 'read write';
          res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
          res.end(ok ? JSON.stringify({ access_token: `tok-${++issued}`, token_type: 'bearer', expires_in: 3600 }) : '{"error":"invalid_client"}');
          return;
        }
        res.writeHead(req.headers.authorization === 'Bearer tok-1' ? 200 : 401);
        res.end();
      });
    });
    await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
    const base = `https://localhost:${(tokenServer.address() as AddressInfo).port}`;
    const service = (secret: string) =>
      new ServiceClient(
        parseServices({ s: { url: base, tls: { ca_cert: ca.certFile }, credentials: { oauth2: { token_url: base + '/token', client_id: 'regent', client_secret: secret, scopes: ['read', 'write'] } } } }).get('s')!,
      );
    try {
      const ok = service('s3cret');
      clients.push(ok);
      expect((await ok.request('GET', '/bundles/b')).status).toBe(200);
      expect((await ok.request('GET', '/bundles/b')).status).toBe(200);
      expect(issued).toBe(1);
      expect(seen.map((r) => r.url)).toEqual(['/token', '/bundles/b', '/bundles/b']);
      expect(seen[0]!.contentType).toBe('application/x-www-form-urlencoded');
      const wrong = service('nope');
      clients.push(wrong);
      await expect(wrong.request('GET', '/bundles/b')).rejects.toThrow('error in response from OAuth2 token endpoint: {"error":"invalid_client"}');
    } finally {
      await new Promise((resolve) => tokenServer.close(resolve));
      pki.cleanup();
    }
  });

  it('requires an https token_url for OAuth2, as OPA does', () => {
    expect(() => parseServices({ s: { url: 'http://x', credentials: { oauth2: { token_url: 'http://t/token', client_id: 'c', client_secret: 's' } } } })).toThrow('service s: token_url required to use https scheme');
  });

  it('validates the services section', () => {
    expect(() => parseServices({ s: {} })).toThrow(ServiceConfigError);
    expect(() => parseServices({ s: { url: 'not a url' } })).toThrow('service s: invalid url "not a url"');
    expect(() => parseServices({ s: { url: 'http://x', credentials: { bearer: { token: 't' }, oauth2: { token_url: 'https://t' } } } })).toThrow(/a maximum of one credential method/);
    expect(() => parseServices({ s: { url: 'http://x', credentials: { oauth2: { token_url: 'https://t', client_id: 'c' } } } })).toThrow('service s: client_id and client_secret required');
    expect([...parseServices({ one: { url: 'http://a' }, two: { url: 'http://b' } }).keys()]).toEqual(['one', 'two']);
  });
});
