// Issue 10, item 7: every error reply of the HTTP layer is OPA's `{code, message}`
// envelope, not Fastify's or Node's own bodies: unknown paths (404), wrong methods
// (405), a declared body over server.decoding.max_length, unparsable media types,
// header overflow (431), unknown and malformed methods, bad Content-Length,
// Content-Length with Transfer-Encoding, bad chunked framing, bad URL escapes, a
// missing Host header, unsupported HTTP versions and CONNECT. Sent as raw bytes to
// a real `regent run --server`; a flood of them must leave the process alive and
// a normal decision probed every 0.5 s answering within 2 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBody, parseRawResponse, probeDuring, reportProbe, sendRaw, startServer, type RunningServer } from './helpers.js';

interface Case {
  name: string;
  raw: string;
  status: number;
  code: string;
  message?: string | RegExp;
}

const H = 'Host: 127.0.0.1\r\n';
const CASES: Case[] = [
  { name: 'unknown path', raw: `GET /nope HTTP/1.1\r\n${H}\r\n`, status: 404, code: 'resource_not_found', message: '404 page not found' },
  { name: 'wrong method on an API prefix', raw: `DELETE /v1/data HTTP/1.1\r\n${H}\r\n`, status: 405, code: 'method_not_allowed', message: 'Method Not Allowed' },
  { name: 'wrong method elsewhere', raw: `POST /v1/config HTTP/1.1\r\n${H}Content-Length: 0\r\n\r\n`, status: 405, code: 'method_not_allowed' },
  { name: 'OPTIONS', raw: `OPTIONS /health HTTP/1.1\r\n${H}\r\n`, status: 405, code: 'method_not_allowed' },
  { name: 'declared body too large', raw: `POST /v1/data/x HTTP/1.1\r\n${H}Content-Length: 999999999999\r\n\r\n{}`, status: 400, code: 'invalid_parameter', message: 'request body too large' },
  { name: 'unparsable Content-Type', raw: `POST /v1/data/x HTTP/1.1\r\n${H}Content-Type: ;\r\nContent-Length: 2\r\n\r\n{}`, status: 400, code: 'invalid_parameter' },
  { name: 'malformed JSON body', raw: `POST /v1/data/x HTTP/1.1\r\n${H}Content-Length: 5\r\n\r\n{"a":`, status: 400, code: 'invalid_parameter', message: 'body contains malformed input document: unexpected EOF' },
  { name: 'header overflow', raw: `GET /health HTTP/1.1\r\n${H}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`, status: 431, code: 'invalid_parameter', message: 'request header fields too large' },
  { name: 'request line overflow', raw: `GET /${'a'.repeat(20_000)} HTTP/1.1\r\n${H}\r\n`, status: 431, code: 'invalid_parameter' },
  { name: 'unknown method', raw: `FOO /v1/data HTTP/1.1\r\n${H}\r\n`, status: 405, code: 'method_not_allowed' },
  { name: 'malformed method', raw: `GE(T / HTTP/1.1\r\n${H}\r\n`, status: 400, code: 'invalid_parameter', message: 'invalid method' },
  { name: 'bad Content-Length', raw: `POST /v1/data HTTP/1.1\r\n${H}Content-Length: abc\r\n\r\n`, status: 400, code: 'invalid_parameter', message: 'bad Content-Length' },
  {
    name: 'Content-Length with Transfer-Encoding',
    raw: `POST /v1/data HTTP/1.1\r\n${H}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    status: 400,
    code: 'invalid_parameter',
    message: 'both Content-Length and Transfer-Encoding are set',
  },
  { name: 'unsupported Transfer-Encoding', raw: `POST /v1/data HTTP/1.1\r\n${H}Transfer-Encoding: gzip\r\n\r\n`, status: 501, code: 'invalid_parameter' },
  { name: 'bad chunk size', raw: `POST /v1/data/x HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\nzz\r\n`, status: 400, code: 'invalid_parameter', message: 'malformed chunked encoding' },
  { name: 'bad URL escape', raw: `GET /v1/data/%zz HTTP/1.1\r\n${H}\r\n`, status: 400, code: 'invalid_parameter' },
  { name: 'missing Host', raw: 'GET /health HTTP/1.1\r\n\r\n', status: 400, code: 'invalid_parameter', message: 'missing required Host header' },
  { name: 'HTTP version', raw: `GET /health HTTP/9.1\r\n${H}\r\n`, status: 505, code: 'invalid_parameter' },
  { name: 'CONNECT', raw: `CONNECT example.com:443 HTTP/1.1\r\n${H}\r\n`, status: 405, code: 'method_not_allowed' },
  { name: 'garbage', raw: '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n', status: 400, code: 'invalid_parameter' },
];

async function check(srv: RunningServer, c: Case): Promise<void> {
  const reply = parseRawResponse(await sendRaw(srv, c.raw, 5000));
  expect([c.name, reply.status], c.raw.slice(0, 80)).toEqual([c.name, c.status]);
  expect(reply.headers['content-type'], c.name).toMatch(/^application\/json/);
  const body = errorBody(reply);
  expect([c.name, body.code]).toEqual([c.name, c.code]);
  if (typeof c.message === 'string') expect([c.name, body.message]).toEqual([c.name, c.message]);
  else if (c.message) expect(body.message).toMatch(c.message);
}

describe('every HTTP-layer error is {code, message} (item 7)', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(async () => {
    await srv?.close();
  });

  for (const c of CASES) it(c.name, () => check(srv, c));

  it('keeps answering decisions through a flood of malformed requests', async () => {
    const { probe } = await probeDuring(srv, async () => {
      for (let round = 0; round < 20; round++) await Promise.all(CASES.map((c) => check(srv, c)));
    });
    reportProbe(`${CASES.length * 20} malformed requests`, probe);
    expect(srv.alive()).toBe(true);
    expect(probe.failed).toBe(0);
    expect(probe.worstMs).toBeLessThan(2000);
  });

  it('answers HEAD on a wrong-method API path with 405 and no body', async () => {
    const reply = parseRawResponse(await sendRaw(srv, `HEAD /v1/data/x HTTP/1.1\r\n${H}Connection: close\r\n\r\n`, 5000));
    expect(reply.status).toBe(405);
    expect(reply.body).toBe('');
  });
});
