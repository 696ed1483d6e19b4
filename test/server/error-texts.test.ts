// Black-box tests of the 400 texts for malformed request bodies and input
// parameters: OPA reports Go's encoding/json (and go-yaml) messages, which clients
// compare byte for byte, so the exact bodies are pinned here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, putPolicy, startTestServer, type TestServer } from './helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  await putPolicy(server, 'x.rego', 'package x\n\nv := input.v\n');
});
afterAll(() => server.close());

const invalid = (message: string) => ({ code: 'invalid_parameter', message });

describe('malformed JSON gives Go decoder messages', () => {
  it('POST /v1/data/x with {"input": x}', async () => {
    const r = await call(server, 'POST', '/v1/data/x', '{"input": x}');
    expect(r.status).toBe(400);
    expect(r.json()).toEqual(invalid("body contains malformed input document: invalid character 'x' looking for beginning of value"));
  });

  it('POST /v1/data reads only the first JSON value, as json.Decoder does', async () => {
    const r = await call(server, 'POST', '/v1/data/x/v', '{"input": {"v": 1}} trailing');
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ result: 1 });
    const t = await call(server, 'POST', '/v1/data/x', '{"input": {"v": 1}');
    expect(t.json()).toEqual(invalid('body contains malformed input document: unexpected EOF'));
  });

  it('GET ?input= rejects trailing data, as util.UnmarshalJSON does', async () => {
    const q = (s: string) => `/v1/data/x/v?input=${encodeURIComponent(s)}`;
    expect((await call(server, 'GET', q('{"v": 2}'))).json()).toEqual({ result: 2 });
    expect((await call(server, 'GET', q('{"v": 2} 3'))).json()).toEqual(invalid("parameter contains malformed input document: error: invalid character '3' after top-level value"));
    expect((await call(server, 'GET', q(''))).json()).toEqual(invalid('parameter contains malformed input document: EOF'));
  });

  it('PUT /v1/data reports the bare decoder error', async () => {
    expect((await call(server, 'PUT', '/v1/data/d', '{"a": tru}')).json()).toEqual(invalid("invalid character '}' in literal true (expecting 'e')"));
    expect((await call(server, 'PUT', '/v1/data/d', '')).json()).toEqual(invalid('EOF'));
  });

  it('POST /v1/query and /v0/data keep their prefixes', async () => {
    expect((await call(server, 'POST', '/v1/query', '{"query": "x = 1",}')).json()).toEqual(
      invalid("error(s) occurred while decoding request: invalid character '}' looking for beginning of object key string"),
    );
    expect((await call(server, 'POST', '/v0/data/x', '[1 2]')).json()).toEqual(
      invalid("unexpected parse error for input: body contains malformed input document: invalid character '2' after array element"),
    );
  });

  it('YAML bodies give go-yaml messages', async () => {
    const r = await call(server, 'POST', '/v1/data/x', 'input: [unclosed', { 'content-type': 'application/x-yaml' });
    expect(r.json()).toEqual(invalid("body contains malformed input document: yaml: line 1: did not find expected ',' or ']'"));
  });
});

describe('bodies of the wrong JSON kind give Go UnmarshalTypeError texts', () => {
  it('POST /v1/data: null is a missing input, other non-objects are 400', async () => {
    const nul = await call(server, 'POST', '/v1/data/x', 'null');
    expect(nul.status).toBe(200);
    expect(nul.json()).toEqual({ result: {}, warning: { code: 'api_usage_warning', message: "'input' key missing from the request" } });
    for (const [body, kind] of [['[1]', 'array'], ['"s"', 'string'], ['7', 'number'], ['true', 'bool']]) {
      expect((await call(server, 'POST', '/v1/data/x', body!)).json()).toEqual(invalid(`body contains malformed input document: json: cannot unmarshal ${kind} into Go value of type types.DataRequestV1`));
    }
  });

  it('POST /v1/query: a non-object body or a non-string query', async () => {
    expect((await call(server, 'POST', '/v1/query', '[]')).json()).toEqual(invalid('error(s) occurred while decoding request: json: cannot unmarshal array into Go value of type types.QueryRequestV1'));
    expect((await call(server, 'POST', '/v1/query', '{"query": 1}')).json()).toEqual(
      invalid('error(s) occurred while decoding request: json: cannot unmarshal number into Go struct field QueryRequestV1.query of type string'),
    );
  });

  it('PUT /v1/data: an over-deep body names the limit without a dangling prefix', async () => {
    const deep = '['.repeat(1500) + ']'.repeat(1500);
    expect((await call(server, 'PUT', '/v1/data/d', deep)).json()).toEqual(invalid('exceeded max depth'));
  });
});
