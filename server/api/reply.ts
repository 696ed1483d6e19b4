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

/** Route config: the label of the http_request_duration_seconds metric (OPA's handler names). */
export interface RouteFlags {
  handler?: string;
}

/** Under `prefix` exactly: the prefix itself, a sub-path, or the prefix with a query. */
function under(url: string, prefix: string): boolean {
  if (!url.startsWith(prefix)) return false;
  const next = url.charCodeAt(prefix.length);
  return Number.isNaN(next) || next === 0x2f /* / */ || next === 0x3f /* ? */;
}

/** The requests whose responses OPA may gzip: GET/POST under /v0/data and /v1/data, POST under /v1/compile. */
export function compressible(req: FastifyRequest): boolean {
  const method = req.method;
  const url = req.url;
  if (method === 'POST') return under(url, '/v1/data') || under(url, '/v0/data') || under(url, '/v1/compile');
  return method === 'GET' && (under(url, '/v1/data') || under(url, '/v0/data'));
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

function send(req: FastifyRequest, reply: FastifyReply, status: number, contentType: string, text: string, exactType = false): FastifyReply {
  reply.code(status).header('content-type', contentType);
  if (compressible(req)) {
    reply.header('vary', 'Accept-Encoding');
    if (acceptsGzip(req)) {
      const enc = encodingOf(req);
      const bytes = Buffer.from(text, 'utf8');
      if (bytes.length < enc.gzipMinLength) return reply.send(bytes);
      reply.header('content-encoding', 'gzip');
      return reply.send(gzipSync(bytes, { level: enc.gzipLevel }));
    }
  }
  // Bytes keep Fastify from appending `; charset=utf-8` to the media type.
  return reply.send(exactType ? Buffer.from(text, 'utf8') : text);
}

export function sendJSON(req: FastifyRequest, reply: FastifyReply, status: number, text: string): FastifyReply {
  return send(req, reply, status, 'application/json', text);
}

/** JSON under another media type (the Compile API's `application/vnd.opa.*+json` replies), gzip as sendJSON. */
export function sendTyped(req: FastifyRequest, reply: FastifyReply, status: number, contentType: string, text: string): FastifyReply {
  return send(req, reply, status, contentType, text, true);
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
