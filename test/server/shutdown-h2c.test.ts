// Graceful shutdown (--shutdown-grace-period, --shutdown-wait-period) and HTTP/2 cleartext (--h2c)
// through startServer(). The slow request is a real evaluation: a policy whose
// http.send goes to a local server that answers only when the test says so
// (evaluation runs in a worker thread, so the server stays responsive).
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer, type StartOptions } from '../../server/main.js';
import { h2get, Pki, request, slowUpstream } from './certs.js';

let dir: Pki;
beforeAll(() => {
  dir = new Pki();
  dir.write('data.json', JSON.stringify({ greeting: 'hello' }));
});
afterAll(() => dir?.cleanup());

async function slowServer(upstreamUrl: string, o: Partial<StartOptions>): Promise<RunningServer> {
  dir.write('slow.rego', `package slow\n\nr := http.send({"method": "GET", "url": "${upstreamUrl}"}).body\n`);
  return startServer({ version: 't', addrs: ['127.0.0.1:0'], workers: 1, paths: [dir.path('slow.rego')], ...o });
}

const refused = (url: string): Promise<string> =>
  request(`${url}/health`).then(
    (r) => `answered ${r.status}`,
    (e: NodeJS.ErrnoException) => e.code ?? e.message,
  );

describe('--shutdown-grace-period', () => {
  it('lets an in-flight request finish after close() while refusing new connections', async () => {
    const upstream = slowUpstream();
    const server = await slowServer(await upstream.url, { shutdownGracePeriod: 10 });
    try {
      const inFlight = request(`${server.url}/v1/data/slow/r`);
      await upstream.received;
      let closed = false;
      const closing = server.close().then(() => (closed = true));
      expect(await refused(server.url)).toBe('ECONNREFUSED');
      expect(closed).toBe(false);
      upstream.release();
      const r = await inFlight;
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body)).toEqual({ result: { slow: 'done' } });
      await closing;
      expect(closed).toBe(true);
    } finally {
      upstream.release();
      await upstream.close();
    }
  });

  it('closes the connections still busy when the grace period ends, and reports it', async () => {
    const upstream = slowUpstream();
    const server = await slowServer(await upstream.url, { shutdownGracePeriod: 1 });
    try {
      const inFlight = request(`${server.url}/v1/data/slow/r`).then(
        () => 'answered',
        (e: NodeJS.ErrnoException) => e.code ?? e.message,
      );
      await upstream.received;
      const t0 = Date.now();
      await expect(server.close()).rejects.toThrow('error while shutting down: (0) context deadline exceeded. ');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
      expect(await inFlight).toBe('ECONNRESET');
    } finally {
      upstream.release();
      await upstream.close();
    }
  });

  it('keeps serving for --shutdown-wait-period before the shutdown starts', async () => {
    const server = await startServer({ version: 't', addrs: ['127.0.0.1:0'], paths: [dir.path('data.json')], shutdownWaitPeriod: 1 });
    const t0 = Date.now();
    const closing = server.close();
    const during = await request(`${server.url}/v1/data/greeting`);
    expect(during.status).toBe(200);
    await closing;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(await refused(server.url)).toBe('ECONNREFUSED');
  });

  it('does not wait for idle keep-alive connections', async () => {
    const server = await startServer({ version: 't', addrs: ['127.0.0.1:0'], paths: [dir.path('data.json')] });
    const agent = new http.Agent({ keepAlive: true });
    const r = await request(`${server.url}/v1/data/greeting`, { agent });
    expect(r.status).toBe(200);
    const t0 = Date.now();
    await server.close();
    expect(Date.now() - t0).toBeLessThan(2000);
    agent.destroy();
  });
});

describe('--h2c', () => {
  let server: RunningServer;
  let sock: string;

  beforeAll(async () => {
    sock = dir.path('h2c.sock');
    // The authz policy denies requests whose input headers carry HTTP/2 pseudo-headers.
    dir.write('authz.rego', 'package system.authz\n\ndefault allow := false\n\nallow if every k, _ in input.headers { not startswith(k, ":") }\n');
    server = await startServer({
      version: 't',
      addrs: ['127.0.0.1:0', `unix://${sock}`],
      diagnosticAddrs: ['http://127.0.0.1:0'],
      h2c: true,
      authorization: 'basic',
      paths: [dir.path('data.json'), dir.path('authz.rego')],
    });
  });
  afterAll(() => server?.close());

  it('serves prior-knowledge HTTP/2 on the http listener, into the same app', async () => {
    const session = http2.connect(server.url);
    try {
      expect(await h2get(session, '/health')).toEqual({ status: 200, type: 'application/json', body: '{}\n' });
      const data = await h2get(session, '/v1/data/greeting');
      expect(data.status).toBe(200);
      expect(JSON.parse(data.body)).toEqual({ result: 'hello' });
      expect((await h2get(session, '/nope')).status).toBe(404);
    } finally {
      session.close();
    }
  });

  it('still serves HTTP/1.1 on the same port', async () => {
    const r = await request(`${server.url}/v1/data/greeting`);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ result: 'hello' });
  });

  it('speaks h2c on unix sockets and diagnostic listeners too', async () => {
    const unix = http2.connect('http://localhost', { createConnection: () => net.connect(sock) });
    const diag = http2.connect(server.diagnosticUrls[0]!);
    try {
      expect((await h2get(unix, '/v1/data/greeting')).body).toBe('{"result":"hello"}\n');
      expect((await h2get(diag, '/health')).status).toBe(200);
      expect(await h2get(diag, '/v1/data')).toMatchObject({ status: 404, body: '{\n  "code": "resource_not_found",\n  "message": "404 page not found"\n}\n' });
    } finally {
      unix.close();
      diag.close();
    }
  });

  it('closes with an open HTTP/2 session without waiting for the grace period', async () => {
    const s = await startServer({ version: 't', addrs: ['127.0.0.1:0'], h2c: true, paths: [dir.path('data.json')] });
    const session = http2.connect(s.url);
    expect((await h2get(session, '/health')).status).toBe(200);
    const goaway = new Promise<void>((r) => session.once('goaway', () => r()));
    const t0 = Date.now();
    await s.close();
    await goaway;
    expect(Date.now() - t0).toBeLessThan(2000);
    session.destroy();
  });

  it('is off by default: an HTTP/2 client gets no answer over plain http', async () => {
    const s = await startServer({ version: 't', addrs: ['127.0.0.1:0'], paths: [dir.path('data.json')] });
    const session = http2.connect(s.url);
    session.on('error', () => {});
    try {
      await expect(h2get(session, '/health')).rejects.toThrow();
    } finally {
      session.destroy();
      await s.close();
    }
  });
});
