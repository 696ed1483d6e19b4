// Issue 10, items 2 and 3, and the request-body bullets: hostile request bodies
// against a real `regent run --server` (default flags) get a clean {code, message}
// reply, the process survives, and a normal decision probed every 0.5 s keeps
// answering within 2 s while the hostile request runs.
// - a YAML alias bomb ("billion laughs") is refused as go-yaml refuses it, in a
//   body and in yaml.unmarshal;
// - a 200 KB gzip body inflating to 200 MB is cut off at the decompressed limit
//   while it streams (server.decoding.gzip.max_length);
// - a JSON body nested 20 million deep is refused while it streams;
// - with --authorization=basic, a policy that never reads input.body rejects the
//   request before its body is read (a corrupt gzip body gets 401, not 400).
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBody, probeDuring, reportProbe, send, startServer, withServer, type RunningServer } from './helpers.js';

/** 9 levels of 9 aliases: 9^9 (387 million) strings once expanded; 352 bytes. */
const YAML_BOMB = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...'bcdefghi'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
  'input: *i',
  '',
].join('\n');

/** {"input":[0,0,…]} of about 200 MB, gzipped to about 200 KB. */
function gzipBomb(): Buffer {
  return gzipSync(Buffer.concat([Buffer.from('{"input":['), Buffer.alloc(200_000_000, '0,'), Buffer.from('0]}')]), { level: 9 });
}

const LIMIT_MS = 2000;

describe('hostile request bodies (default flags)', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(async () => {
    await srv?.close();
  });

  it('refuses a YAML alias bomb with go-yaml\'s excessive aliasing error (item 2)', async () => {
    expect(YAML_BOMB.length).toBeLessThan(500);
    const { result, probe } = await probeDuring(srv, () => send(srv, { path: '/v1/data/probe/allow', body: YAML_BOMB, headers: { 'content-type': 'application/yaml' } }));
    reportProbe('YAML alias bomb, POST /v1/data', probe);
    expect(result.status).toBe(400);
    expect(errorBody(result)).toEqual({ code: 'invalid_parameter', message: 'body contains malformed input document: yaml: document contains excessive aliasing' });
    const v0 = await send(srv, { path: '/v0/data/probe/allow', body: YAML_BOMB.replace('input: *i', 'x: *i'), headers: { 'content-type': 'application/x-yaml' } });
    expect(errorBody(v0)).toEqual({ code: 'invalid_parameter', message: 'unexpected parse error for input: body contains malformed input document: yaml: document contains excessive aliasing' });
    expect(srv.alive()).toBe(true);
    expect(probe.failed).toBe(0);
    expect(probe.worstMs).toBeLessThan(LIMIT_MS);
  });

  it('refuses the same bomb in yaml.unmarshal, as go-yaml does', async () => {
    await withServer({ files: { 'y.rego': 'package y\n\nx := count(yaml.unmarshal(input.s).i)\n' } }, async (ysrv) => {
      const body = JSON.stringify({ input: { s: YAML_BOMB } });
      const { result, probe } = await probeDuring(ysrv, () => send(ysrv, { path: '/v1/data/y/x?strict-builtin-errors', body }));
      reportProbe('YAML alias bomb in yaml.unmarshal', probe);
      const err = errorBody(result);
      expect([result.status, err.code]).toEqual([500, 'internal_error']);
      expect((err.errors![0] as { message: string }).message).toBe('yaml.unmarshal: yaml: document contains excessive aliasing');
      expect((await send(ysrv, { path: '/v1/data/y/x', body })).text).toBe('{}\n'); // non-strict: undefined
      expect(ysrv.alive()).toBe(true);
      expect(probe.worstMs).toBeLessThan(LIMIT_MS);
    });
  });

  it('keeps YAML aliases that expand modestly, and bounds block-style nesting', async () => {
    const modest = 'base: &b {user: alice}\ninput: *b\n';
    const ok = await send(srv, { path: '/v1/data/probe/allow', body: modest, headers: { 'content-type': 'application/yaml' } });
    expect([ok.status, ok.text]).toEqual([200, '{"result":true}\n']);
    const deep = 'input:\n' + Array.from({ length: 1500 }, (_, i) => `${' '.repeat(i + 1)}- `).join('\n') + 'x\n';
    const r = await send(srv, { path: '/v1/data/probe/allow', body: deep, headers: { 'content-type': 'application/yaml' } });
    expect(r.status).toBe(400);
    expect(errorBody(r).code).toBe('invalid_parameter');
  });

  it('stops inflating a gzip bomb at the decompressed-size limit (item 3)', async () => {
    const bomb = gzipBomb();
    expect(bomb.length).toBeLessThan(250_000);
    const { result, probe } = await probeDuring(srv, () =>
      send(srv, { path: '/v1/data/probe/allow', body: bomb, headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' } }),
    );
    reportProbe('gzip bomb 200 KB -> 200 MB, POST /v1/data', probe);
    expect(result.status).toBe(400);
    expect(errorBody(result)).toEqual({ code: 'invalid_parameter', message: 'could not decompress the body: gzip payload too large' });
    expect(srv.alive()).toBe(true);
    expect(probe.failed).toBe(0);
    expect(probe.worstMs).toBeLessThan(LIMIT_MS);
  });

  it('inflates only the size a forged gzip trailer claims (as OPA), sent chunked', async () => {
    const bomb = gzipBomb();
    bomb.writeUInt32LE(1000, bomb.length - 4); // claims 1000 bytes
    const pieces = Array.from({ length: Math.ceil(bomb.length / 16384) }, (_, i) => bomb.subarray(i * 16384, (i + 1) * 16384));
    const chunked = [...pieces.map((p) => Buffer.concat([Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from('\r\n')])), Buffer.from('0\r\n\r\n')];
    const { result, probe } = await probeDuring(srv, () =>
      send(srv, { path: '/v1/data/probe/allow', body: chunked, headers: { 'content-encoding': 'gzip', 'transfer-encoding': 'chunked' } }),
    );
    reportProbe('gzip bomb with a forged trailer, chunked', probe);
    // 1000 bytes of `{"input":[0,0,…` are inflated, then the stream is dropped.
    expect(errorBody(result)).toEqual({ code: 'invalid_parameter', message: 'body contains malformed input document: unexpected EOF' });
    expect(probe.peakRssMB).toBeLessThan(1000);
    expect(srv.alive()).toBe(true);
    expect(probe.worstMs).toBeLessThan(LIMIT_MS);
  });

  it('refuses a JSON body nested deeper than the limit while it streams', async () => {
    const chunks = ['{"input":', ...Array.from({ length: 20 }, () => '['.repeat(1_000_000))];
    const { result, probe } = await probeDuring(srv, () => send(srv, { path: '/v1/data/probe/allow', body: chunks, headers: { 'content-type': 'application/json' } }));
    reportProbe('JSON nested 20M deep, POST /v1/data', probe);
    expect(errorBody(result)).toEqual({ code: 'invalid_parameter', message: 'body contains malformed input document: exceeded max depth' });
    const gz = await send(srv, { path: '/v1/data/probe/allow', body: gzipSync('{"input":' + '['.repeat(5_000_000)), headers: { 'content-encoding': 'gzip' } });
    expect(errorBody(gz)).toEqual({ code: 'invalid_parameter', message: 'body contains malformed input document: exceeded max depth' });
    const put = await send(srv, { method: 'PUT', path: '/v1/data/deep', body: '['.repeat(2_000_000) });
    expect(errorBody(put)).toEqual({ code: 'invalid_parameter', message: 'exceeded max depth' });
    expect(srv.alive()).toBe(true);
    expect(probe.worstMs).toBeLessThan(LIMIT_MS);
  });

  it('refuses a declared Content-Length above server.decoding.max_length before reading', async () => {
    const r = await send(srv, { path: '/v1/data/probe/allow', body: '{}', headers: { 'content-length': 2 ** 40 } }).catch((e: Error) => e);
    // The client may see the connection end while it still "owes" the body; a reply is what counts.
    if (!(r instanceof Error)) expect(errorBody(r)).toEqual({ code: 'invalid_parameter', message: 'request body too large' });
    expect(srv.alive()).toBe(true);
  });
});

const AUTHZ_PATH_ONLY = 'package system.authz\n\ndefault allow := false\n\nallow if input.path == ["v1", "data", "probe", "allow"]\n\nallow if input.path[0] == "health"\n';
const AUTHZ_READS_BODY = AUTHZ_PATH_ONLY + '\nallow if input.body.input.user == "alice"\n';

describe('authorization before the body', () => {
  it('rejects with 401 before reading the body when the policy never reads input.body', async () => {
    await withServer({ args: ['--authorization=basic'], files: { 'authz.rego': AUTHZ_PATH_ONLY } }, async (srv) => {
      const corrupt = Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(1000, 7)]);
      const r = await send(srv, { path: '/v1/data/secret', body: corrupt, headers: { 'content-encoding': 'gzip' } });
      expect([r.status, errorBody(r).code]).toEqual([401, 'unauthorized']);
      const bomb = gzipBomb();
      const { result, probe } = await probeDuring(srv, () => send(srv, { path: '/v1/data/secret', body: bomb, headers: { 'content-encoding': 'gzip' } }));
      reportProbe('gzip bomb, authorization rejects first', probe);
      expect(errorBody(result)).toEqual({ code: 'unauthorized', message: 'request rejected by administrative policy' });
      // The allowed path still decompresses under the limit.
      const allowed = await send(srv, { path: '/v1/data/probe/allow', body: gzipSync('{"input":{"user":"alice"}}'), headers: { 'content-encoding': 'gzip' } });
      expect([allowed.status, allowed.text]).toEqual([200, '{"result":true}\n']);
      expect(srv.alive()).toBe(true);
      expect(probe.worstMs).toBeLessThan(LIMIT_MS);
    });
  });

  it('reads the body under its limits first when the policy reads input.body', async () => {
    await withServer({ args: ['--authorization=basic'], files: { 'authz.rego': AUTHZ_READS_BODY } }, async (srv) => {
      const byBody = await send(srv, { path: '/v1/data/probe/allow', body: '{"input":{"user":"alice"}}' });
      expect([byBody.status, byBody.text]).toEqual([200, '{"result":true}\n']);
      const denied = await send(srv, { path: '/v1/data/other', body: '{"input":{"user":"bob"}}' });
      expect(denied.status).toBe(401);
      const { result, probe } = await probeDuring(srv, () => send(srv, { path: '/v1/data/other', body: YAML_BOMB, headers: { 'content-type': 'application/yaml' } }));
      reportProbe('YAML alias bomb read by the authorizer', probe);
      // OPA's authorizer reports the bare parser error.
      expect(errorBody(result)).toEqual({ code: 'invalid_parameter', message: 'yaml: document contains excessive aliasing' });
      const gz = await send(srv, { path: '/v1/data/other', body: gzipBomb(), headers: { 'content-encoding': 'gzip' } });
      expect([gz.status, errorBody(gz).message]).toEqual([400, 'gzip payload too large']); // bare, as OPA's authorizer
      expect(srv.alive()).toBe(true);
      expect(probe.worstMs).toBeLessThan(LIMIT_MS);
    });
  });
});
