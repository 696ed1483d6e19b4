// Connection handling of the listeners: --h2c and its HTTP/2 server, first-bytes
// sniffing (shared with tls-connections.ts), graceful shutdown.
//
// HTTP/2 (h2Server): a node:http2 server whose requests go to the listener's
// request handler (the one Fastify app), like its HTTP/1 requests. HTTP/2
// pseudo-headers (:method, :path, …) are removed from rawHeaders, which feed
// the authorization input's `headers`, as Go keeps them out of r.Header. The
// https listeners speak HTTP/1.1 only, as OPA's do (tls-connections.ts).
//
// --h2c: HTTP/2 over cleartext on the http and unix listeners, as OPA wraps
// their handler in Go's h2c.NewHandler. A connection that starts with the
// HTTP/2 client preface ("prior knowledge") goes to the HTTP/2 server; any
// other connection goes on to the listener's HTTP/1 server, so HTTP/1.1 is
// still served on the same port. Go's h2c also accepts the HTTP/1.1
// `Upgrade: h2c` dance; here such requests are answered over HTTP/1.1 (the
// Upgrade header is ignored). The first bytes are read by sniffConnections,
// which tls-connections.ts uses too.
//
// Graceful shutdown of one listener, as Go's http.Server.Shutdown does it for
// OPA (--shutdown-grace-period, seconds, default 10): the listening socket is
// closed at once (new connections are refused), idle keep-alive connections
// are closed, and connections still serving a request are polled (1 ms, then
// doubling up to 500 ms) and closed as soon as they become idle. HTTP/2
// sessions (h2c) get a GOAWAY and end when their streams are
// done; connections that have not sent enough to be routed yet are dropped.
// If the deadline passes first, the remaining connections are destroyed and
// the shutdown reports `context deadline exceeded` (Go leaves them to the
// exiting process).
import type http from 'node:http';
import http2 from 'node:http2';
import type net from 'node:net';
import type { Socket } from 'node:net';

/** Connections a listener holds besides its http.Server's own HTTP/1 ones. */
export interface ConnectionSets {
  /** HTTP/2 sessions (h2c, or h2 negotiated on an https listener). */
  sessions?: Set<http2.Http2Session>;
  /** Accepted sockets whose protocol is not known yet. */
  pending?: Set<Socket>;
}

export const DEADLINE_EXCEEDED = 'context deadline exceeded';

function activeConnections(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((err, n) => resolve(err ? 0 : n)));
}

/**
 * Stop `server` gracefully within `graceMs` (≤ 0: only what is already idle;
 * Infinity: wait for every request).
 * Resolves to undefined when every connection ended in time, else to the error text.
 */
export async function shutdownServer(server: http.Server, sets: ConnectionSets, graceMs: number): Promise<string | undefined> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  for (const socket of sets.pending ?? []) socket.destroy();
  for (const session of sets.sessions ?? []) if (!session.closed) session.close();

  let poll: NodeJS.Timeout | undefined;
  let interval = 1;
  const tick = (): void => {
    server.closeIdleConnections();
    interval = Math.min(interval * 2, 500);
    poll = setTimeout(tick, interval);
  };
  poll = setTimeout(tick, interval);

  let deadline: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    if (Number.isFinite(graceMs)) deadline = setTimeout(() => resolve('expired'), Math.max(0, graceMs));
  });
  try {
    const first = await Promise.race([closed.then(() => 'closed' as const), expired]);
    if (first === 'closed') return undefined;
    // With nothing left open the close event is only a moment away (Go checks idleness first).
    if ((await activeConnections(server)) === 0) {
      await closed;
      return undefined;
    }
    server.closeAllConnections();
    for (const session of sets.sessions ?? []) session.destroy();
    await closed;
    return DEADLINE_EXCEEDED;
  } finally {
    clearTimeout(poll);
    clearTimeout(deadline);
  }
}

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/** Strip HTTP/2 pseudo-headers from the raw header list the handlers see. */
function withoutPseudoHeaders(req: http2.Http2ServerRequest): void {
  const raw = req.rawHeaders;
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (!raw[i]!.startsWith(':')) kept.push(raw[i]!, raw[i + 1]!);
  Object.defineProperty(req, 'rawHeaders', { value: kept, configurable: true });
}

/** The HTTP/2 server of a listener and its open sessions. */
export interface H2Server {
  /** Emitting 'connection' with a socket serves HTTP/2 on it. */
  server: http2.Http2Server;
  sessions: Set<http2.Http2Session>;
}

/** An HTTP/2 server feeding `handler` (the listener's request handler) with pseudo-headers removed from rawHeaders. */
export function h2Server(handler: http.RequestListener): H2Server {
  const sessions = new Set<http2.Http2Session>();
  const server = http2.createServer({}, (req, res) => {
    withoutPseudoHeaders(req);
    (handler as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void)(req, res);
  });
  server.on('session', (session: http2.Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  return { server, sessions };
}

/**
 * Look at the first bytes of every new connection of `server` (not listening
 * yet) before its own 'connection' listeners do: bytes are collected until
 * `decide` returns a verdict (undefined: need more), then put back on the
 * paused socket, and `route` gets the socket, the verdict and the server's
 * original connection handling. Undecided sockets are in `pending` (graceful
 * shutdown drops them); they are destroyed when the peer ends or errs first, or
 * after `timeoutMs` without a verdict.
 */
export function sniffConnections<V>(
  server: net.Server,
  pending: Set<Socket>,
  decide: (head: Buffer) => V | undefined,
  route: (socket: Socket, verdict: V, original: (socket: Socket) => void) => void,
  timeoutMs = 0,
): void {
  const listeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  const original = (socket: Socket): void => {
    for (const listener of listeners) listener.call(server, socket);
  };
  server.on('connection', (socket: Socket) => {
    pending.add(socket);
    let head: Buffer = Buffer.alloc(0);
    const drop = (): void => {
      pending.delete(socket);
      socket.destroy();
    };
    if (timeoutMs > 0) socket.setTimeout(timeoutMs, drop);
    const onData = (chunk: Buffer): void => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      const verdict = decide(head);
      if (verdict === undefined) return;
      socket.off('data', onData).off('error', drop).off('end', drop);
      if (timeoutMs > 0) socket.setTimeout(0, drop);
      pending.delete(socket);
      socket.pause();
      socket.unshift(head);
      route(socket, verdict, original);
    };
    socket.on('data', onData).on('error', drop).on('end', drop);
  });
}

/**
 * Make `server` (an http.Server, not listening yet) also speak prior-knowledge
 * h2c. Returns the connection sets graceful shutdown must drain.
 */
export function enableH2C(server: http.Server, handler: http.RequestListener): Required<ConnectionSets> {
  const { server: h2, sessions } = h2Server(handler);
  const pending = new Set<Socket>();
  const decide = (head: Buffer): boolean | undefined => {
    const n = Math.min(head.length, PREFACE.length);
    const isH2 = head.subarray(0, n).equals(PREFACE.subarray(0, n));
    return isH2 && head.length < PREFACE.length ? undefined : isH2;
  };
  sniffConnections(server, pending, decide, (socket, isH2, http1) => {
    // node:http2 reads the bytes already buffered on the socket, then the socket itself.
    if (isH2) h2.emit('connection', socket);
    else {
      http1(socket);
      socket.resume();
    }
  });
  return { sessions, pending };
}
