// Connection handling of the listeners: --h2c and graceful shutdown.
//
// --h2c: HTTP/2 over cleartext on the http and unix listeners, as OPA wraps
// their handler in Go's h2c.NewHandler. A connection that starts with the
// HTTP/2 client preface ("prior knowledge") is handed to a node:http2 server;
// any other connection goes on to the listener's HTTP/1 server, so HTTP/1.1 is
// still served on the same port. Both feed the same request handler (the one
// Fastify app). Go's h2c also accepts the HTTP/1.1 `Upgrade: h2c` dance; here
// such requests are answered over HTTP/1.1 (the Upgrade header is ignored).
// HTTP/2 pseudo-headers (:method, :path, …) are removed from rawHeaders, which
// feed the authorization input's `headers`, as Go keeps them out of r.Header.
//
// Graceful shutdown of one listener, as Go's http.Server.Shutdown does it for
// OPA (--shutdown-grace-period, seconds, default 10): the listening socket is
// closed at once (new connections are refused), idle keep-alive connections
// are closed, and connections still serving a request are polled (1 ms, then
// doubling up to 500 ms) and closed as soon as they become idle. HTTP/2 (h2c)
// sessions get a GOAWAY and end when their streams are done; connections that
// have not sent anything yet are dropped. If the deadline passes first, the
// remaining connections are destroyed and the shutdown reports
// `context deadline exceeded` (Go leaves them to the exiting process).
import type http from 'node:http';
import http2 from 'node:http2';
import type { Socket } from 'node:net';

/** Connections a listener holds besides its http.Server's own HTTP/1 ones. */
export interface ConnectionSets {
  /** h2c sessions. */
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

/**
 * Make `server` (an http.Server, not listening yet) also speak prior-knowledge
 * h2c. Returns the connection sets graceful shutdown must drain.
 */
export function enableH2C(server: http.Server, handler: http.RequestListener): Required<ConnectionSets> {
  const sessions = new Set<http2.Http2Session>();
  const pending = new Set<Socket>();
  const h2 = http2.createServer({}, (req, res) => {
    withoutPseudoHeaders(req);
    (handler as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void)(req, res);
  });
  h2.on('session', (session: http2.Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });

  // The HTTP/1 server's own connection listener runs for non-HTTP/2 connections.
  const http1 = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    pending.add(socket);
    let head = Buffer.alloc(0);
    const drop = (): void => {
      pending.delete(socket);
      socket.destroy();
    };
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const n = Math.min(head.length, PREFACE.length);
      const isH2 = head.subarray(0, n).equals(PREFACE.subarray(0, n));
      if (isH2 && head.length < PREFACE.length) return;
      socket.off('data', onData).off('error', drop).off('end', drop);
      pending.delete(socket);
      socket.pause();
      socket.unshift(head);
      if (isH2) {
        // node:http2 reads the bytes already buffered on the socket, then the socket itself.
        h2.emit('connection', socket);
        return;
      }
      for (const listener of http1) listener.call(server, socket);
      socket.resume();
    };
    socket.on('data', onData).on('error', drop).on('end', drop);
  });
  return { sessions, pending };
}
