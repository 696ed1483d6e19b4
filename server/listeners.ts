// The listeners of `regent run --server`, as OPA's: repeatable --addr and
// --diagnostic-addr in the forms host:port, :port, http://, https:// and
// unix://path (abstract unix://@name sockets are refused), https assumed for
// scheme-less addresses when a certificate is configured; TLS with --tls-cert-file,
// --tls-private-key-file, --tls-ca-cert-file and --min-tls-version, client
// certificates required and verified in --authentication=tls mode. Each listener
// is its own node http/https server whose requests go into the one Fastify app
// (app.routing), so routes, hooks and metrics are shared. Diagnostic listeners
// serve only /health, /health/* and /metrics; anything else is 404, after
// authorization when it is on (OPA wraps the diagnostic router in authz too).
// --tls-cipher-suites and reloading of the TLS files (tls-config.ts), --h2c on
// http and unix listeners and graceful shutdown within --shutdown-grace-period
// (connections.ts) and Go's 400 answer to plain HTTP on https listeners
// (tls-connections.ts) are wired in here.
import { lookup } from 'node:dns/promises';
import { chmodSync, lstatSync, readFileSync, unlinkSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import tls from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { handleConnect, sendNotFound, writeNotFound } from './api/http-errors.js';
import { attachTLSPeer } from './auth/identity.js';
import { enableH2C, shutdownServer, type ConnectionSets } from './connections.js';
import { anchorsOf, ciphersOption, openSSLCipherList, pemCertificates, TLSReloader, type TLSMaterial } from './tls-config.js';
import { answerPlainHTTP } from './tls-connections.js';

export type MinTLSVersion = '1.0' | '1.1' | '1.2' | '1.3';
export const MIN_TLS_VERSIONS: readonly MinTLSVersion[] = ['1.0', '1.1', '1.2', '1.3'];
const SECURE_VERSIONS: Record<MinTLSVersion, tls.SecureVersion> = { '1.0': 'TLSv1', '1.1': 'TLSv1.1', '1.2': 'TLSv1.2', '1.3': 'TLSv1.3' };

export interface ListenAddress {
  scheme: 'http' | 'https' | 'unix';
  /** TCP host ('' = all interfaces) and port. */
  host: string;
  port: number;
  /** Unix socket path. */
  path: string;
}

/** Parse one --addr value; scheme-less addresses are https when a certificate is configured. */
export function parseListenAddress(addr: string, httpsByDefault: boolean): ListenAddress {
  const full = addr.includes('://') ? addr : `${httpsByDefault ? 'https' : 'http'}://${addr}`;
  const sep = full.indexOf('://');
  const scheme = full.slice(0, sep).toLowerCase();
  const rest = full.slice(sep + 3);
  if (scheme === 'unix') {
    const path = rest.split(/[?#]/, 1)[0]!;
    if (path === '') throw new Error(`invalid address "${addr}": missing socket path`);
    // Node binds abstract names NUL-padded to the full sun_path, a different
    // name from the one other clients (curl, Go) connect to.
    if (path.startsWith('@')) throw new Error(`invalid address "${addr}": abstract unix sockets are not supported`);
    return { scheme, host: '', port: 0, path };
  }
  if (scheme !== 'http' && scheme !== 'https') throw new Error(`invalid url scheme "${scheme}"`);
  let authority = rest.split(/[/?#]/, 1)[0]!;
  authority = authority.slice(authority.lastIndexOf('@') + 1);
  // Go's http.Server treats an empty address as ":http" / ":https".
  if (authority === '') return { scheme, host: '', port: scheme === 'https' ? 443 : 80, path: '' };
  const m = /^(?:\[([^\]]*)\]|([^:[\]]*)):(\d*)$/.exec(authority);
  if (!m) throw new Error(`invalid address "${addr}": missing port in address (want [host]:port)`);
  const port = m[3] === '' ? 0 : Number(m[3]);
  if (!Number.isInteger(port) || port > 65535) throw new Error(`invalid address "${addr}": bad port`);
  return { scheme, host: m[1] ?? m[2] ?? '', port, path: '' };
}

export interface ListenerOptions {
  addrs: string[];
  diagnosticAddrs?: string[];
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  tlsCACertFile?: string;
  minTLSVersion?: MinTLSVersion;
  /** Require and verify client certificates on https listeners (--authentication=tls). */
  requireClientCert?: boolean;
  /** Whether --authorization=basic is on (diagnostic 404s then come after authz). */
  authorization?: boolean;
  /** Octal mode of unix sockets (OPA's --unix-socket-perm, default 755). */
  unixSocketPerm?: string;
  /** Go / IANA names of the TLS 1.0–1.2 cipher suites allowed (--tls-cipher-suites). */
  tlsCipherSuites?: string[];
  /** Poll the TLS files at this period; 0 (default): reload when they change on disk. */
  tlsCertRefreshMs?: number;
  /** Also serve prior-knowledge HTTP/2 on http and unix listeners (--h2c). */
  h2c?: boolean;
}

export interface ListenerPlan {
  listeners: { address: ListenAddress; diagnostic: boolean }[];
  tls: TLSMaterial;
  options: ListenerOptions;
  /** Unix socket file mode. */
  mode: number;
  /** OpenSSL names of the --tls-cipher-suites (undefined: Node's defaults). */
  ciphers?: string[];
}

function read(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new Error(`read ${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function loadTLS(o: ListenerOptions): TLSMaterial {
  if (!o.tlsCertFile !== !o.tlsPrivateKeyFile) throw new Error('--tls-cert-file and --tls-private-key-file must be specified together');
  const out: TLSMaterial = { anchors: () => [] };
  if (o.tlsCertFile && o.tlsPrivateKeyFile) {
    out.cert = read(o.tlsCertFile, 'TLS certificate file');
    out.key = read(o.tlsPrivateKeyFile, 'TLS private key file');
    try {
      tls.createSecureContext({ cert: out.cert, key: out.key });
    } catch (e) {
      throw new Error(`invalid TLS certificate or key (${o.tlsCertFile}, ${o.tlsPrivateKeyFile}): ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (o.tlsCACertFile) {
    out.ca = read(o.tlsCACertFile, 'CA cert file');
    if (pemCertificates(out.ca.toString('latin1')).length === 0) throw new Error(`failed to parse CA cert "${o.tlsCACertFile}"`);
  }
  out.anchors = anchorsOf(out.ca);
  return out;
}

/** Validate the options and addresses (no sockets yet): every startup error is thrown here. */
export function planListeners(o: ListenerOptions): ListenerPlan {
  const material = loadTLS(o);
  // As in OPA, the cipher suites are checked right after the TLS files.
  const ciphers = o.tlsCipherSuites && o.tlsCipherSuites.length > 0 ? openSSLCipherList(o.tlsCipherSuites) : undefined;
  const httpsByDefault = material.cert !== undefined;
  const listeners = [
    ...o.addrs.map((a) => ({ address: parseListenAddress(a, httpsByDefault), diagnostic: false })),
    ...(o.diagnosticAddrs ?? []).map((a) => ({ address: parseListenAddress(a, httpsByDefault), diagnostic: true })),
  ];
  if (listeners.length === 0) throw new Error('no listen address');
  for (const { address } of listeners)
    if (address.scheme === 'https' && !material.cert) throw new Error('TLS certificate required but not supplied: https listeners need --tls-cert-file and --tls-private-key-file');
  const perm = o.unixSocketPerm ?? '755';
  if (!/^[0-7]{1,4}$/.test(perm)) throw new Error(`invalid --unix-socket-perm "${perm}": want an octal mode such as 755`);
  return { listeners, tls: material, options: o, mode: parseInt(perm, 8), ...(ciphers ? { ciphers } : {}) };
}

export interface Listener {
  url: string;
  diagnostic: boolean;
  /** Graceful shutdown within `graceMs`; resolves to an error text when time ran out. */
  close(graceMs?: number): Promise<string | undefined>;
}

/** The started listeners and their shared TLS reloading. */
export interface Listeners {
  listeners: Listener[];
  /** Shut every listener down concurrently; OPA's error text when some did not finish in time. */
  shutdown(graceMs: number): Promise<string | undefined>;
}

const DIAGNOSTIC_PATH = /^\/(?:health(?:\/.*)?|metrics)$/;
const diagnosticRejects = new WeakSet<IncomingMessage>();

function notFound(res: ServerResponse): void {
  writeNotFound(res);
}

/**
 * Diagnostic requests: /health* and /metrics go to the app. Other paths are 404;
 * with authorization on they still pass the authz hooks first (index.ts's onRequest
 * hook, or its preHandler for bodies the policy may read, registered before this
 * one), which run before the 404 answer here.
 */
function diagnosticHandler(app: FastifyInstance, authorization: boolean): http.RequestListener {
  if (authorization)
    app.addHook('preHandler', (req, reply, done) => {
      if (diagnosticRejects.has(req.raw)) void sendNotFound(reply);
      else done();
    });
  return (req, res) => {
    if (DIAGNOSTIC_PATH.test((req.url ?? '/').split('?', 1)[0]!)) return app.routing(req, res);
    if (!authorization) return notFound(res);
    diagnosticRejects.add(req);
    app.routing(req, res);
  };
}

/** Go listens on one address of a host name, preferring IPv4. */
async function resolveHost(host: string): Promise<string | undefined> {
  if (host === '') return undefined;
  if (isIP(host)) return host;
  const addrs = await lookup(host, { all: true });
  return (addrs.find((a) => a.family === 4) ?? addrs[0])?.address ?? host;
}

/** The secure context of https listeners for the current TLS material. */
function secureContextOptions(plan: ListenerPlan): tls.SecureContextOptions {
  const { options: o, tls: m } = plan;
  const min = o.minTLSVersion ?? '1.2';
  // OpenSSL 3's default security level refuses TLS 1.0/1.1 outright.
  const ciphers = ciphersOption(plan.ciphers, min === '1.0' || min === '1.1');
  return { cert: m.cert, key: m.key, ...(m.ca ? { ca: m.ca } : {}), minVersion: SECURE_VERSIONS[min], ...(ciphers ? { ciphers } : {}) };
}

async function startOne(
  app: FastifyInstance,
  plan: ListenerPlan,
  reloader: TLSReloader | undefined,
  address: ListenAddress,
  handler: http.RequestListener,
  diagnostic: boolean,
): Promise<Listener> {
  const { options: o, tls: material } = plan;
  // Node's own Host check answers 400 without a body; index.ts answers it with the envelope.
  const tcp = address.scheme !== 'unix' ? { keepAlive: true, keepAliveInitialDelay: 180_000, requireHostHeader: false } : { requireHostHeader: false };
  let server: http.Server;
  let connections: ConnectionSets = {};
  if (address.scheme === 'https') {
    const secure = secureContextOptions(plan);
    const requestCert = o.requireClientCert ?? false;
    // No ALPN protocol at all, as OPA v1's listeners (Node would otherwise select http/1.1 and refuse h2-only clients).
    const tlsServer = https.createServer({ ...tcp, ...secure, ALPNProtocols: [], requestCert, rejectUnauthorized: requestCert }, handler);
    connections = answerPlainHTTP(tlsServer);
    if (requestCert) tlsServer.on('secureConnection', (socket: tls.TLSSocket) => attachTLSPeer(socket, material.anchors));
    reloader?.register(tlsServer);
    server = tlsServer;
  } else {
    server = http.createServer(tcp, handler);
    if (o.h2c) connections = enableH2C(server, handler);
  }
  const cfg = app.initialConfig;
  server.keepAliveTimeout = cfg.keepAliveTimeout ?? 72_000;
  server.requestTimeout = (cfg as { requestTimeout?: number }).requestTimeout ?? 0;
  server.setTimeout(cfg.connectionTimeout ?? 0);
  server.on('clientError', (err, socket) => app.server.emit('clientError', err, socket));
  server.on('connect', handleConnect);

  // A leftover socket file is removed first, as OPA does (other files are left alone).
  if (address.scheme === 'unix' && lstatSync(address.path, { throwIfNoEntry: false })?.isSocket()) unlinkSync(address.path);
  const host = address.scheme === 'unix' ? undefined : await resolveHost(address.host);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const done = (): void => {
      server.off('error', reject);
      resolve();
    };
    if (address.scheme === 'unix') server.listen(address.path, done);
    else server.listen({ port: address.port, ...(host !== undefined ? { host } : {}) }, done);
  });
  if (address.scheme === 'unix') chmodSync(address.path, plan.mode);

  const bound = server.address();
  const url =
    typeof bound === 'object' && bound
      ? `${address.scheme}://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`
      : `unix://${address.path}`;
  return { url, diagnostic, close: (graceMs = Infinity) => shutdownServer(server, connections, graceMs) };
}

/**
 * Start every planned listener (the app becomes ready first); on failure, close
 * those started. With an https listener, the TLS files are then reloaded when
 * they change (OPA's default) or polled every --tls-cert-refresh-period.
 */
export async function startListeners(app: FastifyInstance, plan: ListenerPlan): Promise<Listeners> {
  const { options: o } = plan;
  const authorization = o.authorization ?? false;
  const diagnostic = plan.listeners.some((l) => l.diagnostic) ? diagnosticHandler(app, authorization) : undefined;
  await app.ready();
  const main: http.RequestListener = (req, res) => app.regentListener(req, res);
  const https = plan.listeners.some((l) => l.address.scheme === 'https');
  const files = { certFile: o.tlsCertFile, keyFile: o.tlsPrivateKeyFile, caFile: o.tlsCACertFile };
  const reloader = https && (files.certFile || files.caFile) ? new TLSReloader(files, plan.tls, () => secureContextOptions(plan), app.log) : undefined;
  const started: Listener[] = [];
  try {
    for (const l of plan.listeners) started.push(await startOne(app, plan, reloader, l.address, l.diagnostic ? diagnostic! : main, l.diagnostic));
  } catch (e) {
    await Promise.all(started.map((l) => l.close()));
    throw e;
  }
  if (reloader && (o.tlsCertRefreshMs ?? 0) > 0) reloader.startPolling(o.tlsCertRefreshMs!);
  else reloader?.startWatching();
  return {
    listeners: started,
    shutdown: async (graceMs) => {
      reloader?.stop();
      const errors = (await Promise.all(started.map((l) => l.close(graceMs)))).filter((e): e is string => e !== undefined);
      // Go's Server.Shutdown: "error while shutting down: (0) context deadline exceeded. "
      return errors.length > 0 ? `error while shutting down: ${errors.map((e, i) => `(${i}) ${e}. `).join('')}` : undefined;
    },
  };
}
