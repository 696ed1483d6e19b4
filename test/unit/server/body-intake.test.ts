// Unit checks of request-body intake (server/api/body-reader.ts, issue 10): the
// streaming JSON depth scanner against a whole-text reference on every chunk
// boundary (a string, an escape or a bracket split across chunks), and the reader
// collecting a large Data API write straight into shared memory sized from
// Content-Length (exact, fewer and more bytes than declared, the size limit, gzip).
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../server/api/errors.js';
import { DepthScanner, bodyInfo, readBody } from '../../../server/api/body-reader.js';

/** Deepest bracket nesting of a JSON text, byte by byte with an explicit string state. */
function referenceDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') deepest = Math.max(deepest, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return deepest;
}

/** Feed `bytes` cut at `cuts`; true when the depth stayed within `max`. */
function scan(bytes: Buffer, cuts: number[], max: number): boolean {
  const s = new DepthScanner(max);
  let from = 0;
  for (const to of [...cuts, bytes.length]) {
    if (!s.feed(bytes.subarray(from, to))) return false;
    from = to;
  }
  return true;
}

const SAMPLES = [
  '{"a":"]]]]","b":[[[]]]}',
  '["\\"[[[[","x\\\\",[["\\\\\\"]"]]]',
  '{"k\\"{":{"v":"\\\\"},"w":[{"x":"}}}\\\\\\\\"},[[1]]]}',
  '[[[[[[["\\u005b"]]]]]]]',
  '"[[[[[[[[[["',
  '{"é[":"ü]","ж":["{{"]}',
];

describe('DepthScanner', () => {
  it('agrees with the reference on every single and double chunk boundary', () => {
    for (const text of SAMPLES) {
      const bytes = Buffer.from(text);
      const depth = referenceDepth(text);
      for (const max of depth > 0 ? [depth - 1, depth] : [0]) {
        const expected = depth <= max;
        for (let a = 0; a <= bytes.length; a++) {
          expect(scan(bytes, [a], max), `${text} cut at ${a}, max ${max}`).toBe(expected);
          for (let b = a; b <= bytes.length; b++) expect(scan(bytes, [a, b], max), `${text} cut at ${a},${b}`).toBe(expected);
        }
      }
    }
  });

  it('carries an escape over a chunk that ends on the backslash', () => {
    // `"\` | `"[[["]`: the quote after the split backslash is escaped, the brackets are in the string.
    expect(scan(Buffer.from('["\\"[[["]'), [3], 1)).toBe(true);
    // `"\\` | `"[[`: an escaped backslash, then the string closes and the brackets count.
    expect(scan(Buffer.from('["\\\\"[[]]]'), [4], 2)).toBe(false);
    expect(scan(Buffer.from('["\\\\"[[]]]'), [4], 3)).toBe(true);
    // Empty pieces keep the state: `["\` `"` `[` `"]` is one string in an array.
    const s = new DepthScanner(1);
    for (const p of ['["\\', '', '"', '', '[', '"]']) expect(s.feed(Buffer.from(p))).toBe(true);
    expect(s.feed(Buffer.from('[]'))).toBe(true);
    expect(s.feed(Buffer.from('[['))).toBe(false);
  });

  it('agrees with the reference on random documents cut at random places', () => {
    let seed = 7;
    const next = (n: number): number => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) % n);
    const atoms = ['[', ']', '{', '}', '"', '\\', 'a', ',', ':'];
    for (let round = 0; round < 300; round++) {
      // Random text (not always valid JSON): the scanner and the reference must still agree.
      let text = '';
      for (let i = 0, len = 5 + next(60); i < len; i++) text += atoms[next(atoms.length)];
      const bytes = Buffer.from(text);
      const cuts = Array.from({ length: next(6) }, () => next(bytes.length + 1)).sort((x, y) => x - y);
      const max = next(8);
      const s = new DepthScanner(max);
      let depth = 0;
      let deepest = 0;
      let inString = false;
      let escaped = false;
      for (const c of text) {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === '\\') escaped = true;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '[' || c === '{') deepest = Math.max(deepest, ++depth);
        else if (c === ']' || c === '}') depth--;
      }
      let from = 0;
      let ok = true;
      for (const to of [...cuts, bytes.length]) {
        if (!s.feed(bytes.subarray(from, to))) {
          ok = false;
          break;
        }
        from = to;
      }
      expect(ok, `${text} cut at ${cuts.join(',')}, max ${max}`).toBe(deepest <= max);
    }
  });
});

const MIB = 1 << 20;
const LIMITS = { maxLength: 8 * MIB, gzipMaxLength: 8 * MIB, maxDepth: 1000 };

function request(method: string, url: string, headers: Record<string, string>): FastifyRequest {
  return { method, url, headers } as unknown as FastifyRequest;
}

function chunksOf(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

/** A JSON document of `bytes` bytes or a little more. */
function document(bytes: number): Buffer {
  const members: string[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const m = `"k${i}":{"v":[${i},"s\\"${i}"]}`;
    members.push(m);
    size += m.length + 1;
  }
  return Buffer.from('{' + members.join(',') + '}');
}

describe('readBody, large Data API writes', () => {
  const body = document(2 * MIB);

  it('copies a write with Content-Length into shared memory as it arrives', async () => {
    const req = request('PUT', '/v1/data/big', { 'content-length': String(body.length) });
    const out = await readBody(req, Readable.from(chunksOf(body, 65536)), LIMITS);
    expect(out.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(out.byteOffset).toBe(0);
    expect(out.buffer.byteLength).toBe(body.length);
    expect(out.equals(body)).toBe(true);
    expect(bodyInfo(req)?.depthChecked).toBe(true);
  });

  it('keeps fewer bytes than declared, and more (a body handed over in-process)', async () => {
    const fewer = await readBody(request('PATCH', '/v1/data', { 'content-length': String(body.length + 1000) }), Readable.from(chunksOf(body, 65536)), LIMITS);
    expect(fewer.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(fewer.byteOffset).toBe(0);
    expect(fewer.equals(body)).toBe(true);
    const more = await readBody(request('PUT', '/v1/data?x=1', { 'content-length': String(body.length - 70000) }), Readable.from(chunksOf(body, 65536)), LIMITS);
    expect(more.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(more.equals(body)).toBe(true);
  });

  it('still joins chunked writes in shared memory, and small or other bodies privately', async () => {
    const chunked = await readBody(request('PUT', '/v1/data/big', {}), Readable.from(chunksOf(body, 65536)), LIMITS);
    expect(chunked.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(chunked.equals(body)).toBe(true);
    const post = await readBody(request('POST', '/v1/data/big', { 'content-length': String(body.length) }), Readable.from(chunksOf(body, 65536)), LIMITS);
    expect(post.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(post.equals(body)).toBe(true);
    const small = Buffer.from('{"a":[1,2]}');
    const out = await readBody(request('PUT', '/v1/data/x', { 'content-length': String(small.length) }), Readable.from([small]), LIMITS);
    expect(out.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(out.equals(small)).toBe(true);
  });

  it('refuses a body past server.decoding.max_length, and one nested too deep, while reading', async () => {
    const limits = { ...LIMITS, maxLength: body.length - 1 };
    const err = await readBody(request('PUT', '/v1/data/big', {}), Readable.from(chunksOf(body, 65536)), limits).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe('request body too large');
    const pad = '"' + 'x'.repeat(MIB) + '"';
    const deep = Buffer.from(`[${pad},${'['.repeat(2000)}${']'.repeat(2000)},${pad}]`);
    const req = request('PUT', '/v1/data/deep', { 'content-length': String(deep.length) });
    const out = await readBody(req, Readable.from(chunksOf(deep, 65536)), LIMITS);
    expect(bodyInfo(req)?.tooDeep).toBe(true);
    expect(out.length).toBeLessThan(deep.length);
  });

  it('leaves gzip bodies on the chunk path: inflated where OPA decompresses, raw elsewhere', async () => {
    const gz = gzipSync(body);
    const post = request('POST', '/v1/data/big', { 'content-length': String(gz.length), 'content-encoding': 'gzip' });
    expect((await readBody(post, Readable.from(chunksOf(gz, 65536)), LIMITS)).equals(gz)).toBe(true);
    expect(bodyInfo(post)?.inflated?.equals(body)).toBe(true);
    expect(bodyInfo(post)?.depthChecked).toBe(true);
    const put = request('PUT', '/v1/data/big', { 'content-length': String(gz.length), 'content-encoding': 'gzip' });
    expect((await readBody(put, Readable.from(chunksOf(gz, 65536)), LIMITS)).equals(gz)).toBe(true);
    expect(bodyInfo(put)?.inflated).toBeUndefined();
  });
});
