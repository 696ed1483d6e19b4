// Test PKI for the TLS tests, made at test time with the openssl CLI in a temp
// dir: a CA and the certificates it issues (a server certificate for
// localhost/127.0.0.1, client certificates with chosen subjects, serials and
// SANs), plus client helpers for the listener tests: a request with explicit
// client TLS options over http, https or a unix socket, an HTTP/2 request on a
// session, and a slow upstream server for in-flight requests. (@peculiar/x509
// cannot be loaded here: its tsyringe dependency needs a reflect-metadata
// polyfill that is not installed.)
import { X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Issued {
  certFile: string;
  keyFile: string;
  certPem: string;
  keyPem: string;
  /** DER bytes of the certificate. */
  der: Buffer;
}

export class Pki {
  readonly dir = mkdtempSync(join(tmpdir(), 'regent-tls-'));
  private n = 0;

  path(name: string): string {
    return join(this.dir, name);
  }

  write(name: string, text: string): string {
    writeFileSync(this.path(name), text);
    return this.path(name);
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private openssl(args: string[]): void {
    execFileSync('openssl', args, { cwd: this.dir, stdio: ['ignore', 'ignore', 'pipe'] });
  }

  private load(base: string): Issued {
    const certFile = this.path(`${base}.pem`);
    const keyFile = this.path(`${base}.key`);
    const certPem = readFileSync(certFile, 'utf8');
    return { certFile, keyFile, certPem, keyPem: readFileSync(keyFile, 'utf8'), der: new X509Certificate(certPem).raw };
  }

  /** A self-signed EC P-256 CA with the given subject (openssl -subj form, e.g. /CN=Test CA). */
  ca(subject: string): Issued {
    const base = `ca${++this.n}`;
    this.openssl([
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-sha256', '-days', '2'],
      ...['-keyout', `${base}.key`, '-out', `${base}.pem`, '-subj', subject],
      ...['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    ]);
    return this.load(base);
  }

  /** A certificate signed by `ca`; `extensions` are openssl x509v3 config lines. */
  issue(ca: Issued, subject: string, o: { rsa?: boolean; serial?: string; extensions?: string[] } = {}): Issued {
    const base = `cert${++this.n}`;
    const key = o.rsa ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
    this.openssl(['req', '-new', ...key, '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', subject]);
    const ext = ['subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid', ...(o.extensions ?? [])];
    writeFileSync(this.path(`${base}.ext`), ext.join('\n') + '\n');
    this.openssl([
      ...['x509', '-req', '-in', `${base}.csr`, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-sha256', '-days', '1'],
      ...['-set_serial', o.serial ?? String(1000 + this.n), '-extfile', `${base}.ext`, '-out', `${base}.pem`],
    ]);
    return this.load(base);
  }
}

export interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

export type RequestOptions = https.RequestOptions & { body?: string };

/** One request on a fresh connection (no agent), over http, https or a unix socket. */
export function request(url: string, options: RequestOptions = {}): Promise<Answer> {
  const { body, ...opts } = options;
  const mod = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(url, { agent: false, ...opts }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One HTTP/2 request on a session (GET unless headers say otherwise); resolves to status, content-type and body. */
export function h2get(session: http2.ClientHttp2Session, path: string, headers: http2.OutgoingHttpHeaders = {}): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path, ...headers });
    let status = 0;
    let type = '';
    let body = '';
    stream.on('response', (h) => {
      status = Number(h[':status']);
      type = String(h['content-type'] ?? '');
    });
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => (body += d));
    stream.on('end', () => resolve({ status, type, body }));
    stream.on('error', reject);
  });
}

/** A local server whose requests wait until `release()`; `received` resolves on the first one. */
export function slowUpstream(): { url: Promise<string>; received: Promise<void>; release(): void; close(): Promise<void> } {
  const waiting: ServerResponse[] = [];
  let onReceived!: () => void;
  const received = new Promise<void>((r) => (onReceived = r));
  let released = false;
  const answer = (res: ServerResponse): void => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"slow":"done"}');
  const server = http.createServer((_req: IncomingMessage, res: ServerResponse) => {
    if (released) return answer(res);
    waiting.push(res);
    onReceived();
  });
  const url = new Promise<string>((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)));
  return {
    url,
    received,
    release: () => {
      released = true;
      waiting.splice(0).forEach(answer);
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
