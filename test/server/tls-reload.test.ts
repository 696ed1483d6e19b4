// Reloading of the TLS files (--tls-cert-refresh-period polling, or watching
// the files when it is 0) and --tls-cipher-suites, through startServer(), plus
// the reloader's error handling (a bad file keeps the old material and logs).
import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer, type StartOptions } from '../../server/main.js';
import { anchorsOf, TLSReloader, type ReloadLogger } from '../../server/tls-config.js';
import { Pki, request, type Issued } from './certs.js';

let pki: Pki;
let ca: Issued;
let otherCA: Issued;
let first: Issued;
let second: Issued;
let client: Issued;
const SERVER_EXT = ['extendedKeyUsage=serverAuth', 'subjectAltName=DNS:localhost,IP:127.0.0.1'];

beforeAll(() => {
  pki = new Pki();
  ca = pki.ca('/CN=Reload CA');
  otherCA = pki.ca('/CN=Reload CA 2');
  first = pki.issue(ca, '/O=First/CN=localhost', { extensions: SERVER_EXT });
  second = pki.issue(ca, '/O=Second/CN=localhost', { extensions: SERVER_EXT });
  client = pki.issue(otherCA, '/CN=client', { extensions: ['extendedKeyUsage=clientAuth'] });
  pki.write('data.json', JSON.stringify({ greeting: 'hello' }));
});
afterAll(() => pki?.cleanup());

const fingerprint = (c: Issued): string => new X509Certificate(c.certPem).fingerprint256;

/** Files a server is started with, to be replaced during the test. */
function liveFiles(name: string, c: Issued): { certFile: string; keyFile: string } {
  return { certFile: pki.write(`${name}.pem`, c.certPem), keyFile: pki.write(`${name}.key`, c.keyPem) };
}

const start = (files: { certFile: string; keyFile: string }, o: Partial<StartOptions> = {}): Promise<RunningServer> =>
  startServer({ version: 't', addrs: ['127.0.0.1:0'], tlsCertFile: files.certFile, tlsPrivateKeyFile: files.keyFile, paths: [pki.path('data.json')], ...o });

/** The fingerprint of the certificate a fresh connection is served. */
function served(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port: Number(new URL(url).port), ca: ca.certPem, servername: 'localhost' }, () => {
      resolve(s.getPeerX509Certificate()?.fingerprint256 ?? '?');
      s.destroy();
    });
    s.on('error', reject);
  });
}

async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('reloading the certificate', () => {
  it('polls the files every --tls-cert-refresh-period and serves a new certificate to new connections', async () => {
    const files = liveFiles('poll', first);
    const server = await start(files, { tlsCertRefreshMs: 100 });
    try {
      expect(await served(server.url)).toBe(fingerprint(first));
      pki.write('poll.key', second.keyPem);
      pki.write('poll.pem', second.certPem);
      await eventually(async () => (await served(server.url)) === fingerprint(second));
      // A broken certificate file keeps the current certificate.
      pki.write('poll.pem', 'garbage\n');
      await new Promise((r) => setTimeout(r, 350));
      expect(await served(server.url)).toBe(fingerprint(second));
      const r = await request(`${server.url}/v1/data/greeting`, { ca: ca.certPem });
      expect(JSON.parse(r.body)).toEqual({ result: 'hello' });
    } finally {
      await server.close();
    }
  });

  it('reloads changed files without a refresh period (OPA watches them)', async () => {
    const files = liveFiles('watch', first);
    const server = await start(files);
    try {
      expect(await served(server.url)).toBe(fingerprint(first));
      pki.write('watch.pem', second.certPem);
      pki.write('watch.key', second.keyPem);
      await eventually(async () => (await served(server.url)) === fingerprint(second));
    } finally {
      await server.close();
    }
  });

  it('reloads the CA file used for client certificates', async () => {
    const files = liveFiles('mtls', first);
    const caFile = pki.write('mtls-ca.pem', ca.certPem);
    const server = await start(files, { tlsCACertFile: caFile, authentication: 'tls', tlsCertRefreshMs: 100 });
    const asClient = { ca: ca.certPem, cert: client.certPem, key: client.keyPem };
    try {
      await expect(request(`${server.url}/health`, asClient)).rejects.toThrow();
      pki.write('mtls-ca.pem', otherCA.certPem);
      await eventually(() => request(`${server.url}/health`, asClient).then((r) => r.status === 200, () => false));
    } finally {
      await server.close();
    }
  });
});

describe('TLSReloader', () => {
  const recorder = (): ReloadLogger & { lines: string[] } => {
    const lines: string[] = [];
    const rec = (level: string) => (_: object, msg?: string) => void lines.push(`${level}: ${msg ?? ''}`);
    return { lines, info: rec('info'), warn: rec('warn'), error: rec('error'), debug: rec('debug') };
  };

  it('keeps the old material on bad files and reports OPA errors', () => {
    const files = liveFiles('unit', first);
    const caFile = pki.write('unit-ca.pem', ca.certPem);
    const material = { cert: Buffer.from(first.certPem), key: Buffer.from(first.keyPem), ca: Buffer.from(ca.certPem), anchors: anchorsOf(Buffer.from(ca.certPem)) };
    const log = recorder();
    const reloader = new TLSReloader({ ...files, caFile }, material, () => ({}), log);
    expect(reloader.reload()).toBeUndefined();
    expect(log.lines).toEqual([]);

    pki.write('unit.pem', second.certPem);
    pki.write('unit-ca.pem', 'no certificates here\n');
    const err = reloader.reload()!;
    expect(err).toMatch(/^server certificate key pair was not updated, update failed: .+\nfailed to load CA cert pool file ".*unit-ca\.pem"$/);
    expect(log.lines).toEqual(['warn: Server certificate file changed but server key file did not change.']);
    expect(material.cert.toString()).toBe(first.certPem);
    expect(material.ca.toString()).toBe(ca.certPem);

    pki.write('unit.key', second.keyPem);
    pki.write('unit-ca.pem', otherCA.certPem);
    expect(reloader.reload()).toBeUndefined();
    expect(material.cert.toString()).toBe(second.certPem);
    expect(material.anchors()).toEqual([otherCA.der]);
    expect(log.lines.slice(1)).toEqual(['debug: Refreshed server certificate.', 'debug: Refreshed server CA certificate pool.']);

    pki.write('unit.pem', 'x');
    const missing = new TLSReloader({ certFile: pki.path('gone.pem'), keyFile: files.keyFile }, material, () => ({}), log);
    expect(missing.reload()).toMatch(/^failed to hash server certificate file: ENOENT/);
  });

  it('logs polling failures as OPA does', async () => {
    const files = liveFiles('unit2', first);
    const log = recorder();
    const reloader = new TLSReloader(files, { cert: Buffer.from(first.certPem), key: Buffer.from(first.keyPem), anchors: () => [] }, () => ({}), log);
    pki.write('unit2.key', 'broken');
    reloader.startPolling(20);
    await eventually(async () => log.lines.some((l) => l.startsWith('error: Failed to reload TLS config: server certificate key pair was not updated')));
    reloader.stop();
  });
});

/** Handshake at TLS 1.2 (or 1.3) offering the given OpenSSL ciphers; the suite chosen or the error code. */
function handshake(url: string, ciphers: string, version: tls.SecureVersion = 'TLSv1.2'): Promise<string> {
  return new Promise((resolve) => {
    const s = tls.connect({ host: '127.0.0.1', port: Number(new URL(url).port), ca: ca.certPem, servername: 'localhost', minVersion: version, maxVersion: version, ciphers }, () => {
      resolve(s.getCipher().standardName);
      s.destroy();
    });
    s.on('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
  });
}

describe('--tls-cipher-suites', () => {
  it('limits the TLS 1.2 suites to the listed ones (TLS 1.3 unaffected)', async () => {
    const server = await start(liveFiles('ciphers', first), { tlsCipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'] });
    try {
      expect(await handshake(server.url, 'ECDHE-ECDSA-AES256-GCM-SHA384')).toMatch(/^error /);
      expect(await handshake(server.url, 'ECDHE-ECDSA-AES128-SHA')).toMatch(/^error /);
      expect(await handshake(server.url, 'ECDHE-ECDSA-AES128-GCM-SHA256')).toBe('TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256');
      expect(await handshake(server.url, 'ECDHE-ECDSA-CHACHA20-POLY1305')).toBe('TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256');
      expect(await handshake(server.url, tls.DEFAULT_CIPHERS, 'TLSv1.3')).toMatch(/^TLS_AES_|^TLS_CHACHA20/);
    } finally {
      await server.close();
    }
  });

  it('offers Node\'s defaults without the flag', async () => {
    const server = await start(liveFiles('default-ciphers', first));
    try {
      expect(await handshake(server.url, 'ECDHE-ECDSA-AES256-GCM-SHA384')).toBe('TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384');
    } finally {
      await server.close();
    }
  });

  it('rejects unknown and TLS 1.3 suites at startup with OPA\'s messages', async () => {
    const files = liveFiles('bad-ciphers', first);
    await expect(start(files, { tlsCipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'foo'] })).rejects.toThrow(/^invalid cipher suite foo$/);
    await expect(start(files, { tlsCipherSuites: ['TLS_RSA_WITH_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256'] })).rejects.toThrow(/^TLS 1\.3 cipher suite "TLS_AES_128_GCM_SHA256" is not configurable$/);
    // Checked even without TLS, as OPA does.
    await expect(startServer({ version: 't', addrs: ['127.0.0.1:0'], tlsCipherSuites: ['nope'] })).rejects.toThrow('invalid cipher suite nope');
    if (!tls.getCiphers().includes('rc4-sha'))
      await expect(start(files, { tlsCipherSuites: ['TLS_RSA_WITH_RC4_128_SHA'] })).rejects.toThrow(/none of the TLS cipher suites TLS_RSA_WITH_RC4_128_SHA is available/);
  });
});
