// Writing responses: JSON bodies (Content-Type application/json), empty bodies,
// OPA error envelopes, and gzip compression for the endpoints OPA compresses
// (GET/POST under /v0/data and /v1/data, POST under /v1/compile) when the client
// accepts gzip and the body reaches server.encoding.gzip.min_length.
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toApiError, type ApiError, type ErrorContext } from './errors.js';

export interface EncodingOptions {
  gzipMinLength: number;
  gzipLevel: number;
}

/** Route config flag: this route's responses may be gzip-compressed. */
export interface RouteFlags {
  gzip?: boolean;
  /** Label for the http_request_duration_seconds metric (OPA's handler names). */
  handler?: string;
}

function acceptsGzip(req: FastifyRequest): boolean {
  const header = req.headers['accept-encoding'];
  if (!header) return false;
  return String(header)
    .split(',')
    .some((t) => {
      const token = t.trim();
      return token === 'gzip' || token.startsWith('gzip;');
    });
}

function encodingOf(req: FastifyRequest): EncodingOptions {
  return (req.server as unknown as { regentEncoding: EncodingOptions }).regentEncoding;
}

function send(req: FastifyRequest, reply: FastifyReply, status: number, contentType: string, text: string): FastifyReply {
  reply.code(status).header('content-type', contentType);
  const flags = (reply.routeOptions.config ?? {}) as RouteFlags;
  if (flags.gzip) {
    reply.header('vary', 'Accept-Encoding');
    const enc = encodingOf(req);
    const bytes = Buffer.from(text, 'utf8');
    if (acceptsGzip(req) && bytes.length >= enc.gzipMinLength) {
      reply.header('content-encoding', 'gzip');
      return reply.send(gzipSync(bytes, { level: enc.gzipLevel }));
    }
    return reply.send(bytes);
  }
  return reply.send(Buffer.from(text, 'utf8'));
}

export function sendJSON(req: FastifyRequest, reply: FastifyReply, status: number, text: string): FastifyReply {
  return send(req, reply, status, 'application/json', text);
}

export function sendEmpty(reply: FastifyReply, status: number): FastifyReply {
  return reply.code(status).send();
}

export function sendError(req: FastifyRequest, reply: FastifyReply, err: ApiError): FastifyReply {
  return send(req, reply, err.status, 'application/json', err.body());
}

/** Map and send any thrown error. */
export function sendAnyError(req: FastifyRequest, reply: FastifyReply, e: unknown, context: ErrorContext = 'data'): FastifyReply {
  return sendError(req, reply, toApiError(e, context));
}

/** Health endpoints answer `{"error": "..."}` instead of the error envelope. */
export function sendHealth(reply: FastifyReply, error?: string): FastifyReply {
  const body = error === undefined ? '{}\n' : JSON.stringify({ error }) + '\n';
  return reply.code(error === undefined ? 200 : 500).header('content-type', 'application/json').send(Buffer.from(body, 'utf8'));
}
