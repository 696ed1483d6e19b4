// Plain HTTP sent to an https listener, answered as Go's net/http answers it.
//
// Go, when the first TLS record header of a connection is not a handshake or
// alert record and its 5 bytes are one of "GET /", "HEAD ", "POST ", "PUT /" or
// "OPTIO", writes `HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request
// to an HTTPS server.\n` on the raw connection and closes it. Here the first
// bytes of each new connection are looked at before TLS sees them: a connection
// whose first byte cannot begin one of those prefixes (a TLS ClientHello begins
// with 0x16) goes to TLS at once, unchanged; one that sends such a prefix gets
// Go's answer; anything else goes to TLS, which fails it as before. A connection
// that stays silent is closed after 120 s, Node's TLS handshake timeout.
//
// The https listeners negotiate no ALPN protocol and serve HTTP/1.1 only, as OPA
// v1 does: the tls.Config its GetConfigForClient returns has no NextProtos, so Go
// selects no protocol (a client offering h2 falls back to HTTP/1.1).
import type https from 'node:https';
import type { Socket } from 'node:net';
import { sniffConnections } from './connections.js';

/** Go's answer to plain HTTP on a TLS listener (net/http server.go), byte for byte. */
export const PLAIN_HTTP_ANSWER = 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n';

/** Go's tlsRecordHeaderLooksLikeHTTP: the 5-byte record headers taken for plain HTTP. */
const HTTP_RECORD_HEADERS = ['GET /', 'HEAD ', 'POST ', 'PUT /', 'OPTIO'];

/** Node's default TLS handshake timeout, which used to cover these connections from accept. */
const HANDSHAKE_TIMEOUT_MS = 120_000;

/** 'http' when the first 5 bytes are one of Go's plain-HTTP headers, 'tls' when they cannot be, undefined: need more. */
export function classifyFirstBytes(head: Buffer): 'http' | 'tls' | undefined {
  const prefix = head.toString('latin1', 0, Math.min(head.length, 5));
  if (!HTTP_RECORD_HEADERS.some((h) => h.startsWith(prefix))) return 'tls';
  return head.length < 5 ? undefined : 'http';
}

/** Answer plain HTTP as Go does and close the connection. */
function writePlainHTTPAnswer(socket: Socket): void {
  socket.end(PLAIN_HTTP_ANSWER, () => socket.destroy());
}

/**
 * Make `server` (an https.Server, not listening yet) answer plain HTTP as Go
 * does. Call it before adding other 'connection' listeners. Returns the
 * connections still being looked at, which graceful shutdown must drop.
 */
export function answerPlainHTTP(server: https.Server): { pending: Set<Socket> } {
  const pending = new Set<Socket>();
  sniffConnections(
    server,
    pending,
    classifyFirstBytes,
    (socket, verdict, tls) => {
      // TLS reads the bytes already buffered on the socket, then the socket itself.
      if (verdict === 'tls') tls(socket);
      else writePlainHTTPAnswer(socket);
    },
    HANDSHAKE_TIMEOUT_MS,
  );
  return { pending };
}
