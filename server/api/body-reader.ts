// Reading request bodies as streams, with every limit applied while the bytes
// arrive (the content parser of server/index.ts calls readBody):
//
// - server.decoding.max_length: a Content-Length above it is refused before
//   anything is read (checkContentLength, an onRequest hook, as OPA's outermost
//   DecodingLimitsHandler); a chunked body is cut off as soon as it crosses it.
// - gzip (only where OPA decompresses: POSTs to `/`, `/v0/data…`, `/v1/data…`):
//   as OPA, the gzip trailer's size (ISIZE) must not exceed
//   server.decoding.gzip.max_length, and exactly ISIZE bytes are inflated, by
//   zlib's asynchronous stream (the thread pool does the work, the event loop only
//   sees chunks), which is stopped as soon as ISIZE bytes came out: a forged
//   trailer can only make the output shorter, never larger than the limit.
// - JSON nesting: JSON bodies are scanned for bracket depth chunk by chunk; a body
//   nested deeper than the limit stops being read and is never parsed
//   (body.ts reports `exceeded max depth` with the route's prefix).
// - Large Data API writes (PUT/PATCH /v1/data…, LARGE_DOCUMENT_BYTES or more): the
//   bytes go to shared memory for the workers, copied chunk by chunk into a buffer
//   sized from Content-Length (joined at the end for a chunked body).
// The raw bytes stay `request.body` (PUT /v1/data and the Query API read them
// undecompressed, as OPA does); the inflated bytes and the flags live beside them.
import { createGunzip, type Gunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { LARGE_DOCUMENT_BYTES } from '../engine/shared-docs.js';
import { ApiError, MSG, badRequest } from './errors.js';

export interface ReadLimits {
  /** server.decoding.max_length */
  maxLength: number;
  /** server.decoding.gzip.max_length */
  gzipMaxLength: number;
  /** Deepest nesting of arrays/objects accepted in a JSON body. */
  maxDepth: number;
}

/** What the reader learnt besides the raw bytes. */
export interface BodyInfo {
  /** The authorizer reads this body first (its errors are reported bare, as OPA's authorizer does). */
  forAuthorizer?: boolean;
  /** The decompressed body (gzip-encoded bodies on the routes OPA decompresses). */
  inflated?: Buffer;
  /** The body nests deeper than the limit (it was not read to the end). */
  tooDeep?: boolean;
  /** The whole body (inflated, for gzip) went through the depth scanner within the limit. */
  depthChecked?: boolean;
}

const BODY_INFO = Symbol('regent.bodyInfo');
type WithInfo = FastifyRequest & { [BODY_INFO]?: BodyInfo };

export function bodyInfo(req: FastifyRequest): BodyInfo | undefined {
  return (req as WithInfo)[BODY_INFO];
}

/** Attach what a reader learnt (the fast path's reader, fast-path.ts). */
export function setBodyInfo(req: FastifyRequest, info: BodyInfo): void {
  (req as WithInfo)[BODY_INFO] = info;
}

/** Mark a request whose body the authorization policy reads before the handler (index.ts). */
export function markReadByAuthorizer(req: FastifyRequest): void {
  (req as WithInfo)[BODY_INFO] = { forAuthorizer: true };
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** OPA's authorizer `expectBody`: POST to `/` or under `/v0/data`, `/v1/data`; these requests' bodies are decompressed. */
export function expectsBody(method: string, url: string): boolean {
  if (method !== 'POST') return false;
  const path = pathOf(url);
  if (path === '/') return true;
  const segs = path.split('/');
  return (segs[1] === 'v0' || segs[1] === 'v1') && segs[2] === 'data';
}

function isGzip(req: FastifyRequest): boolean {
  return String(req.headers['content-encoding'] ?? '').includes('gzip');
}

/** Bodies parsed as JSON: all but Rego text (policies) and YAML. */
function scansJSON(req: FastifyRequest): boolean {
  if (String(req.headers['content-type'] ?? '').includes('yaml')) return false;
  return !pathOf(req.url).startsWith('/v1/policies');
}

/** The onRequest check of OPA's DecodingLimitsHandler: a declared length above server.decoding.max_length. */
export function checkContentLength(req: FastifyRequest, maxLength: number): ApiError | undefined {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxLength) return badRequest(MSG.bodyTooLarge);
  return undefined;
}

/**
 * Bracket depth of JSON text fed in pieces (strings and escapes tracked across
 * pieces). One loop per state over the bytes, no calls per byte: outside a string
 * only `"`, `[`/`{` and `]`/`}` matter; inside one only `"` and `\`, whose next byte
 * is skipped (carried to the next piece when the piece ends on it). 50 MB in 64 KB
 * pieces: 66–79 ms at best, against 128–150 ms for the earlier single loop testing the
 * state on every byte (load 7–9, bench/README.md).
 */
export class DepthScanner {
  private depth = 0;
  private inString = false;
  /** The previous piece ended on a backslash inside a string: the next byte is escaped. */
  private escaped = false;

  constructor(private readonly max: number) {}

  /** Feed bytes; false once the depth went past the limit. */
  feed(bytes: Uint8Array): boolean {
    const max = this.max;
    const n = bytes.length;
    let depth = this.depth;
    let inString = this.inString;
    let i = 0;
    if (this.escaped && n > 0) {
      this.escaped = false;
      i = 1;
    }
    while (i < n) {
      if (inString) {
        for (; i < n; i++) {
          const c = bytes[i]!;
          if (c === 0x22 /* " */) break;
          if (c === 0x5c /* \ */ && ++i === n) {
            this.escaped = true;
            break;
          }
        }
        if (i >= n) break;
        inString = false;
        i++;
      }
      for (; i < n; i++) {
        const c = bytes[i]!;
        if (c === 0x22) {
          inString = true;
          i++;
          break;
        }
        if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
          if (++depth > max) {
            this.depth = depth;
            return false;
          }
        } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
      }
    }
    this.depth = depth;
    this.inString = inString;
    return true;
  }
}

/** Go's gzip/flate error texts for zlib's. */
function goGzipError(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  if (/incorrect header check|unknown compression method/.test(msg)) return 'gzip: invalid header';
  if (/unexpected end of file/.test(msg)) return 'unexpected EOF';
  if (/incorrect data check|incorrect length check/.test(msg)) return 'gzip: invalid checksum';
  return msg;
}

/** OPA's handlers prefix decompression errors; its authorizer reports them bare. */
function decompressError(reason: string, bare = false): ApiError {
  return badRequest(bare ? reason : `could not decompress the body: ${reason}`);
}

function isDataWrite(req: FastifyRequest): boolean {
  return (req.method === 'PUT' || req.method === 'PATCH') && (req.url === '/v1/data' || req.url.startsWith('/v1/data/') || req.url.startsWith('/v1/data?'));
}

/**
 * Where a large Data API write (LARGE_DOCUMENT_BYTES or more, not gzip) is collected:
 * a SharedArrayBuffer, which the workers build the document from (no further copy,
 * no private copy left for a full garbage collection to free). With a Content-Length
 * it is allocated up front and each chunk is copied in as it arrives (no chunk list,
 * no copy at the end; untouched pages cost no memory). undefined: collect chunks.
 */
function sharedTarget(req: FastifyRequest, gzip: boolean, maxLength: number): Buffer | undefined {
  if (gzip || !isDataWrite(req)) return undefined;
  const declared = Number(req.headers['content-length']);
  if (!Number.isSafeInteger(declared) || declared < LARGE_DOCUMENT_BYTES || declared > maxLength) return undefined;
  return Buffer.from(new SharedArrayBuffer(declared));
}

/** Chunks joined in a SharedArrayBuffer (a large write without, or beyond, its Content-Length). */
function sharedConcat(chunks: Buffer[], length: number): Buffer {
  const out = Buffer.from(new SharedArrayBuffer(length));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * Read a request body from `payload` with the limits above. Resolves with the raw
 * bytes (request.body); rejects with the 400 ApiError of a limit.
 */
export function readBody(req: FastifyRequest, payload: Readable, limits: ReadLimits): Promise<Buffer> {
  const info: BodyInfo = { ...(req as WithInfo)[BODY_INFO] };
  (req as WithInfo)[BODY_INFO] = info;
  const bare = info.forAuthorizer === true;
  const gzip = isGzip(req) && expectsBody(req.method, req.url);
  // Gzip bytes that stay compressed (routes OPA does not decompress) are not JSON text.
  const scanner = scansJSON(req) && (gzip || !isGzip(req)) ? new DepthScanner(limits.maxDepth) : undefined;
  return new Promise<Buffer>((resolve, reject) => {
    // A large write's bytes go straight into `shared` while they fit; `raw` collects
    // every other body's chunks, and a large write's once it outgrows its declared length.
    let shared = sharedTarget(req, gzip, limits.maxLength);
    const raw: Buffer[] = [];
    let rawLength = 0;
    let settled = false;
    let gunzip: Gunzip | undefined;
    const cleanup = (): void => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      if (gunzip) {
        gunzip.removeAllListeners('data');
        gunzip.removeAllListeners('end');
        gunzip.on('error', () => undefined);
        gunzip.destroy();
      }
    };
    const fail = (e: ApiError): void => {
      if (settled) return;
      settled = true;
      cleanup();
      payload.resume(); // discard the rest; the reply closes or reuses the connection
      reject(e);
    };
    const succeed = (): void => {
      if (settled) return;
      settled = true;
      cleanup();
      if (scanner && !info.tooDeep) info.depthChecked = true;
      if (shared) resolve(rawLength === shared.length ? shared : shared.subarray(0, rawLength));
      else resolve(!gzip && rawLength >= LARGE_DOCUMENT_BYTES && isDataWrite(req) ? sharedConcat(raw, rawLength) : Buffer.concat(raw, rawLength));
    };
    const tooDeep = (): void => {
      info.tooDeep = true;
      payload.resume();
      succeed();
    };
    const onData = (chunk: Buffer): void => {
      if (settled) return;
      const at = rawLength;
      rawLength += chunk.length;
      if (rawLength > limits.maxLength) return fail(badRequest(MSG.bodyTooLarge));
      if (shared && rawLength <= shared.length) shared.set(chunk, at);
      else {
        // More bytes than declared (only a body handed over in-process, e.g. by
        // inject: Node's parser stops at Content-Length): kept, as for any body.
        if (shared) raw.push(shared.subarray(0, at));
        shared = undefined;
        raw.push(chunk);
      }
      if (!gzip && scanner && !scanner.feed(chunk)) tooDeep();
    };
    const onEnd = (): void => {
      if (settled) return;
      if (!gzip) return succeed();
      // As OPA: the decompressed size comes from the gzip trailer (ISIZE) and must not
      // exceed the limit; then exactly ISIZE bytes are inflated (io.CopyN): fewer is
      // EOF, more are never inflated, so a forged small trailer cannot make it grow.
      const all = Buffer.concat(raw, rawLength);
      if (all.length < 4) return fail(decompressError('unexpected EOF', bare));
      const isize = all.readUInt32LE(all.length - 4);
      if (isize > limits.gzipMaxLength) return fail(decompressError(MSG.gzipPayloadTooLarge, bare));
      const out: Buffer[] = [];
      let outLength = 0;
      const inflated = (): void => {
        info.inflated = Buffer.concat(out, outLength).subarray(0, isize);
        succeed();
      };
      gunzip = createGunzip();
      gunzip.on('data', (chunk: Buffer) => {
        if (settled) return;
        const take = outLength + chunk.length > isize ? chunk.subarray(0, isize - outLength) : chunk;
        out.push(take);
        outLength += take.length;
        if (scanner && !scanner.feed(take)) {
          info.inflated = Buffer.alloc(0);
          return tooDeep();
        }
        if (outLength >= isize) inflated();
      });
      gunzip.on('end', () => {
        if (settled) return;
        if (outLength < isize) return fail(decompressError('EOF', bare));
        inflated();
      });
      gunzip.on('error', (e) => fail(decompressError(goGzipError(e), bare)));
      if (isize === 0) return inflated();
      gunzip.end(all);
    };
    const onError = (e: Error): void => fail(badRequest((e as { code?: string }).code === 'ECONNRESET' ? 'unexpected EOF' : e.message));
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
  });
}
