// Listeners and TLS through startServer() (server/main.ts): https listeners,
// minimum TLS version, unix sockets, diagnostic listeners, startup errors, and
// --authentication=tls with --authorization=basic (identity and
// client_certificates in the authz input), plus the address parser and the Go
// x509.Certificate JSON of a peer certificate. Certificates are made at test time.
import { X509Certificate } from 'node:crypto';
import { statSync } from 'node:fs';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer, type StartOptions } from '../../server/main.js';
import { parseListenAddress } from '../../server/listeners.js';
import { x509 } from '../../runtime/index.js';
import { Pki, request, type Issued } from './certs.js';

let pki: Pki;
let ca: Issued;
let serverCert: Issued;
let client1: Issued;
let client2: Issued;
let client3: Issued;
let intermediate: Issued;
let strangerCA: Issued;
let stranger: Issued;
const SERIAL = '0x0123456789abcdef0123';
const CLIENT_EXTENSIONS = [
  'basicConstraints=critical,CA:FALSE',
  'keyUsage=critical,digitalSignature,keyEncipherment',
  'extendedKeyUsage=clientAuth',
  'subjectAltName=DNS:client.example,IP:10.1.2.3,URI:spiffe://example.org/ns/a,email:c1@example.org',
];

beforeAll(() => {
  pki = new Pki();
  ca = pki.ca('/CN=Regent Test CA');
  strangerCA = pki.ca('/CN=Other CA');
  serverCert = pki.issue(ca, '/CN=localhost', { extensions: ['extendedKeyUsage=serverAuth', 'subjectAltName=DNS:localhost,IP:127.0.0.1'] });
  client1 = pki.issue(ca, '/O=Acme/CN=client-1', { rsa: true, serial: SERIAL, extensions: CLIENT_EXTENSIONS });
  client2 = pki.issue(ca, '/CN=client-2', { extensions: ['extendedKeyUsage=clientAuth'] });
  intermediate = pki.issue(ca, '/CN=Regent Intermediate', { extensions: ['basicConstraints=critical,CA:TRUE,pathlen:0', 'keyUsage=critical,keyCertSign'] });
  client3 = pki.issue(intermediate, '/CN=client-3', { extensions: ['extendedKeyUsage=clientAuth'] });
  stranger = pki.issue(strangerCA, '/O=Acme/CN=client-1', { extensions: ['extendedKeyUsage=clientAuth'] });
  pki.write('data.json', JSON.stringify({ greeting: 'hello', open: 'door' }));
  pki.write('bad-ca.pem', 'not a certificate\n');
});
afterAll(() => pki?.cleanup());

/** Go's time.Time JSON of a node X509Certificate validity string. */
const goTime = (text: string): string => new Date(text).toISOString().replace('.000', '');

const start = (o: Partial<StartOptions>): Promise<RunningServer> =>
  startServer({ version: '0.1.0-test', tlsCertFile: serverCert.certFile, tlsPrivateKeyFile: serverCert.keyFile, paths: [pki.path('data.json')], ...o });
const trust = (): { ca: string } => ({ ca: ca.certPem });
const as = (c: Issued): { ca: string; cert: string; key: string } => ({ ca: ca.certPem, cert: c.certPem, key: c.keyPem });

/** Complete a TLS handshake with the given client versions; resolves to the protocol or the error code. */
function handshake(url: string, min: tls.SecureVersion, max: tls.SecureVersion): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const s = tls.connect({ host: '127.0.0.1', port: Number(port), ca: ca.certPem, servername: 'localhost', minVersion: min, maxVersion: max, ciphers: 'DEFAULT:@SECLEVEL=0' }, () => {
      resolve(s.getProtocol() ?? '?');
      s.destroy();
    });
    s.on('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
  });
}

describe('parseListenAddress', () => {
  it('accepts OPA address forms', () => {
    expect(parseListenAddress('localhost:8181', false)).toEqual({ scheme: 'http', host: 'localhost', port: 8181, path: '' });
    expect(parseListenAddress(':8181', false)).toEqual({ scheme: 'http', host: '', port: 8181, path: '' });
    expect(parseListenAddress(':8181', true)).toMatchObject({ scheme: 'https', port: 8181 });
    expect(parseListenAddress('http://127.0.0.1:80', true)).toMatchObject({ scheme: 'http', host: '127.0.0.1', port: 80 });
    expect(parseListenAddress('HTTPS://[::1]:8443/ignored', false)).toEqual({ scheme: 'https', host: '::1', port: 8443, path: '' });
    expect(parseListenAddress('unix:///tmp/opa.sock', true)).toEqual({ scheme: 'unix', host: '', port: 0, path: '/tmp/opa.sock' });
    expect(parseListenAddress('127.0.0.1:', false)).toMatchObject({ host: '127.0.0.1', port: 0 });
    expect(parseListenAddress('http://', false)).toMatchObject({ host: '', port: 80 });
  });

  it('rejects bad schemes, missing ports and bad ports', () => {
    expect(() => parseListenAddress('ftp://x:1', false)).toThrow('invalid url scheme "ftp"');
    expect(() => parseListenAddress('localhost', false)).toThrow('missing port');
    expect(() => parseListenAddress('localhost:99999', false)).toThrow('bad port');
    expect(() => parseListenAddress('unix://', false)).toThrow('missing socket path');
    expect(() => parseListenAddress('unix://@opa', false)).toThrow('abstract unix sockets are not supported');
  });
});

describe('https, unix and diagnostic listeners', () => {
  let server: RunningServer;
  let sock: string;

  beforeAll(async () => {
    sock = pki.path('regent.sock');
    // No scheme + a certificate: https. The diagnostic listener is plain http.
    server = await start({ addrs: ['127.0.0.1:0', `unix://${sock}`], diagnosticAddrs: ['http://127.0.0.1:0'] });
  });
  afterAll(() => server?.close());

  it('reports every listener; the first one is url', () => {
    expect(server.urls).toHaveLength(3);
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.urls[1]).toBe(`unix://${sock}`);
    expect(server.diagnosticUrls).toEqual([server.urls[2]]);
    expect(server.urls[2]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('serves /v1/data over https', async () => {
    const r = await request(`${server.url}/v1/data/greeting`, trust());
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ result: 'hello' });
  });

  it('answers plain http on the https port with 400 (as Go), and fails untrusted server certificates', async () => {
    const plain = await request(`${server.url.replace('https:', 'http:')}/v1/data/greeting`);
    expect(plain.status).toBe(400);
    expect(plain.body).toBe('Client sent an HTTP request to an HTTPS server.\n');
    await expect(request(`${server.url}/health`, { ca: strangerCA.certPem })).rejects.toThrow(/self[- ]signed|unable to verify|issuer/i);
  });

  it('uses TLS 1.2 as the default minimum version', async () => {
    expect(await handshake(server.url, 'TLSv1.1', 'TLSv1.1')).toMatch(/^error /);
    expect(await handshake(server.url, 'TLSv1.2', 'TLSv1.2')).toBe('TLSv1.2');
    expect(await handshake(server.url, 'TLSv1.2', 'TLSv1.3')).toBe('TLSv1.3');
  });

  it('answers /health on the unix socket, with mode 755', async () => {
    const r = await request('http://localhost/health', { socketPath: sock });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({});
    expect(statSync(sock).mode & 0o777).toBe(0o755);
  });

  it('serves only /health* and /metrics on the diagnostic listener', async () => {
    const diag = server.diagnosticUrls[0]!;
    expect((await request(`${diag}/health`)).status).toBe(200);
    expect((await request(`${diag}/metrics`)).body).toContain('http_request_duration_seconds');
    for (const path of ['/v1/data', '/v1/data/greeting', '/', '/nope']) {
      const r = await request(`${diag}${path}`);
      expect(r.status, path).toBe(404);
      expect(r.body).toBe('{\n  "code": "resource_not_found",\n  "message": "404 page not found"\n}\n');
    }
  });
});

describe('--min-tls-version and --unix-socket-perm', () => {
  it('passes the minimum version through (1.3 refuses a TLS 1.2 client, 1.1 accepts TLS 1.1)', async () => {
    const strict = await start({ addrs: ['127.0.0.1:0'], minTLSVersion: '1.3' });
    try {
      expect(await handshake(strict.url, 'TLSv1.2', 'TLSv1.2')).toMatch(/^error /);
      expect(await handshake(strict.url, 'TLSv1.3', 'TLSv1.3')).toBe('TLSv1.3');
    } finally {
      await strict.close();
    }
    const lax = await start({ addrs: ['127.0.0.1:0'], minTLSVersion: '1.1' });
    try {
      expect(await handshake(lax.url, 'TLSv1.1', 'TLSv1.1')).toBe('TLSv1.1');
    } finally {
      await lax.close();
    }
  });

  it('sets the socket permissions', async () => {
    const sock = pki.path('perm.sock');
    const s = await startServer({ version: '0.1.0-test', addrs: [`unix://${sock}`], unixSocketPerm: '700' });
    try {
      expect(statSync(sock).mode & 0o777).toBe(0o700);
      expect(s.url).toBe(`unix://${sock}`);
    } finally {
      await s.close();
    }
  });
});

describe('startup errors', () => {
  it('needs a certificate for https listeners, and both files together', async () => {
    await expect(startServer({ version: 't', addrs: ['https://127.0.0.1:0'] })).rejects.toThrow(/TLS certificate required but not supplied/);
    await expect(startServer({ version: 't', addrs: ['127.0.0.1:0'], tlsCertFile: serverCert.certFile })).rejects.toThrow('--tls-cert-file and --tls-private-key-file must be specified together');
  });

  it('rejects unreadable or empty CA files and mismatched keys', async () => {
    await expect(start({ addrs: ['127.0.0.1:0'], tlsCACertFile: pki.path('bad-ca.pem') })).rejects.toThrow(/failed to parse CA cert/);
    await expect(start({ addrs: ['127.0.0.1:0'], tlsCACertFile: pki.path('missing.pem') })).rejects.toThrow(/read CA cert file/);
    await expect(start({ addrs: ['127.0.0.1:0'], tlsPrivateKeyFile: client2.keyFile })).rejects.toThrow(/invalid TLS certificate or key/);
  });
});

describe('--authentication=tls --authorization=basic', () => {
  let server: RunningServer;

  beforeAll(async () => {
    const notBefore = goTime(new X509Certificate(client1.der).validFrom);
    pki.write(
      'authz.rego',
      `package system.authz

default allow := false

allow if input.path[0] == "health"

allow if input.path == ["v1", "data", "open"]

allow if {
	input.identity == "CN=client-1,O=Acme"
	count(input.client_certificates) == 1
	cert := input.client_certificates[0]
	cert.Subject.CommonName == "client-1"
	cert.Subject.Organization == ["Acme"]
	cert.Issuer.CommonName == "Regent Test CA"
	cert.SerialNumber == ${BigInt(SERIAL)}
	cert.Raw == "${client1.der.toString('base64')}"
	cert.NotBefore == "${notBefore}"
	cert.ExtKeyUsage == [2]
	cert.URIs[0].Host == "example.org"
}

allow if {
	input.identity == "CN=client-3"
	[c.Subject.CommonName | c := input.client_certificates[_]] == ["client-3", "Regent Intermediate"]
	input.client_certificates[1].IsCA
	input.client_certificates[1].MaxPathLenZero
}
`,
    );
    server = await start({
      addrs: ['https://127.0.0.1:0'],
      diagnosticAddrs: ['http://127.0.0.1:0'],
      authentication: 'tls',
      authorization: 'basic',
      tlsCACertFile: ca.certFile,
      paths: [pki.path('data.json'), pki.path('authz.rego')],
    });
  });
  afterAll(() => server?.close());

  it('lets client-1 in by its subject and certificate', async () => {
    const r = await request(`${server.url}/v1/data/greeting`, as(client1));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ result: 'hello' });
  });

  it('passes the chain the client sent (leaf, intermediate; not the trusted root)', async () => {
    const r = await request(`${server.url}/v1/data/greeting`, { ca: ca.certPem, cert: client3.certPem + intermediate.certPem, key: client3.keyPem });
    expect(r.status).toBe(200);
  });

  it('rejects another verified client with 401', async () => {
    const r = await request(`${server.url}/v1/data/greeting`, as(client2));
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body)).toEqual({ code: 'unauthorized', message: 'request rejected by administrative policy' });
  });

  it('rejects clients without a certificate or with an untrusted one at the TLS level', async () => {
    await expect(request(`${server.url}/health`, trust())).rejects.toThrow();
    await expect(request(`${server.url}/health`, { ca: ca.certPem, cert: stranger.certPem, key: stranger.keyPem })).rejects.toThrow();
  });

  it('authorizes diagnostic requests first (no identity on plain http), then 404s other paths', async () => {
    const diag = server.diagnosticUrls[0]!;
    expect((await request(`${diag}/health`)).status).toBe(200);
    expect((await request(`${diag}/v1/data/greeting`)).status).toBe(401);
    const open = await request(`${diag}/v1/data/open`);
    expect(open.status).toBe(404);
    expect(open.body).toBe('{\n  "code": "resource_not_found",\n  "message": "404 page not found"\n}\n');
  });
});

describe('client_certificates JSON (Go x509.Certificate)', () => {
  it('mirrors Go for the fields of an RSA client certificate', () => {
    const { identity, json } = x509.goCertificate(client1.der) as { identity: string; json: Record<string, unknown> };
    const node = new X509Certificate(client1.der);
    const jwk = node.publicKey.export({ format: 'jwk' });
    expect(identity).toBe('CN=client-1,O=Acme');
    expect(json.Raw).toBe(client1.der.toString('base64'));
    expect(client1.der.includes(Buffer.from(json.RawTBSCertificate as string, 'base64'))).toBe(true);
    expect(Buffer.from(json.RawSubjectPublicKeyInfo as string, 'base64').equals(node.publicKey.export({ type: 'spki', format: 'der' }))).toBe(true);
    expect(json.SerialNumber).toBe(BigInt(SERIAL));
    expect(BigInt('0x' + node.serialNumber)).toBe(BigInt(SERIAL));
    expect(json).toMatchObject({ Version: 3, SignatureAlgorithm: 10, PublicKeyAlgorithm: 1, KeyUsage: 5, ExtKeyUsage: [2], BasicConstraintsValid: true, IsCA: false, MaxPathLen: -1 });
    const key = json.PublicKey as { N: unknown; E: number };
    expect(key.N).toBe(BigInt('0x' + Buffer.from(jwk.n!, 'base64url').toString('hex')));
    expect(key.E).toBe(65537);
    expect(json.NotBefore).toBe(goTime(node.validFrom));
    expect(json.NotAfter).toBe(goTime(node.validTo));
    expect(json.DNSNames).toEqual(['client.example']);
    expect(json.IPAddresses).toEqual(['10.1.2.3']);
    expect(json.EmailAddresses).toEqual(['c1@example.org']);
    expect(json.URIs).toEqual([{ Scheme: 'spiffe', Opaque: '', User: null, Host: 'example.org', Path: '/ns/a', RawPath: '', OmitHost: false, ForceQuery: false, RawQuery: '', Fragment: '', RawFragment: '' }]);
    expect(json.Subject).toMatchObject({ CommonName: 'client-1', Organization: ['Acme'], Country: null, SerialNumber: '', ExtraNames: null });
    expect((json.Subject as { Names: { Value: string }[] }).Names.map((n) => n.Value)).toEqual(['Acme', 'client-1']);
    expect(json.AuthorityKeyId).toBe((x509.goCertificate(ca.der).json as { SubjectKeyId: string }).SubjectKeyId);
    expect(json.SubjectKeyId).toEqual(expect.any(String));
    expect(json).toMatchObject({ ExtraExtensions: null, UnhandledCriticalExtensions: null, PolicyIdentifiers: null, Policies: null, PermittedDNSDomainsCritical: false, InhibitAnyPolicy: 0 });
    expect(Object.keys(json)).toHaveLength(52);
  });

  it('orders the identity like Go (standard attributes, reversed fixed order, escaped)', () => {
    const c = pki.issue(ca, '/CN=a\\, b/C=GB/OU=x/O=Org/serialNumber=42/emailAddress=x@y.z');
    expect(x509.goCertificate(c.der).identity).toBe('SERIALNUMBER=42,CN=a\\, b,OU=x,O=Org,C=GB');
  });

  it('writes IPs and URIs as Go (net.IP text, url.URL fields)', () => {
    const ip = (hex: string): string => x509.ipString(Buffer.from(hex, 'hex'));
    expect(ip('20010db8000000000000000000000001')).toBe('2001:db8::1');
    expect(ip('00000000000000000000ffff01020304')).toBe('1.2.3.4');
    expect(ip('00000000000000000000000000000000')).toBe('::');
    expect(ip('00010000000100000001000000010000')).toBe('1:0:1:0:1:0:1:0');
    expect(x509.goURL('https://user@h.example:8443/a%2Fb?x=1#frag')).toMatchObject({ Scheme: 'https', User: {}, Host: 'h.example:8443', Path: '/a/b', RawPath: '/a%2Fb', RawQuery: 'x=1', Fragment: 'frag', RawFragment: '' });
    expect(x509.goURL('urn:example:thing')).toMatchObject({ Scheme: 'urn', Opaque: 'example:thing', Path: '', User: null });
    expect(x509.goURL('file:/etc/x?')).toMatchObject({ Scheme: 'file', OmitHost: true, Path: '/etc/x', ForceQuery: true, Host: '' });
  });
});
