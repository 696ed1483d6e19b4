// The hot Data API request without Fastify's per-request machinery: a `request`
// listener ahead of Fastify answers `GET`/`POST /v1/data[/<path>]` (JSON or no body,
// no Content-Encoding) with the very handler code of the Fastify route (data.ts
// readData, reply.ts sendJSON/sendAnyError, context.ts logDecision), writing the
// response as Fastify's reply.send writes it (same headers, same order) and
// observing http_request_duration_seconds for the route's handler label. What it
// skips: find-my-way's lookup over ~60 routes, Fastify's Request/Reply objects, the
// hook runners and the content-type parser's promise chain.
//
// Everything else goes to Fastify untouched: other methods and paths, paths with
// characters find-my-way treats specially (`%`, `;`, …), Content-Encoding, chunked
// bodies, other content types, a declared body over the limit or a missing Host
// (the onRequest hook's answers), HTTP/2, and every request once the server runs
// with authorization, a request logger, or a hook or route option it does not know
// about (checked on the first request, index.ts), or once it is closing.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DepthScanner, setBodyInfo, type BodyInfo } from './body-reader.js';
import { readDecision } from './data.js';
import type { ServerContext } from './context.js';
import { badRequest } from './errors.js';
import type { RouteObserver } from './metrics.js';
import { sendAnyError } from './reply.js';

/** What Fastify's reply.send adds to a string body whose JSON media type has no charset. */
const CHARSET = '; charset=utf-8';

/** Path characters find-my-way routes as they are (no decoding, no query or parameter separators). */
const PLAIN_PATH = /^\/v1\/data(?:\/[A-Za-z0-9_.~/-]*)?$/;

/** The subset of FastifyReply the Data API's handlers use, writing straight to the response. */
class FastReply {
  statusCode = 200;
  sent = false;
  private headers: Record<string, string> = {};

  constructor(
    readonly raw: ServerResponse,
    private readonly request: FastRequest,
  ) {}

  code(status: number): this {
    this.statusCode = status;
    return this;
  }

  header(name: string, value: string): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }

  getHeader(name: string): string | undefined {
    return this.headers[name.toLowerCase()];
  }

  /** Before an error reply: Fastify's error path drops these two (error-handler.js). */
  resetForError(): void {
    delete this.headers['content-type'];
    delete this.headers['content-length'];
  }

  /** As Fastify's reply.send for strings, Buffers and no body (onSendEnd: writeHead, then end). */
  send(payload?: string | Buffer): this {
    if (this.sent) return this;
    this.sent = true;
    const headers = this.headers;
    const status = this.statusCode;
    if (payload === undefined) {
      if (status >= 200 && status !== 204 && status !== 304) headers['content-length'] = '0';
      this.raw.writeHead(status, headers);
      this.raw.end();
    } else {
      if (typeof payload === 'string') {
        const type = headers['content-type'];
        if (type === undefined) headers['content-type'] = 'text/plain' + CHARSET;
        else if (type.includes('json') && !/charset/i.test(type)) headers['content-type'] = type + CHARSET;
        headers['content-length'] = String(Buffer.byteLength(payload));
      } else {
        headers['content-type'] ??= 'application/octet-stream';
        headers['content-length'] = String(payload.length);
      }
      this.raw.writeHead(status, headers);
      this.raw.end(payload);
    }
    this.request.done(status);
    return this;
  }
}

/** Where the request's state hangs on the IncomingMessage (the body listeners are shared functions, not closures). */
const STATE = Symbol('regent.fastRequest');
type WithState = IncomingMessage & { [STATE]?: FastRequest };

/** The subset of FastifyRequest the Data API's handlers use, and the body being read. */
class FastRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly socket: IncomingMessage['socket'];
  body: Buffer | undefined = undefined;
  private chunks: Buffer[] | undefined = undefined;
  private length = 0;
  private scanner: DepthScanner | undefined;
  private info: BodyInfo | undefined;
  private settled = false;

  constructor(
    readonly raw: IncomingMessage,
    readonly res: ServerResponse,
    private readonly path: FastPath,
    readonly start: number,
  ) {
    this.method = raw.method!;
    this.url = raw.url!;
    this.headers = raw.headers;
    this.socket = raw.socket;
  }

  get ip(): string | undefined {
    return this.socket.remoteAddress;
  }

  get server(): FastifyInstance {
    return this.path.app;
  }

  /** Read the body (declared length `declared`), then answer. */
  read(declared: number): void {
    // A text shorter than the depth limit cannot nest deeper than it: no scan.
    const maxDepth = this.path.ctx.limits.maxDepth;
    this.scanner = declared > maxDepth ? new DepthScanner(maxDepth) : undefined;
    this.info = { depthChecked: true };
    setBodyInfo(this as unknown as FastifyRequest, this.info);
    (this.raw as WithState)[STATE] = this;
    this.raw.on('data', onData);
    this.raw.on('end', onEnd);
    this.raw.on('error', onError);
  }

  chunk(chunk: Buffer): void {
    if (this.settled) return;
    if (this.body === undefined && this.chunks === undefined) this.body = chunk;
    else {
      if (this.chunks === undefined) this.chunks = [this.body!];
      this.chunks.push(chunk);
    }
    this.length += chunk.length;
    if (this.scanner !== undefined && !this.scanner.feed(chunk)) {
      // As body-reader.ts: the rest is discarded and body.ts reports the depth error.
      this.info!.tooDeep = true;
      this.info!.depthChecked = false;
      this.raw.resume();
      this.end();
    }
  }

  end(): void {
    if (this.settled) return;
    this.settled = true;
    if (this.chunks !== undefined) this.body = Buffer.concat(this.chunks, this.length);
    else this.body ??= Buffer.alloc(0);
    this.path.answer(this);
  }

  fail(e: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.raw.resume();
    const reply = new FastReply(this.res, this);
    sendAnyError(this as unknown as FastifyRequest, reply as unknown as FastifyReply, badRequest((e as { code?: string }).code === 'ECONNRESET' ? 'unexpected EOF' : e.message));
  }

  done(status: number): void {
    this.path.observe(status, this.method, (performance.now() - this.start) / 1000);
  }
}

function onData(this: WithState, chunk: Buffer): void {
  this[STATE]!.chunk(chunk);
}

function onEnd(this: WithState): void {
  this[STATE]!.end();
}

function onError(this: WithState, e: Error): void {
  this[STATE]!.fail(e);
}

export class FastPath {
  /** Off until the first request found the server in its known shape (index.ts), and once it closes. */
  enabled = false;
  /** Requests answered here (tests check that the hot shapes do come here). */
  answered = 0;

  constructor(
    readonly app: FastifyInstance,
    readonly ctx: ServerContext,
    /** server.decoding.max_length */
    private readonly maxLength: number,
    readonly observe: RouteObserver,
  ) {}

  /** Answer the request when it is the hot Data API shape; false: Fastify takes it. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method;
    if (method !== 'POST' && method !== 'GET') return false;
    const url = req.url!;
    if (!url.startsWith('/v1/data') || req.httpVersionMajor !== 1) return false;
    const q = url.indexOf('?');
    if (!PLAIN_PATH.test(q < 0 ? url : url.slice(0, q))) return false;
    const h = req.headers;
    if (h['content-encoding'] !== undefined || h['transfer-encoding'] !== undefined) return false;
    if (h.host === undefined && req.httpVersion === '1.1') return false;
    const type = h['content-type'];
    if (type !== undefined && type !== 'application/json') return false;
    const length = h['content-length'];
    const declared = length === undefined ? 0 : Number(length);
    // Over the limit: the onRequest hook's 400; a body without a length: chunked, handled above.
    if (!(declared <= this.maxLength) || (length !== undefined && !/^\d+$/.test(length))) return false;
    this.answered++;
    const r = new FastRequest(req, res, this, performance.now());
    if (method === 'POST' && declared > 0) r.read(declared);
    else {
      // No body: Fastify hands the handler no body either (the stream is drained by Node).
      if (method === 'POST' && type !== undefined) r.body = Buffer.alloc(0);
      this.answer(r);
    }
    return true;
  }

  answer(r: FastRequest): void {
    const reply = new FastReply(r.res, r);
    const req = r as unknown as FastifyRequest;
    const freply = reply as unknown as FastifyReply;
    const failed = (e: unknown): void => {
      if (reply.sent) return;
      reply.resetForError();
      sendAnyError(req, freply, e);
    };
    try {
      const out = readDecision(this.ctx, req, freply);
      if (out instanceof Promise) out.then(undefined, failed);
    } catch (e) {
      failed(e);
    }
  }
}
