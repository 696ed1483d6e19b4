// The Data API fast path (server/api/fast-path.ts) against the Fastify routes: two
// servers with the same policies and configuration, one with the fast path and one
// without, get the same matrix of raw HTTP requests; status, headers (names, values
// and order, all but Date) and bodies must be identical, and so must the decision
// log events and the http_request_duration_seconds counts. Varying values (decision
// IDs, timers, the client port, timestamps) are masked first.
import { request as httpRequest } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventJSON } from '../../server/plugins/event-json.js';
import type { DecisionEvent } from '../../server/plugins/contract.js';
import { buildServer } from '../../server/index.js';
import { putPolicy, startTestServer, type TestServer } from './helpers.js';

interface RawReply {
  status: number;
  headers: string[];
  body: string;
}

function send(server: TestServer, method: string, path: string, body: string | Buffer | undefined, given: Record<string, string>): Promise<RawReply> {
  // A declared length unless the row asks for chunks (Node's client would send chunks).
  const headers = body === undefined || given['transfer-encoding'] || given['content-length'] ? given : { ...given, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = httpRequest(server.url + path, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        let bytes = Buffer.concat(chunks);
        if (res.headers['content-encoding'] === 'gzip') bytes = gunzipSync(bytes);
        const text = bytes.toString('utf8');
        const masked = mask(text);
        if (res.headers['content-encoding'] !== 'gzip' && res.headers['content-length'] !== undefined && Number(res.headers['content-length']) !== bytes.length) {
          return reject(new Error(`content-length ${res.headers['content-length']} for ${bytes.length} bytes`));
        }
        const raw = res.rawHeaders.flatMap((h, i) => (i % 2 === 0 ? [`${h}: ${res.rawHeaders[i + 1]}`] : [])).filter((h) => !h.startsWith('Date:'));
        // Timers and IDs change the length (and the gzip bytes): then the length was checked above.
        const headerList = masked !== text || res.headers['content-encoding'] === 'gzip' ? raw.map((h) => h.replace(/^content-length: \d+$/, 'content-length: <n>')) : raw;
        resolve({ status: res.statusCode ?? 0, headers: headerList, body: masked });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Decision IDs, timer values and the client's port vary from run to run. */
function mask(text: string): string {
  return text
    .replace(/"decision_id": ?"[0-9a-f-]{36}"/g, '"decision_id":"<id>"')
    .replace(/("timer_[a-z_]+_ns": ?)\d+/g, '$1<ns>')
    .replace(/"requested_by": ?"([^"]*):\d+"/g, '"requested_by":"$1:<port>"')
    .replace(/"timestamp": ?"[^"]+"/g, '"timestamp":"<time>"');
}

const JSON_TYPE = { 'content-type': 'application/json' };
const GZIP_OK = { 'accept-encoding': 'gzip' };
const allowBody = JSON.stringify({ input: { user: 'alice', action: 'read' } });
const deep = JSON.stringify({ input: { a: [[[[[[[[[[1]]]]]]]]]] } });

/** [method, path, body, headers, fast]: `fast` says whether the fast path answers it. */
const MATRIX: [string, string, string | Buffer | undefined, Record<string, string>, boolean][] = [
  ['POST', '/v1/data/authz/allow', allowBody, JSON_TYPE, true],
  ['POST', '/v1/data/authz/allow', allowBody, { ...JSON_TYPE, ...GZIP_OK }, true],
  ['POST', '/v1/data/authz', allowBody, { ...JSON_TYPE, ...GZIP_OK }, true],
  ['POST', '/v1/data/authz', allowBody, JSON_TYPE, true],
  ['POST', '/v1/data/authz/allow', allowBody, {}, true],
  ['POST', '/v1/data/authz/allow', '{"input": {"user": "bob"}}', JSON_TYPE, true],
  ['POST', '/v1/data/authz/missing', allowBody, JSON_TYPE, true],
  ['POST', '/v1/data/authz/conflict', '{"input":{"x":true}}', JSON_TYPE, true],
  ['POST', '/v1/data/authz/allow', '{"input": ', JSON_TYPE, true],
  ['POST', '/v1/data/authz/allow', '{"input": 1} trailing', JSON_TYPE, true],
  ['POST', '/v1/data/authz/allow', '[1, 2]', JSON_TYPE, true],
  ['POST', '/v1/data/authz/allow', 'null', JSON_TYPE, true],
  ['POST', '/v1/data/authz/allow', '{}', JSON_TYPE, true],
  ['POST', '/v1/data/authz/allow', '', JSON_TYPE, true],
  ['POST', '/v1/data/authz/allow', undefined, {}, true],
  ['POST', '/v1/data/authz/allow', deep, JSON_TYPE, true],
  ['POST', '/v1/data/authz/allow', '{"input": {"n": 123456789012345678901234567890}}', JSON_TYPE, true],
  ['POST', '/v1/data/authz/allow?pretty', allowBody, JSON_TYPE, true],
  ['POST', '/v1/data/authz/allow?metrics=true&provenance', allowBody, JSON_TYPE, true],
  ['POST', '/v1/data/authz/allow?instrument', allowBody, JSON_TYPE, true],
  ['POST', '/v1/data/authz/allow?explain=full', allowBody, JSON_TYPE, true],
  ['POST', '/v1/data/strict/x?strict-builtin-errors', '{}', JSON_TYPE, true],
  ['POST', '/v1/data/strict/x', '{}', JSON_TYPE, true],
  ['POST', '/v1/data', allowBody, { ...JSON_TYPE, ...GZIP_OK }, true],
  ['POST', '/v1/data/', allowBody, JSON_TYPE, true],
  ['POST', '/v1/data//authz//allow', allowBody, JSON_TYPE, true],
  ['POST', `/v1/data/authz/${'long_name.'.repeat(40)}`, allowBody, JSON_TYPE, true],
  ['POST', '/v1/data/a-b/c~d/0/x.y', allowBody, JSON_TYPE, true],
  ['GET', '/v1/data/authz/allow', undefined, {}, true],
  ['GET', '/v1/data/authz?input={"user":"alice"}', undefined, GZIP_OK, true],
  ['GET', '/v1/data/authz/allow?input={bad', undefined, {}, true],
  ['GET', '/v1/data/authz/allow', allowBody, JSON_TYPE, true],
  // Fastify's: other shapes.
  ['POST', '/v1/data/authz/allow', gzipSync(allowBody), { ...JSON_TYPE, 'content-encoding': 'gzip' }, false],
  ['POST', '/v1/data/authz/allow', allowBody, { 'content-type': 'application/json; charset=utf-8' }, false],
  ['POST', '/v1/data/authz/allow', 'input: {user: alice}', { 'content-type': 'application/x-yaml' }, false],
  ['POST', '/v1/data/authz/al%6cow', allowBody, JSON_TYPE, false],
  ['POST', '/v1/data/authz/allow', allowBody, { ...JSON_TYPE, 'transfer-encoding': 'chunked' }, false],
  ['POST', '/v1/data/authz/allow', allowBody, { ...JSON_TYPE, 'content-length': '99999999999' }, false],
  ['POST', '/v1/datax', allowBody, JSON_TYPE, false],
  ['PUT', '/v1/data/x', '{"a": 1}', JSON_TYPE, false],
  ['POST', '/v0/data/authz/allow', '{"user": "alice"}', JSON_TYPE, false],
];

const POLICY =
  'package authz\n\ndefault allow := false\n\nallow if input.user == "alice"\n\nconflict := 1 if input.x\nconflict := 2 if input.x\n\nbig := concat(",", [sprintf("item-%d", [i]) | some i in numbers.range(1, 50)])\n';
// Small gzip threshold: some answers are compressed, others not. Decision logging on (events captured below).
const CONFIG = 'server:\n  encoding:\n    gzip:\n      min_length: 64\ndecision_logs:\n  console: true\n';

describe('Data API fast path', () => {
  const servers: TestServer[] = [];
  const events: string[][] = [[], []];
  beforeAll(async () => {
    for (const fastPath of [true, false]) {
      const server = await startTestServer({ fastPath, maxDepth: 8, configText: CONFIG });
      const log = events[servers.length]!;
      server.app.regent.attachPlugins({
        logDecision: (e: DecisionEvent) => void log.push(mask(eventJSON(e))),
        rendersEvents: true,
        status: () => ({}),
        stop: async () => undefined,
      });
      servers.push(server);
      expect((await putPolicy(server, 'authz.rego', POLICY)).status).toBe(200);
      expect((await putPolicy(server, 'strict.rego', 'package strict\nx := to_number("abc")\n')).status).toBe(200);
    }
  }, 60_000);
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('is on by default and off when asked', () => {
    expect(servers[0]!.app.regentFastPath?.enabled).toBe(true);
    expect(servers[1]!.app.regentFastPath).toBeUndefined();
  });

  it.each(MATRIX.map((row, i) => [i, ...row] as const))('request %i: %s %s answers as the Fastify route', async (_i, method, path, body, headers, fast) => {
    const [fastServer, plainServer] = servers as [TestServer, TestServer];
    const before = fastServer.app.regentFastPath!.answered;
    const a = await send(fastServer, method, path, body, headers);
    const b = await send(plainServer, method, path, body, headers);
    expect(fastServer.app.regentFastPath!.answered - before).toBe(fast ? 1 : 0);
    expect(a).toEqual(b);
    expect(a.headers.length).toBeGreaterThanOrEqual(1);
  });

  it('logs the same decision events', () => {
    expect(events[0]!.length).toBeGreaterThan(20);
    expect(events[0]).toEqual(events[1]);
  });

  it('counts the same http_request_duration_seconds observations', async () => {
    const counts = async (s: TestServer): Promise<string[]> => {
      const text = (await send(s, 'GET', '/metrics', undefined, {})).body;
      return text.split('\n').filter((l) => l.startsWith('http_request_duration_seconds_count') && !l.includes('handler="v1/policies"') && !l.includes('handler="metrics"'));
    };
    const [a, b] = [await counts(servers[0]!), await counts(servers[1]!)];
    expect(a.some((l) => l.includes('handler="v1/data",method="post"'))).toBe(true);
    expect(a.sort()).toEqual(b.sort());
  });
});

describe('Data API fast path: servers it stays off for', () => {
  it('stays off with another request hook, which then runs for every request', async () => {
    const app = await buildServer({});
    let seen = 0;
    app.addHook('onRequest', (_req, _reply, done) => {
      seen++;
      done();
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const server: TestServer = { app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, close: () => app.close() };
    try {
      const r = await send(server, 'POST', '/v1/data/x', '{"input":{}}', JSON_TYPE);
      expect(r.status).toBe(200);
      expect(seen).toBe(1);
      expect(server.app.regentFastPath!.enabled).toBe(false);
      expect(server.app.regentFastPath!.answered).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('stays off with authorization', async () => {
    const server = await startTestServer({ authorization: 'basic' });
    try {
      const r = await send(server, 'POST', '/v1/data/x', '{"input":{}}', JSON_TYPE);
      expect(r.status).not.toBe(200);
      expect(server.app.regentFastPath!.answered).toBe(0);
    } finally {
      await server.close();
    }
  });
});
