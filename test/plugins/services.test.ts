// The service client: URL joining, configured headers, bearer credentials
// (inline token and token_path, custom scheme) and config validation.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceClient, ServiceConfigError, parseServices } from '../../server/plugins/services.js';
import { startServer, type TestServer } from './helpers.js';

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

  it('validates the services section', () => {
    expect(() => parseServices({ s: {} })).toThrow(ServiceConfigError);
    expect(() => parseServices({ s: { url: 'not a url' } })).toThrow('service s: invalid url "not a url"');
    expect(() => parseServices({ s: { url: 'http://x', credentials: { bearer: { token: 't' }, oauth2: { token_url: 'https://t' } } } })).toThrow(/a maximum of one credential method/);
    expect(() => parseServices({ s: { url: 'http://x', credentials: { oauth2: { token_url: 'https://t', client_id: 'c' } } } })).toThrow('service s: client_id and client_secret required');
    expect([...parseServices({ one: { url: 'http://a' }, two: { url: 'http://b' } }).keys()]).toEqual(['one', 'two']);
  });
});
