// A fake of the Google Cloud Storage JSON API for the GCS object-store tests:
// no GCS emulator can be installed here (the npm registry has none that serves
// the HTTP API; fake-gcs-server is a Go binary, firebase-tools is far too big).
// It follows the public JSON API docs (cloud.google.com/storage/docs/json_api)
// and implements exactly these endpoints, in memory, for pre-created buckets:
//   GET  /storage/v1/b/{bucket}/o/{object}            objects.get: the object resource
//                                                     (404 JSON error when the bucket or object is missing)
//   GET  /storage/v1/b/{bucket}/o/{object}?alt=media  media download, with x-goog-hash
//                                                     (crc32c, md5), x-goog-generation and
//                                                     x-goog-stored-content-encoding
//   POST /upload/storage/v1/b/{bucket}/o?uploadType=multipart[&name=...]
//        objects.insert, multipart/related body: a JSON metadata part, then the media part
// The objects.get routes are also served without the `/storage/v1` prefix,
// because @google-cloud/storage 7 uses STORAGE_EMULATOR_HOST itself as its base
// URL for JSON API calls (uploads go to `${host}/upload/storage/v1/...`).
// Stored per object: bytes, `metadata` (custom metadata), contentType, size,
// md5Hash, crc32c and generation. The client validates every upload against the
// returned crc32c by default, so the resource carries it like the real service.
// Errors use the API's JSON shape `{"error": {code, message, errors: [...]}}`;
// `fail` makes reads or uploads answer with a given status (e.g. 403).
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GcsObject {
  bucket: string;
  name: string;
  bytes: Buffer;
  contentType: string;
  metadata?: Record<string, string>;
  generation: string;
  md5Hash: string;
  crc32c: string;
}

export interface FakeGcs {
  /** The value for STORAGE_EMULATOR_HOST, `http://127.0.0.1:<port>`. */
  url: string;
  /** Stored objects by `bucket/name`. */
  objects: Map<string, GcsObject>;
  /** Every request: method, path with query, and whether it carried Authorization. */
  requests: { method: string; url: string; auth: boolean }[];
  /** Answer reads (objects.get, media) or uploads with this HTTP status instead. */
  fail: { read?: number; upload?: number };
  close(): Promise<void>;
}

const CRC32C_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  return c >>> 0;
});

/** CRC32C (Castagnoli) as GCS reports it: base64 of the big-endian 32-bit value. */
export function crc32c(bytes: Uint8Array): string {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC32C_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  const out = Buffer.alloc(4);
  out.writeUInt32BE((c ^ 0xffffffff) >>> 0);
  return out.toString('base64');
}

function sendError(res: ServerResponse, code: number, message: string, reason: string): void {
  res.writeHead(code, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify({ error: { code, message, errors: [{ message, domain: 'global', reason }] } }));
}

const REASONS: Record<number, string> = { 401: 'required', 403: 'forbidden', 404: 'notFound' };

function resource(o: GcsObject): object {
  const id = `${o.bucket}/${o.name}`;
  return {
    kind: 'storage#object', id: `${id}/${o.generation}`, name: o.name, bucket: o.bucket, generation: o.generation,
    metageneration: '1', contentType: o.contentType, size: String(o.bytes.length), md5Hash: o.md5Hash, crc32c: o.crc32c,
    ...(o.metadata ? { metadata: o.metadata } : {}), storageClass: 'STANDARD',
  };
}

/** Split a multipart/related body into its parts (headers lower-cased). */
function parseMultipart(body: Buffer, boundary: string): { headers: Record<string, string>; body: Buffer }[] {
  const delim = Buffer.from(`--${boundary}`);
  const next = Buffer.from(`\r\n--${boundary}`);
  const parts: { headers: Record<string, string>; body: Buffer }[] = [];
  let pos = body.indexOf(delim);
  if (pos < 0) throw new Error('no multipart boundary');
  pos += delim.length;
  while (body.subarray(pos, pos + 2).toString() === '\r\n') {
    const end = body.indexOf(next, pos);
    if (end < 0) throw new Error('unterminated multipart part');
    const part = body.subarray(pos + 2, end);
    const sep = part.indexOf('\r\n\r\n');
    const headers: Record<string, string> = {};
    for (const line of part.subarray(0, sep < 0 ? 0 : sep).toString().split('\r\n')) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    parts.push({ headers, body: sep < 0 ? part : part.subarray(sep + 4) });
    pos = end + next.length;
  }
  return parts;
}

export async function startFakeGcs(buckets: string[]): Promise<FakeGcs> {
  const objects = new Map<string, GcsObject>();
  const requests: FakeGcs['requests'] = [];
  const fail: FakeGcs['fail'] = {};
  let generation = 1_700_000_000_000_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake-gcs');
    requests.push({ method: req.method ?? '', url: url.pathname + url.search, auth: req.headers.authorization !== undefined });
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const get = /^(?:\/storage\/v1)?\/b\/([^/]+)\/o\/([^/]+)$/.exec(url.pathname);
    const insert = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname);
    const bucket = decodeURIComponent((get ?? insert)?.[1] ?? '');
    if (req.method === 'GET' && get) {
      if (fail.read) return sendError(res, fail.read, `Caller does not have storage.objects.get access to ${bucket}.`, REASONS[fail.read] ?? 'error');
      const name = decodeURIComponent(get[2]!);
      if (!buckets.includes(bucket)) return sendError(res, 404, 'The specified bucket does not exist.', 'notFound');
      const o = objects.get(`${bucket}/${name}`);
      if (!o) return sendError(res, 404, `No such object: ${bucket}/${name}`, 'notFound');
      if (url.searchParams.get('alt') === 'media') {
        res.writeHead(200, {
          'content-type': o.contentType, 'content-length': o.bytes.length, 'x-goog-generation': o.generation,
          'x-goog-hash': `crc32c=${o.crc32c},md5=${o.md5Hash}`, 'x-goog-stored-content-encoding': 'identity',
        });
        return void res.end(o.bytes);
      }
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      return void res.end(JSON.stringify(resource(o)));
    }
    if (req.method === 'POST' && insert) {
      if (fail.upload) return sendError(res, fail.upload, `Caller does not have storage.objects.create access to ${bucket}.`, REASONS[fail.upload] ?? 'error');
      if (url.searchParams.get('uploadType') !== 'multipart') return sendError(res, 400, 'only uploadType=multipart is implemented', 'invalid');
      if (!buckets.includes(bucket)) return sendError(res, 404, 'The specified bucket does not exist.', 'notFound');
      const boundary = /boundary="?([^";]+)"?/.exec(req.headers['content-type'] ?? '')?.[1];
      if (!/^multipart\/related/.test(req.headers['content-type'] ?? '') || !boundary) return sendError(res, 400, 'expected multipart/related', 'invalid');
      const [meta, media] = parseMultipart(Buffer.concat(chunks), boundary);
      if (!meta || !media) return sendError(res, 400, 'expected a metadata part and a media part', 'invalid');
      const md = JSON.parse(meta.body.toString()) as { name?: string; contentType?: string; metadata?: Record<string, string> };
      const name = url.searchParams.get('name') ?? md.name;
      if (!name) return sendError(res, 400, 'Required: object name', 'required');
      const o: GcsObject = {
        bucket, name, bytes: Buffer.from(media.body), contentType: md.contentType ?? media.headers['content-type'] ?? 'application/octet-stream',
        ...(md.metadata ? { metadata: md.metadata } : {}), generation: String(++generation),
        md5Hash: createHash('md5').update(media.body).digest('base64'), crc32c: crc32c(media.body),
      };
      objects.set(`${bucket}/${name}`, o);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      return void res.end(JSON.stringify(resource(o)));
    }
    sendError(res, 501, `fake GCS: ${req.method} ${url.pathname} is not implemented`, 'notImplemented');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => sendError(res, 500, String(e), 'backendError'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    objects,
    requests,
    fail,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
