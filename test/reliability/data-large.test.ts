// Issue 10 item 4 through a real `regent run --server` process: a 50 MB PUT
// /v1/data is parsed off the request path (worker threads build it from shared
// bytes in slices; in-process it is built in slices), so a normal decision sent
// every 0.5 s keeps answering; the new document is visible to every decision once
// the PUT returns; an invalid 50 MB body gets a clean 400 `{code, message}` in Go's
// words. Prints the worst probe latency and the RSS growth per JSON byte.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDocumentText } from '../../bench/memory-data.js';
import { errorBody, probeDuring, reportProbe, send, startServer, type RunningServer } from './helpers.js';

const SIZE = 50e6;
let doc: string;
let other: string;

beforeAll(() => {
  doc = generateDocumentText(SIZE, 1);
  other = generateDocumentText(SIZE, 2);
}, 60_000); // several seconds on the loaded 2-core machine

function put(srv: RunningServer, path: string, body: string): ReturnType<typeof send> {
  return send(srv, { method: 'PUT', path, body, headers: { 'content-type': 'application/json' }, timeoutMs: 120_000 });
}

async function read(srv: RunningServer, path: string): Promise<unknown> {
  const r = await send(srv, { method: 'GET', path, timeoutMs: 30_000 });
  return r.json();
}

/** `users.user-0000001.email` of a generated document, read from its text. */
function firstEmail(text: string): string {
  const users = JSON.parse(text) as { users: Record<string, { email: string }> };
  return users.users['user-0000001']!.email;
}

for (const workers of ['auto', '0']) {
  describe(`50 MB PUT /v1/data (--workers ${workers})`, () => {
    let srv: RunningServer;
    beforeAll(async () => {
      srv = await startServer({ args: ['--workers', workers] });
    }, 60_000);
    afterAll(async () => {
      await srv?.close();
    });

    it('item 4: answers 204 while decisions keep answering; the document is then visible', async () => {
      const before = srv.rssMB();
      const { result, probe } = await probeDuring(srv, () => put(srv, '/v1/data/big', doc));
      expect(result.status, result.text).toBe(204);
      expect(srv.alive()).toBe(true);
      reportProbe(`item 4: 50 MB PUT (--workers ${workers})`, probe);
      await new Promise((resolve) => setTimeout(resolve, 1500)); // the main thread's collection after a large write
      console.log(`[reliability] 50 MB PUT (--workers ${workers}): RSS growth ${((srv.rssMB() - before) / (Buffer.byteLength(doc) / 2 ** 20)).toFixed(2)}x the JSON size`);
      expect(probe.failed).toBe(0);
      expect(probe.worstMs).toBeLessThan(2000);
      expect(await read(srv, '/v1/data/big/users/user-0000001/email')).toEqual({ result: firstEmail(doc) });
    }, 180_000);

    it('replaces the document atomically: every read after the PUT sees the new one', async () => {
      const { result, probe } = await probeDuring(srv, () => put(srv, '/v1/data/big', other));
      expect(result.status, result.text).toBe(204);
      reportProbe(`second 50 MB PUT (--workers ${workers})`, probe);
      expect(probe.worstMs).toBeLessThan(2000);
      const reads = await Promise.all(Array.from({ length: 4 }, () => read(srv, '/v1/data/big/users/user-0000001/email')));
      expect(reads).toEqual(Array.from({ length: 4 }, () => ({ result: firstEmail(other) })));
      // A small write below the large document still works (it is built on the main thread then).
      expect((await send(srv, { method: 'PUT', path: '/v1/data/big/users/user-0000001/email', body: '"x@example.com"' })).status).toBe(204);
      expect(await read(srv, '/v1/data/big/users/user-0000001/email')).toEqual({ result: 'x@example.com' });
      expect(await read(srv, '/v1/data/big/users/user-0000002/email')).toEqual({ result: (JSON.parse(other) as { users: Record<string, { email: string }> }).users['user-0000002']!.email });
    }, 180_000);

    it('a 50 MB PATCH is applied without blocking decisions', async () => {
      const patch = `[{"op":"add","path":"/patched","value":${doc}},{"op":"add","path":"/patched/users/user-0000001/email","value":"p@example.com"},{"op":"add","path":"/small","value":{"a":1}}]`;
      const { result, probe } = await probeDuring(srv, () => send(srv, { method: 'PATCH', path: '/v1/data', body: patch, headers: { 'content-type': 'application/json' }, timeoutMs: 120_000 }));
      expect(result.status, result.text).toBe(204);
      reportProbe(`50 MB PATCH (--workers ${workers})`, probe);
      expect(probe.worstMs).toBeLessThan(2000);
      const reads = await Promise.all([read(srv, '/v1/data/patched/users/user-0000001/email'), read(srv, '/v1/data/patched/users/user-0000002/email'), read(srv, '/v1/data/small')]);
      expect(reads).toEqual([{ result: 'p@example.com' }, { result: (JSON.parse(doc) as { users: Record<string, { email: string }> }).users['user-0000002']!.email }, { result: { a: 1 } }]);
      expect((await send(srv, { method: 'DELETE', path: '/v1/data/patched' })).status).toBe(204);
    }, 180_000);

    it('an invalid 50 MB body gets 400 with Go decoder wording, and the old document stays', async () => {
      const { result, probe } = await probeDuring(srv, () => put(srv, '/v1/data/big', doc.slice(0, -10)));
      expect(result.status, result.text).toBe(400);
      expect(errorBody(result)).toEqual({ code: 'invalid_parameter', message: 'unexpected EOF' });
      expect(srv.alive()).toBe(true);
      reportProbe(`invalid 50 MB PUT (--workers ${workers})`, probe);
      expect(probe.worstMs).toBeLessThan(2000);
      expect(await read(srv, '/v1/data/big/users/user-0000001/email')).toEqual({ result: 'x@example.com' });
    }, 180_000);
  });
}

describe('50 MB PUT /v1/data with --worker-heap-mb 64', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({ args: ['--worker-heap-mb', '64'] });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
  });

  it('refuses a document that does not fit in a worker with a 500 naming the limit; decisions keep answering', async () => {
    // An array of records: big arrays are built in full (a big object would be lazy, and fit).
    const records = JSON.stringify({ list: Object.values((JSON.parse(doc) as { users: object }).users) });
    expect(records.length).toBeGreaterThan(40e6);
    const { result, probe } = await probeDuring(srv, () => put(srv, '/v1/data/big', records));
    expect(result.status, result.text).toBe(500);
    expect(errorBody(result)).toMatchObject({ code: 'internal_error', message: expect.stringMatching(/--worker-heap-mb/) });
    expect(srv.alive()).toBe(true);
    reportProbe('50 MB PUT over the worker heap limit', probe);
    expect(probe.worstMs).toBeLessThan(2000);
    expect(await read(srv, '/v1/data/big')).toEqual({});
  }, 180_000);
});
