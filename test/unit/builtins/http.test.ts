// Unit tests for http.send (http.ts and helpers). The test server runs on
// 127.0.0.1 in its own worker thread: http.send blocks the calling thread, so a
// server on the same thread could never answer.
import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { Worker } from 'node:worker_threads';
import { builtins, clearHttpSendCache } from '../../../runtime/builtins/http.js';
import { stopHttpWorker } from '../../../runtime/builtins/http-sync.js';
import { canonicalHeaderKey, parseGoDuration } from '../../../runtime/builtins/http-request.js';
import { BuiltinError, HaltError } from '../../../runtime/builtins/errors.js';
import type { BuiltinContext } from '../../../runtime/builtins/types.js';
import { fromJS, toJS, type Value } from '../../../runtime/value/index.js';

const SERVER = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
let hits = 0;
const s = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    hits++;
    const u = new URL(req.url, 'http://x');
    if (u.pathname === '/slow') return void setTimeout(() => res.end('late'), 1500);
    if (u.pathname === '/hits') return void res.end(String(hits));
    if (u.pathname === '/yaml') { res.setHeader('content-type', 'application/yaml'); return void res.end('a: 1\\nb: [x, y]\\n'); }
    if (u.pathname === '/text') { res.setHeader('content-type', 'text/plain'); return void res.end('{"not":"decoded"}'); }
    if (u.pathname === '/redirect') { res.statusCode = 302; res.setHeader('location', '/echo'); return void res.end(); }
    if (u.pathname === '/cached') { res.setHeader('cache-control', 'max-age=60'); res.setHeader('date', new Date().toUTCString()); return void res.end('n=' + hits); }
    if (u.pathname === '/nocache') return void res.end('n=' + hits);
    if (u.pathname === '/status') { res.statusCode = Number(u.searchParams.get('code')); return void res.end(); }
    res.setHeader('content-type', 'application/json');
    res.setHeader('x-multi', ['a', 'b']);
    res.end(JSON.stringify({ method: req.method, path: req.url, body, headers: req.headers }));
  });
});
s.listen(0, '127.0.0.1', () => parentPort.postMessage(s.address().port));
`;

let server: Worker;
let base = '';

beforeAll(async () => {
  server = new Worker(SERVER, { eval: true });
  const port = await new Promise<number>((resolve) => server.once('message', resolve));
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await stopHttpWorker();
  await server.terminate();
});

let ctx: BuiltinContext;
beforeEach(() => {
  ctx = { strict: true, cache: new Map(), nowNs: BigInt(Date.now()) * 1_000_000n, print() {}, runtime: null, extras: {} };
});
const send = (req: unknown): any => toJS(builtins[0]!.impl([fromJS(req)], ctx)!);
function err(req: unknown): string {
  try {
    builtins[0]!.impl([fromJS(req) as Value], ctx);
  } catch (e) {
    if (e instanceof BuiltinError) return `${e.code}: ${e.raw ? '' : 'http.send: '}${e.message}`;
    throw e;
  }
  throw new Error('no error');
}

describe('http.send requests and responses', () => {
  it('sends method, headers and a JSON body; decodes a JSON response', () => {
    const r = send({ method: 'post', url: `${base}/echo?q=1`, body: { a: [1, 2] }, headers: { 'x-token': 'abc' } });
    expect(r.status_code).toBe(200);
    expect(r.status).toBe('200 OK');
    expect(r.body.method).toBe('POST');
    expect(r.body.path).toBe('/echo?q=1');
    expect(r.body.body).toBe('{"a":[1,2]}');
    expect(r.body.headers['x-token']).toBe('abc');
    expect(r.headers['content-type']).toEqual(['application/json']);
    expect(r.headers['x-multi']).toEqual(['a', 'b']);
    expect(JSON.parse(r.raw_body)).toEqual(r.body);
  });
  it('raw_body wins over body; text is not decoded unless forced; YAML is', () => {
    expect(send({ method: 'put', url: `${base}/echo`, body: { a: 1 }, raw_body: 'raw!' }).body.body).toBe('raw!');
    const t = send({ method: 'get', url: `${base}/text` });
    expect(t.body).toBeNull();
    expect(t.raw_body).toBe('{"not":"decoded"}');
    expect(send({ method: 'get', url: `${base}/text`, force_json_decode: true }).body).toEqual({ not: 'decoded' });
    expect(send({ method: 'get', url: `${base}/yaml` }).body).toEqual({ a: 1, b: ['x', 'y'] });
  });
  it('redirects only when enabled', () => {
    expect(send({ method: 'get', url: `${base}/redirect` }).status_code).toBe(302);
    expect(send({ method: 'get', url: `${base}/redirect`, enable_redirect: true }).body.path).toBe('/echo');
  });
  it('caches within a query; inter-query cache honours max-age and force_cache', () => {
    clearHttpSendCache();
    const a = send({ method: 'get', url: `${base}/nocache` }).raw_body;
    expect(send({ method: 'get', url: `${base}/nocache` }).raw_body).toBe(a);
    ctx.cache.clear();
    expect(send({ method: 'get', url: `${base}/nocache` }).raw_body).not.toBe(a);
    const c1 = send({ method: 'get', url: `${base}/cached`, cache: true }).raw_body;
    ctx.cache.clear();
    expect(send({ method: 'get', url: `${base}/cached`, cache: true }).raw_body).toBe(c1);
    const f1 = send({ method: 'get', url: `${base}/nocache`, force_cache: true, force_cache_duration_seconds: 60 }).raw_body;
    ctx.cache.clear();
    expect(send({ method: 'get', url: `${base}/nocache`, force_cache: true, force_cache_duration_seconds: 60 }).raw_body).toBe(f1);
    expect(err({ method: 'get', url: `${base}/nocache`, force_cache: true })).toContain(
      "'force_cache' set but 'force_cache_duration_seconds' parameter is missing",
    );
  });
  it('non-cacheable statuses are not cached within the query', () => {
    const h1 = send({ method: 'get', url: `${base}/status?code=500` });
    expect(h1.status_code).toBe(500);
    expect(h1.status).toBe('500 Internal Server Error');
  });
});

describe('http.send errors', () => {
  it('validates the request object (conformance invalidkeyerror)', () => {
    expect(err({ method: 'get' })).toBe('eval_type_error: http.send: operand 1 missing required request parameters(s): {"url"}');
    expect(err({ method: 'get', url: base, foo: 1 })).toBe('eval_type_error: http.send: operand 1 invalid request parameters(s): {"foo"}');
    expect(err('x')).toBe('eval_type_error: http.send: operand 1 must be object but got string');
    expect(err({ method: 'get', url: base, raise_error: 'no' })).toBe('eval_builtin_error: http.send: invalid value for raise_error field');
    expect(err({ method: 'get', url: base, headers: { a: 1 } })).toBe('eval_builtin_error: http.send: invalid type for headers value "1"');
    expect(err({ method: 'get', url: 1 })).toBe('eval_builtin_error: http.send: "url" must be a string');
    expect(err({ method: 'get', url: base, timeout: [] })).toBe(
      "eval_type_error: http.send: operand 1 'timeout' must be one of {string, number} but got array",
    );
  });
  it('network errors are raised, or returned when raise_error is false', () => {
    expect(err({ method: 'get', url: 'http://127.0.0.1:1/' })).toBe(
      'eval_builtin_error: http.send: Get "http://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused',
    );
    expect(send({ method: 'get', url: 'http://127.0.0.1:1/', raise_error: false })).toEqual({
      status_code: 0,
      error: { code: 'eval_http_send_network_error', message: 'Get "http://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused' },
    });
    expect(send({ method: 'get', raise_error: false })).toEqual({
      status_code: 0,
      error: { code: 'eval_http_send_internal_error', message: 'eval_type_error: http.send: operand 1 missing required request parameters(s): {"url"}' },
    });
  });
  it('times out per request, and halts at the query deadline', () => {
    expect(err({ method: 'get', url: `${base}/slow`, timeout: '200ms' })).toBe(`eval_builtin_error: http.send: Get ${base}/slow: request timed out`);
    const r = send({ method: 'get', url: `${base}/slow`, timeout: 100_000_000, raise_error: false });
    expect(r.error.code).toBe('eval_http_send_network_error');
    expect(r.error.message).toContain('context deadline exceeded');
    ctx.deadline = Date.now() + 200;
    let halted: unknown;
    try {
      builtins[0]!.impl([fromJS({ method: 'get', url: `${base}/slow?x=2` })], ctx);
    } catch (e) {
      halted = e;
    }
    expect(halted).toBeInstanceOf(HaltError);
  });
  it('retries failed requests', () => {
    const t0 = Date.now();
    expect(send({ method: 'get', url: 'http://127.0.0.1:1/', raise_error: false, max_retry_attempts: 2 }).status_code).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(200);
    expect(err({ method: 'get', url: base, max_retry_attempts: -1 })).toContain('invalid value -1 for field "max_retry_attempts"');
  });
});

describe('http.send helpers', () => {
  it('canonical header keys and Go durations', () => {
    expect(canonicalHeaderKey('content-type')).toBe('Content-Type');
    expect(canonicalHeaderKey('x-API-key')).toBe('X-Api-Key');
    expect(parseGoDuration('1m30s')).toBe(90e9);
    expect(parseGoDuration('250ms')).toBe(250e6);
    expect(() => parseGoDuration('5 s')).toThrow('time: invalid duration "5 s"');
  });
});
