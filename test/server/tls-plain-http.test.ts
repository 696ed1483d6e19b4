// What https listeners speak besides HTTP/1.1 over TLS, as OPA v1 does: no ALPN
// protocol (a client offering h2 gets HTTP/1.1), and Go's 400 answer to plain
// HTTP sent to them, byte for byte, on main and diagnostic listeners.
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/main.js';
import { PLAIN_HTTP_ANSWER } from '../../server/tls-connections.js';
import { Pki, request, type Issued } from './certs.js';

let pki: Pki;
let ca: Issued;
let server: RunningServer;

beforeAll(async () => {
  pki = new Pki();
  ca = pki.ca('/CN=Regent TLS CA');
  const cert = pki.issue(ca, '/CN=localhost', { extensions: ['extendedKeyUsage=serverAuth', 'subjectAltName=DNS:localhost,IP:127.0.0.1'] });
  pki.write('data.json', JSON.stringify({ greeting: 'hello' }));
  server = await startServer({
    version: 't',
    tlsCertFile: cert.certFile,
    tlsPrivateKeyFile: cert.keyFile,
    addrs: ['https://127.0.0.1:0'],
    diagnosticAddrs: ['https://127.0.0.1:0'],
    paths: [pki.path('data.json')],
  });
});
afterAll(async () => {
  await server?.close();
  pki?.cleanup();
});

/** The ALPN protocol a TLS client offering `offer` ends up with (false: none). */
function negotiated(url: string, offer: string[] | undefined): Promise<string | false> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port: Number(new URL(url).port), ca: ca.certPem, ...(offer ? { ALPNProtocols: offer } : {}) }, () => {
      resolve(s.alpnProtocol ?? false);
      s.destroy();
    });
    s.on('error', reject);
  });
}

/** Send raw bytes on a fresh TCP connection; resolves to everything received until the server closes. */
function raw(url: string, bytes: string): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const s = net.connect(Number(new URL(url).port), '127.0.0.1', () => s.end(bytes));
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', () => {});
    s.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

describe('https listeners', () => {
  it('negotiate no ALPN protocol, so h2 clients fall back to HTTP/1.1', async () => {
    for (const url of [server.url, server.diagnosticUrls[0]!]) {
      expect(await negotiated(url, ['h2', 'http/1.1'])).toBe(false);
      expect(await negotiated(url, ['h2'])).toBe(false); // accepted, as Go does, not refused with no_application_protocol
      expect(await negotiated(url, undefined)).toBe(false);
    }
    const r = await request(`${server.url}/v1/data/greeting`, { ca: ca.certPem });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ result: 'hello' });
  });

  it("answer plain HTTP with Go's 400, byte for byte, and close", async () => {
    expect(PLAIN_HTTP_ANSWER).toBe('HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n');
    for (const url of [server.url, server.diagnosticUrls[0]!]) {
      for (const method of ['GET /', 'HEAD /', 'POST /v1/data', 'PUT /v1/data/x', 'OPTIONS *']) {
        const answer = await raw(url, `${method} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
        expect(answer.toString('latin1'), method).toBe(PLAIN_HTTP_ANSWER);
      }
    }
  });

  it('leave other non-TLS bytes to TLS (no HTTP answer), as Go answers only its five prefixes', async () => {
    for (const bytes of ['DELETE /v1/data/x HTTP/1.1\r\n\r\n', 'PATCH /v1/data HTTP/1.1\r\n\r\n', 'GET', 'hello\r\n']) {
      const answer = await raw(server.url, bytes);
      expect(answer.toString('latin1').startsWith('HTTP/'), JSON.stringify(bytes)).toBe(false);
    }
    expect((await request(`${server.url}/health`, { ca: ca.certPem })).status).toBe(200);
  });
});
