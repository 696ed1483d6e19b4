// Error replies of the HTTP layer, in the same `{code, message}` envelope as every
// API error (errors.ts): unknown paths (404 `resource_not_found`, Go's text
// `404 page not found`), wrong methods (405 `method_not_allowed`, Go's `Method Not
// Allowed`; the Allow header where Go's mux sets it), and requests Node's HTTP
// parser cannot read (the listeners' 'clientError' event): header overflow (431),
// bad Content-Length, Content-Length with Transfer-Encoding, unknown or malformed
// methods, bad chunked framing, header timeouts. Go's net/http answers those with
// plain text; Regent keeps Go's status codes and wraps the reason in the envelope,
// so clients only ever parse one error format. The raw reply closes the
// connection, as Go's does.
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';
import { ApiError, type ApiErrorCode } from './errors.js';

export const NOT_FOUND_MESSAGE = '404 page not found';
export const METHOD_NOT_ALLOWED_MESSAGE = 'Method Not Allowed';

export function notFoundError(): ApiError {
  return new ApiError(404, 'resource_not_found', NOT_FOUND_MESSAGE);
}

export function methodNotAllowedError(): ApiError {
  return new ApiError(405, 'method_not_allowed', METHOD_NOT_ALLOWED_MESSAGE);
}

export function sendNotFound(reply: FastifyReply): FastifyReply {
  const e = notFoundError();
  return reply.code(404).header('content-type', 'application/json').send(Buffer.from(e.body()));
}

/** 405; `allow` lists the methods served (Go's mux sets Allow outside OPA's catch-alls). */
export function sendMethodNotAllowed(reply: FastifyReply, allow?: string[]): FastifyReply {
  if (allow) reply.header('allow', allow.join(', '));
  return reply.code(405).header('content-type', 'application/json').send(Buffer.from(methodNotAllowedError().body()));
}

/** The 404 of a diagnostic listener, written without the app. */
export function writeNotFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'application/json' }).end(notFoundError().body());
}

/** Characters of an RFC 9110 token (a valid method name). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

interface ClientError extends Error {
  code?: string;
  /** The bytes the parser had (a Buffer at run time). */
  rawPacket?: unknown;
}

/** The status and message for a request Node's parser refused (Go's status codes). */
export function clientErrorReply(err: ClientError): { status: number; code: ApiErrorCode; message: string } {
  const bad = (message: string, status = 400): { status: number; code: ApiErrorCode; message: string } => ({ status, code: 'invalid_parameter', message });
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return bad('request header fields too large', 431);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADERS_TIMEOUT':
      return bad('request timeout', 408);
    case 'HPE_INVALID_METHOD': {
      // Go routes any token as a method (and its mux answers 405); other bytes are "invalid method".
      const method = Buffer.isBuffer(err.rawPacket) ? err.rawPacket.toString('latin1').split(' ', 1)[0]! : '';
      if (TOKEN.test(method)) return { status: 405, code: 'method_not_allowed', message: METHOD_NOT_ALLOWED_MESSAGE };
      return bad('invalid method');
    }
    case 'HPE_INVALID_CONTENT_LENGTH':
      return bad('bad Content-Length');
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return bad('both Content-Length and Transfer-Encoding are set');
    case 'HPE_INVALID_TRANSFER_ENCODING':
      // llhttp reports Content-Length with Transfer-Encoding under this code too.
      if (/Content-Length/i.test(err.message)) return bad('both Content-Length and Transfer-Encoding are set');
      return bad('unsupported transfer encoding', 501);
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_STRICT':
      return bad('malformed chunked encoding');
    case 'HPE_INVALID_VERSION':
      return bad('unsupported protocol version', 505);
    case 'HPE_INVALID_URL':
      return bad('invalid request URI');
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_EOF_STATE':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return bad('malformed HTTP request headers');
    default:
      return bad('malformed HTTP request');
  }
}

/** Write an error envelope as a raw HTTP/1.1 response on `socket` and close it. */
export function writeRawError(socket: Socket, status: number, code: ApiErrorCode, message: string): void {
  const body = new ApiError(status, code, message).body();
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  // A response already under way on this connection cannot be followed by another.
  const busy = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (socket.writable && !busy) socket.end(head + body, () => socket.destroy());
  else socket.destroy();
}

/**
 * The listeners' 'clientError' handler (Fastify's clientErrorHandler option):
 * write the envelope as a raw HTTP/1.1 response and close the connection.
 */
export function handleClientError(err: ClientError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const reply = clientErrorReply(err);
  writeRawError(socket, reply.status, reply.code, reply.message);
}

/** CONNECT requests (Node hands them to 'connect', not to the app): no route serves them. */
export function handleConnect(_req: unknown, socket: Socket): void {
  writeRawError(socket, 405, 'method_not_allowed', METHOD_NOT_ALLOWED_MESSAGE);
}

/** HTTP/1.1 requests must name a Host (Go: `missing required Host header`); Node's own check answers without a body. */
export const MISSING_HOST_MESSAGE = 'missing required Host header';
