// Unit checks of the pieces behind bounded request bodies (issue 10): the
// streaming JSON depth scanner (state carried across chunks), go-yaml's alias
// ratio and the YAML walk, which authorization policies may read input.body
// (auth/body-use.ts), and the envelope for requests Node's parser refuses.
// The end-to-end behaviour is in test/reliability/http-*.test.ts.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load as loadYAML } from 'js-yaml';
import { parseModule } from '../../compiler/index.js';
import { allowedAliasRatio, checkYAMLDocument } from '../../runtime/index.js';
import { DepthScanner, expectsBody } from '../../server/api/body-reader.js';
import { clientErrorReply } from '../../server/api/http-errors.js';
import { moduleUse } from '../../server/auth/body-use.js';
import { call, putPolicy, startTestServer, type TestServer } from './helpers.js';

describe('DepthScanner', () => {
  it('tracks depth, strings and escapes across chunk boundaries', () => {
    const scan = (pieces: string[], max: number): boolean => {
      const s = new DepthScanner(max);
      return pieces.every((p) => s.feed(Buffer.from(p)));
    };
    expect(scan(['[[', '[]]]'], 3)).toBe(true);
    expect(scan(['[[', '[[]]]]'], 3)).toBe(false);
    // Brackets inside strings do not count, even when an escape is split from its quote.
    expect(scan(['["\\', '"[[[[[["]'], 2)).toBe(true);
    expect(scan(['{"a":"]]]]"', ',"b":[[[]]]}'], 4)).toBe(true);
    expect(scan(['{"a":"]]]]"', ',"b":[[[[]]]]}'], 4)).toBe(false);
  });
});

describe('YAML alias bound', () => {
  it('uses go-yaml\'s ratio', () => {
    expect(allowedAliasRatio(1000)).toBe(0.99);
    expect(allowedAliasRatio(4_000_000)).toBe(0.1);
    expect(allowedAliasRatio(2_200_000)).toBeCloseTo(0.545, 3);
  });

  it('refuses a bomb, accepts modest aliasing and wide documents', () => {
    const bomb = ['a: &a [1,2,3,4,5,6,7,8,9]', ...'bcdefg'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefg'[i]}`).join(',')}]`)].join('\n');
    expect(() => checkYAMLDocument(loadYAML(bomb), 1000)).toThrow('yaml: document contains excessive aliasing');
    const modest = 'base: &b {x: 1, y: [1, 2]}\n' + Array.from({ length: 50 }, (_, i) => `k${i}: *b`).join('\n');
    expect(() => checkYAMLDocument(loadYAML(modest), 1000)).not.toThrow();
    const wide = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, [i, { v: i }]]));
    expect(() => checkYAMLDocument(wide, 1000)).not.toThrow();
  });

  it('applies the nesting limit to block-style YAML', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 50; i++) deep = [deep];
    expect(() => checkYAMLDocument(deep, 50)).not.toThrow();
    expect(() => checkYAMLDocument([deep], 50)).toThrow('exceeded max depth');
  });
});

describe('authorization policies and input.body', () => {
  const use = (text: string) => moduleUse(parseModule(text, 'x.rego', {}));
  it('lets references to the other input keys through', () => {
    expect(use('package system.authz\n\nallow if input.method == "GET"\n\nallow if input.path[0] == "health"\n').readsBody).toBe(false);
    expect(use('package system.authz\n\nallow if input.headers["X-Token"][0] == input.identity\n').readsBody).toBe(false);
  });
  it('counts everything that can reach the body', () => {
    for (const text of [
      'package system.authz\n\nallow if input.body.user == "a"\n',
      'package system.authz\n\nallow if input[k] == 1\n',
      'package system.authz\n\nallow if count(input) > 0\n',
      'package system.authz\n\nimport input\n\nallow if input.method == "GET"\n',
      'package system.authz\n\nallow if data.lib.ok with input as {}\n',
    ]) {
      expect([text, use(text).readsBody]).toEqual([text, true]);
    }
  });
  it('collects the data references that make other modules reachable', () => {
    expect(use('package system.authz\n\nimport data.lib.tokens\n\nallow if data.users[input.identity].admin\n\nallow if tokens.valid\n').dataPaths).toEqual(
      expect.arrayContaining([['lib', 'tokens'], ['users']]),
    );
  });
  it('knows which requests carry a body for the authorizer (OPA\'s expectBody)', () => {
    expect(['/', '/v1/data', '/v1/data/x?y=1', '/v0/data/a/b'].map((u) => expectsBody('POST', u))).toEqual([true, true, true, true]);
    expect([expectsBody('GET', '/v1/data'), expectsBody('POST', '/v1/query'), expectsBody('POST', '/v1/datax'), expectsBody('PUT', '/v1/data/x')]).toEqual([false, false, false, false]);
  });
});

describe('errors of the HTTP parser', () => {
  const reply = (code: string, message = '', rawPacket?: Buffer) => clientErrorReply(Object.assign(new Error(message), { code, rawPacket }));
  it('keeps Go\'s status codes', () => {
    expect(reply('HPE_HEADER_OVERFLOW')).toEqual({ status: 431, code: 'invalid_parameter', message: 'request header fields too large' });
    expect(reply('HPE_INVALID_METHOD', '', Buffer.from('FOO / HTTP/1.1')).status).toBe(405);
    expect(reply('HPE_INVALID_METHOD', '', Buffer.from('G(T / HTTP/1.1'))).toEqual({ status: 400, code: 'invalid_parameter', message: 'invalid method' });
    expect(reply('HPE_INVALID_TRANSFER_ENCODING', "Transfer-Encoding can't be present with Content-Length").message).toBe('both Content-Length and Transfer-Encoding are set');
    expect(reply('HPE_INVALID_TRANSFER_ENCODING', 'Invalid transfer-encoding').status).toBe(501);
    expect(reply('HPE_INVALID_VERSION').status).toBe(505);
    expect(reply('HPE_SOMETHING_NEW')).toEqual({ status: 400, code: 'invalid_parameter', message: 'malformed HTTP request' });
  });
});

describe('configured decoding limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ configText: 'server:\n  decoding:\n    max_length: 4096\n    gzip:\n      max_length: 2000\n' });
    await putPolicy(server, 'p.rego', 'package p\n\nn := count(input.s)\n');
  });
  afterAll(() => server.close());
  const post = (body: Buffer | string, headers: Record<string, string> = { 'content-encoding': 'gzip' }) => call(server, 'POST', '/v1/data/p/n', body, headers);

  it('applies server.decoding.gzip.max_length to the decompressed size', async () => {
    expect((await post(gzipSync(JSON.stringify({ input: { s: 'a'.repeat(1900) } })))).text).toBe('{"result":1900}\n');
    const over = await post(gzipSync(JSON.stringify({ input: { s: 'a'.repeat(2100) } })));
    expect([over.status, over.json()]).toEqual([400, { code: 'invalid_parameter', message: 'could not decompress the body: gzip payload too large' }]);
  });

  it('words corrupt and truncated gzip streams as Go does', async () => {
    const whole = gzipSync(JSON.stringify({ input: { s: 'abc' } }));
    expect((await post(Buffer.from('not gzip at all'))).json()).toEqual({ code: 'invalid_parameter', message: 'could not decompress the body: gzip payload too large' });
    const bad = Buffer.concat([Buffer.from('xx'), whole.subarray(2)]);
    expect((await post(bad)).json()).toEqual({ code: 'invalid_parameter', message: 'could not decompress the body: gzip: invalid header' });
    // The trailer claims more than the stream holds: Go's gzip reader fails its size check at the end.
    const short = Buffer.from(whole);
    short.writeUInt32LE(1000, short.length - 4);
    expect((await post(short)).json()).toEqual({ code: 'invalid_parameter', message: 'could not decompress the body: gzip: invalid checksum' });
    // Cut short: unexpected EOF.
    expect((await post(whole.subarray(0, whole.length - 12))).json()).toMatchObject({ code: 'invalid_parameter', message: expect.stringMatching(/^could not decompress the body: /) });
  });

  it('applies server.decoding.max_length to raw bodies, chunked ones included', async () => {
    const big = JSON.stringify({ input: { s: 'a'.repeat(5000) } });
    expect((await post(big, {})).json()).toEqual({ code: 'invalid_parameter', message: 'request body too large' });
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const res = await fetch(server.url + '/v1/data/p/n', { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    expect([res.status, await res.json()]).toEqual([400, { code: 'invalid_parameter', message: 'request body too large' }]);
  });
});
