// Black-box tests of the Data API (v1 and v0 webhook) against a listening server:
// status codes, error codes and messages, body shapes and headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { call, gzip, putPolicy, rawRequest, startTestServer, type TestServer } from './helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ configText: 'server:\n  encoding:\n    gzip:\n      min_length: 64\n' });
  await putPolicy(server, 'authz.rego', 'package authz\n\ndefault allow := false\n\nallow if input.user == "alice"\n\nconflict := 1 if input.x\nconflict := 2 if input.x\n\nbig := concat(",", [sprintf("item-%d", [i]) | some i in numbers.range(1, 50)])\n');
  await call(server, 'PUT', '/v1/data/users', { alice: { role: 'admin' }, bob: { role: 'dev' } });
});
afterAll(() => server.close());

describe('GET/POST /v1/data', () => {
  it('evaluates a rule with input from the body', async () => {
    const r = await call(server, 'POST', '/v1/data/authz/allow', { input: { user: 'alice' } }, { 'content-type': 'application/json' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.text).toBe('{"result":true}\n');
  });

  it('reads base documents and the root document', async () => {
    expect((await call(server, 'GET', '/v1/data/users/bob/role')).json()).toEqual({ result: 'dev' });
    const root = (await call(server, 'GET', '/v1/data')).json() as { result: Record<string, unknown> };
    expect(Object.keys(root.result)).toEqual(expect.arrayContaining(['authz', 'users']));
    expect((await call(server, 'GET', '/v1/data/')).json()).toEqual(root);
  });

  it('takes input from the `input` query parameter (last one wins)', async () => {
    const q = encodeURIComponent(JSON.stringify({ user: 'bob' }));
    const a = encodeURIComponent(JSON.stringify({ user: 'alice' }));
    expect((await call(server, 'GET', `/v1/data/authz/allow?input=${q}`)).json()).toEqual({ result: false });
    expect((await call(server, 'GET', `/v1/data/authz/allow?input=${q}&input=${a}`)).json()).toEqual({ result: true });
  });

  it('answers 400 for a malformed input parameter', async () => {
    const r = await call(server, 'GET', '/v1/data/authz/allow?input=%7Bbad');
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ code: 'invalid_parameter', message: expect.stringMatching(/^parameter contains malformed input document: /) });
    expect(r.text.endsWith('\n')).toBe(true);
    expect(r.text).toContain('\n  "code"'); // errors are always pretty-printed
  });

  it('returns 200 without result when undefined, with a warning when input is missing', async () => {
    expect((await call(server, 'GET', '/v1/data/nothing/here')).text).toBe('{}\n');
    const r = await call(server, 'POST', '/v1/data/nothing', '');
    expect(r.json()).toEqual({ warning: { code: 'api_usage_warning', message: "'input' key missing from the request" } });
  });

  it('accepts YAML bodies', async () => {
    const r = await call(server, 'POST', '/v1/data/authz/allow', 'input:\n  user: alice\n', { 'content-type': 'application/yaml' });
    expect(r.json()).toEqual({ result: true });
  });

  it('answers 400 for malformed JSON and YAML bodies, and keeps serving', async () => {
    const j = await call(server, 'POST', '/v1/data/authz/allow', '{"input": ', { 'content-type': 'application/json' });
    expect(j.status).toBe(400);
    expect(j.json()).toMatchObject({ code: 'invalid_parameter', message: expect.stringMatching(/^body contains malformed input document: /) });
    const y = await call(server, 'POST', '/v1/data/authz/allow', 'input: [unclosed', { 'content-type': 'application/x-yaml' });
    expect(y.status).toBe(400);
    expect(y.json()).toMatchObject({ code: 'invalid_parameter' });
    expect((await call(server, 'GET', '/v1/data/users/bob/role')).status).toBe(200);
  });

  it('decodes gzip request bodies and rejects bad gzip', async () => {
    const ok = await call(server, 'POST', '/v1/data/authz/allow', gzip('{"input":{"user":"alice"}}'), { 'content-encoding': 'gzip' });
    expect(ok.json()).toEqual({ result: true });
    const bad = await call(server, 'POST', '/v1/data/authz/allow', 'not gzip at all', { 'content-encoding': 'gzip' });
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_parameter', message: expect.stringMatching(/^could not decompress the body/) });
  });

  it('gzips responses at or above min_length when accepted, with Vary', async () => {
    const big = await rawRequest(server, 'GET', '/v1/data/authz/big', undefined, { 'accept-encoding': 'gzip' });
    expect(big.headers['content-encoding']).toBe('gzip');
    expect(big.headers.vary).toBe('Accept-Encoding');
    expect(JSON.parse(gunzipSync(big.body).toString()).result).toMatch(/^item-1,item-2/);
    const small = await rawRequest(server, 'GET', '/v1/data/users/bob/role', undefined, { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toBe('Accept-Encoding');
    expect(small.body.toString()).toBe('{"result":"dev"}\n');
    const notAccepted = await rawRequest(server, 'GET', '/v1/data/authz/big');
    expect(notAccepted.headers['content-encoding']).toBeUndefined();
  });

  it('rejects too deeply nested bodies with 400', async () => {
    const deep = '{"input":' + '['.repeat(5000) + ']'.repeat(5000) + '}';
    const r = await call(server, 'POST', '/v1/data/authz/allow', deep);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('exceeded max depth') });
  });

  it('supports pretty, metrics, provenance, explain and strict-builtin-errors', async () => {
    const pretty = await call(server, 'GET', '/v1/data/users/bob?pretty=true');
    expect(pretty.text).toBe('{\n  "result": {\n    "role": "dev"\n  }\n}\n');
    const m = (await call(server, 'POST', '/v1/data/authz/allow?metrics', { input: { user: 'x' } })).json() as { metrics: Record<string, number> };
    expect(Object.keys(m.metrics)).toEqual(expect.arrayContaining(['timer_rego_query_eval_ns', 'timer_server_handler_ns', 'timer_rego_input_parse_ns']));
    const instrumented = (await call(server, 'POST', '/v1/data/authz?instrument', { input: { user: 'x' } })).json() as { metrics: Record<string, number> };
    expect(Object.keys(instrumented.metrics)).toEqual(
      expect.arrayContaining(['timer_query_compile_stage_parse_ns', 'timer_query_compile_stage_plan_ns', 'timer_query_compile_stage_codegen_ns', 'timer_rego_query_eval_ns']),
    );
    const again = (await call(server, 'POST', '/v1/data/authz/allow?metrics=true', { input: { user: 'x' } })).json() as { metrics: Record<string, number> };
    expect(again.metrics.counter_server_query_cache_hit).toBe(1);
    expect(again.metrics.timer_rego_query_parse_ns).toBeUndefined();
    const p = (await call(server, 'GET', '/v1/data/users/bob?provenance')).json() as { provenance: Record<string, unknown> };
    expect(p.provenance).toMatchObject({ version: '0.1.0-test' });
    expect(Object.keys(p.provenance)).toEqual(['version', 'build_commit', 'build_timestamp', 'build_hostname']);
    const explained = (await call(server, 'GET', '/v1/data/users/bob?explain=full')).json() as { result: unknown; explanation: { op: string; query_id: number; parent_id: number; type: string }[] };
    expect(explained.result).toEqual({ role: 'dev' });
    expect(explained.explanation.map((e) => e.op)).toEqual(['enter', 'eval', 'exit', 'redo', 'redo']);
    expect(explained.explanation[0]).toMatchObject({ query_id: 0, parent_id: 0, type: 'body' });
    const prettyExplained = (await call(server, 'GET', '/v1/data/users/bob?explain=full&pretty=true')).json() as { explanation: string[] };
    expect(prettyExplained.explanation[0]).toMatch(/^Enter /);
    expect((await call(server, 'GET', '/v1/data/users/nobody?explain=notes')).json()).toEqual({});
    await putPolicy(server, 'strict.rego', 'package strict\nx := to_number("abc")\n');
    expect((await call(server, 'GET', '/v1/data/strict/x')).json()).toEqual({});
    const strict = await call(server, 'GET', '/v1/data/strict/x?strict-builtin-errors');
    expect(strict.status).toBe(500);
    expect(strict.json()).toMatchObject({ code: 'internal_error', message: 'error(s) occurred while evaluating query', errors: [{ code: 'eval_builtin_error' }] });
  });

  it('maps evaluation errors to 500 internal_error with the eval error', async () => {
    const r = await call(server, 'POST', '/v1/data/authz/conflict', { input: { x: true } });
    expect(r.status).toBe(500);
    expect(r.json()).toMatchObject({ code: 'internal_error', message: 'error(s) occurred while evaluating query', errors: [{ code: 'eval_conflict_error', message: 'complete rules must not produce multiple outputs' }] });
  });

  it('answers 500 for a path segment with a double quote', async () => {
    const r = await call(server, 'GET', '/v1/data/a%22b');
    expect(r.status).toBe(500);
    expect(r.json()).toEqual({ code: 'internal_error', message: `invalid_parameter: invalid path: invalid ref term 'a"b'` });
  });
});

describe('PUT/PATCH/DELETE /v1/data', () => {
  it('creates parents, replaces, honours If-None-Match and reports conflicts', async () => {
    expect((await call(server, 'PUT', '/v1/data/w/a/b/c', 1)).status).toBe(204);
    expect((await call(server, 'GET', '/v1/data/w')).json()).toEqual({ result: { a: { b: { c: 1 } } } });
    const inm = await call(server, 'PUT', '/v1/data/w/a/b/c', 2, { 'if-none-match': '*' });
    expect(inm.status).toBe(304);
    expect(inm.text).toBe('');
    expect((await call(server, 'GET', '/v1/data/w/a/b/c')).json()).toEqual({ result: 1 });
    expect((await call(server, 'PUT', '/v1/data/w/a/b/c', 3)).status).toBe(204);
    const conflict = await call(server, 'PUT', '/v1/data/w/a/b/c/d', 1);
    expect(conflict.status).toBe(404);
    expect(conflict.json()).toEqual({ code: 'resource_conflict', message: 'storage_write_conflict_error: /w/a/b/c' });
    const m = await call(server, 'PUT', '/v1/data/w/m?metrics', 1);
    expect(m.status).toBe(200);
    expect(Object.keys((m.json() as { metrics: object }).metrics)).toContain('timer_server_handler_ns');
  });

  it('rejects writes over rules (path conflict) and malformed bodies with 400', async () => {
    const r = await call(server, 'PUT', '/v1/data/authz/allow', true);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('conflicting rule for data path authz/allow found') });
    expect((await call(server, 'GET', '/v1/data/authz/allow')).json()).toEqual({ result: false });
    const bad = await call(server, 'PUT', '/v1/data/w/x', '{nope');
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_parameter' });
    const root = await call(server, 'PUT', '/v1/data', [1]);
    expect(root.status).toBe(400);
    expect(root.json()).toEqual({ code: 'invalid_parameter', message: 'storage_invalid_patch_error: root must be object' });
  });

  it('applies JSON patches atomically', async () => {
    await call(server, 'PUT', '/v1/data/p', { list: [1, 2], obj: { k: 'v' } });
    const ok = await call(server, 'PATCH', '/v1/data/p', [
      { op: 'add', path: '/list/-', value: 3 },
      { op: 'replace', path: 'obj/k', value: 'w' },
      { op: 'remove', path: '/list/0' },
    ], { 'content-type': 'application/json-patch+json' });
    expect(ok.status).toBe(204);
    expect((await call(server, 'GET', '/v1/data/p')).json()).toEqual({ result: { list: [2, 3], obj: { k: 'w' } } });
    const failing = await call(server, 'PATCH', '/v1/data/p', [
      { op: 'add', path: '/new', value: 1 },
      { op: 'replace', path: '/missing', value: 1 },
    ]);
    expect(failing.status).toBe(404);
    expect(failing.json()).toEqual({ code: 'resource_not_found', message: 'storage_not_found_error: /p/missing: document does not exist' });
    expect((await call(server, 'GET', '/v1/data/p/new')).json()).toEqual({});
    const parent = await call(server, 'PATCH', '/v1/data/p', [{ op: 'add', path: '/no/such', value: 1 }]);
    expect(parent.status).toBe(404);
    const badOp = await call(server, 'PATCH', '/v1/data/p', [{ op: 'move', from: '/a', path: '/b' }]);
    expect(badOp.status).toBe(400);
    expect(badOp.json()).toEqual({ code: 'invalid_parameter', message: 'bad patch operation: move' });
  });

  it('deletes documents; missing documents are 404', async () => {
    await call(server, 'PUT', '/v1/data/gone', { a: 1 });
    expect((await call(server, 'DELETE', '/v1/data/gone/a')).status).toBe(204);
    expect((await call(server, 'GET', '/v1/data/gone')).json()).toEqual({ result: {} });
    const missing = await call(server, 'DELETE', '/v1/data/missing');
    expect(missing.status).toBe(404);
    expect(missing.json()).toEqual({ code: 'resource_not_found', message: 'storage_not_found_error: /missing: document does not exist' });
  });
});

describe('POST /v0/data', () => {
  it('uses the body as input and returns the bare value', async () => {
    const r = await call(server, 'POST', '/v0/data/authz/allow', { user: 'alice' });
    expect(r.status).toBe(200);
    expect(r.text).toBe('true\n');
  });

  it('answers 404 undefined_document, distinguishing missing from undefined', async () => {
    const missing = await call(server, 'POST', '/v0/data/a/b-c', {});
    expect(missing.status).toBe(404);
    expect(missing.json()).toEqual({ code: 'undefined_document', message: 'document missing: data.a["b-c"]' });
    await putPolicy(server, 'partial.rego', 'package partial\nq := 1 if input.never\n');
    const undef = await call(server, 'POST', '/v0/data/partial/q', '');
    expect(undef.json()).toEqual({ code: 'undefined_document', message: 'document undefined: data.partial.q' });
  });

  it('reports malformed bodies as 400', async () => {
    const r = await call(server, 'POST', '/v0/data/authz/allow', '{');
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ code: 'invalid_parameter', message: expect.stringMatching(/^unexpected parse error for input: body contains malformed input document/) });
  });
});
