// Black-box tests of the Policy, Query, Health, Config, Status and Metrics APIs,
// and of OPA's routing rules (404, 405, body limits), every error as {code, message}.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, putPolicy, startTestServer, type TestServer } from './helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    configText: [
      'services:',
      '  acme:',
      '    url: https://example.com',
      '    credentials:',
      '      bearer:',
      '        token: secret',
      'keys:',
      '  k1:',
      '    key: secret-key',
      '    algorithm: HS256',
      'labels:',
      '  team: policy',
      'default_decision: /example/main',
      'server:',
      '  decoding:',
      '    max_length: 2048',
      'custom_key: kept',
    ].join('\n'),
  });
});
afterAll(() => server.close());

describe('Policy API', () => {
  it('creates, lists, reads, replaces and deletes modules', async () => {
    const put = await putPolicy(server, 'lib/util.rego', 'package lib\n\ndouble(x) := x * 2\n');
    expect(put.status).toBe(200);
    expect(put.text).toBe('{}\n');
    await putPolicy(server, 'app.rego', 'package app\nimport data.lib\n\nfour := lib.double(2)\n');
    const list = (await call(server, 'GET', '/v1/policies')).json() as { result: { id: string }[] };
    expect(list.result.map((p) => p.id).sort()).toEqual(['app.rego', 'lib/util.rego']);
    const one = await call(server, 'GET', '/v1/policies/lib/util.rego');
    const body = one.json() as { result: Record<string, unknown> };
    expect(Object.keys(body.result)).toEqual(['ast', 'id', 'raw']);
    expect(body.result.ast).toMatchObject({ package: { path: [{ type: 'var', value: 'data' }, { type: 'string', value: 'lib' }] }, rules: [{ head: { name: 'double' } }] });
    expect((await call(server, 'GET', '/v1/data/app/four')).json()).toEqual({ result: 4 });
    const withMetrics = await call(server, 'PUT', '/v1/policies/app.rego?metrics', 'package app\nimport data.lib\n\nfour := lib.double(2) + 0\n');
    expect(Object.keys((withMetrics.json() as { metrics: object }).metrics)).toEqual(expect.arrayContaining(['timer_rego_module_parse_ns', 'timer_rego_module_compile_ns']));
    expect(Object.keys((withMetrics.json() as { metrics: object }).metrics).filter((k) => k.startsWith('timer_compile_stage_'))).toEqual([]);
    // instrument implies metrics and times every module-compile stage.
    const instrumented = await call(server, 'PUT', '/v1/policies/app.rego?instrument', 'package app\nimport data.lib\n\nfour := lib.double(2) + 0 + 0\n');
    const keys = Object.keys((instrumented.json() as { metrics: object }).metrics);
    expect(keys).toEqual(expect.arrayContaining(['timer_rego_module_compile_ns', 'timer_compile_stage_resolve_refs_ns', 'timer_compile_stage_plan_ns', 'timer_compile_stage_check_types_ns', 'timer_compile_stage_codegen_ns']));
    expect(keys).toEqual([...keys].sort());
  });

  it('answers 404 for unknown ids', async () => {
    const r = await call(server, 'GET', '/v1/policies/nope.rego');
    expect(r.status).toBe(404);
    expect(r.json()).toEqual({ code: 'resource_not_found', message: 'storage_not_found_error: policy id "nope.rego"' });
    expect((await call(server, 'DELETE', '/v1/policies/nope.rego')).status).toBe(404);
  });

  it('rejects parse and compile errors with 400, keeping the old module', async () => {
    const parse = await putPolicy(server, 'app.rego', 'package app\nfour := (\n');
    expect(parse.status).toBe(400);
    expect(parse.json()).toMatchObject({ code: 'invalid_parameter', message: 'error(s) occurred while compiling module(s)', errors: [{ code: 'rego_parse_error', location: { file: 'app.rego', row: expect.any(Number) } }] });
    // OPA's ParserErrorDetail: the source line and the offending byte's index in it.
    expect((parse.json() as { errors: { details?: unknown }[] }).errors[0]!.details).toEqual({ line: 'four := (', idx: 8 });
    const typed = await putPolicy(server, 'app.rego', 'package app\nbad := upper(1)\n');
    expect((typed.json() as { errors: unknown[] }).errors).toEqual([
      {
        code: 'rego_type_error',
        message: 'upper: invalid argument(s)',
        location: { file: 'app.rego', row: 2, col: 8 },
        details: { have: [{ type: 'number' }, null], want: { args: [{ type: 'string', name: 'x' }] } },
      },
    ]);
    const unsafe = await putPolicy(server, 'app.rego', 'package app\nfour if y > 1\n');
    expect(unsafe.json()).toMatchObject({ code: 'invalid_parameter', errors: [{ code: 'rego_unsafe_var_error', location: { file: 'app.rego', row: 2 } }] });
    expect((await call(server, 'GET', '/v1/data/app/four')).json()).toEqual({ result: 4 });
    const empty = await putPolicy(server, 'empty.rego', '# nothing\n');
    expect(empty.json()).toEqual({ code: 'invalid_parameter', message: 'empty module' });
  });

  it('refuses to delete a module others depend on (400 invalid_operation)', async () => {
    const r = await call(server, 'DELETE', '/v1/policies/lib/util.rego');
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ code: 'invalid_operation', message: 'error(s) occurred while compiling module(s)' });
    expect((await call(server, 'DELETE', '/v1/policies/app.rego')).text).toBe('{}\n');
    expect((await call(server, 'DELETE', '/v1/policies/lib/util.rego')).status).toBe(200);
  });
});

describe('Query API', () => {
  it('runs ad-hoc queries and returns bindings', async () => {
    await call(server, 'PUT', '/v1/data/nums', [1, 2, 3]);
    const r = await call(server, 'GET', `/v1/query?q=${encodeURIComponent('x := data.nums[_]; x > 1')}`);
    expect(r.json()).toEqual({ result: [{ x: 2 }, { x: 3 }] });
    expect((await call(server, 'GET', `/v1/query?q=${encodeURIComponent('1 == 1')}`)).json()).toEqual({ result: [{}] });
    expect((await call(server, 'GET', `/v1/query?q=${encodeURIComponent('x := 1; x > 2')}`)).json()).toEqual({});
    const post = await call(server, 'POST', '/v1/query?metrics', { query: 'y := input.a + 1', input: { a: 41 } });
    expect(post.json()).toMatchObject({ result: [{ y: 42 }], metrics: { timer_rego_query_eval_ns: expect.any(Number) } });
  });

  it('maps missing, unparsable and uncompilable queries to 400', async () => {
    expect((await call(server, 'GET', '/v1/query')).json()).toEqual({ code: 'invalid_parameter', message: "missing parameter 'q'" });
    expect((await call(server, 'GET', `/v1/query?q=${encodeURIComponent('x := ')}`)).json()).toMatchObject({ code: 'invalid_parameter', message: 'error(s) occurred while parsing query' });
    expect((await call(server, 'GET', `/v1/query?q=${encodeURIComponent('x > 1')}`)).json()).toMatchObject({ code: 'invalid_parameter', message: 'error(s) occurred while compiling query' });
    expect((await call(server, 'POST', '/v1/query', '{bad')).json()).toMatchObject({ code: 'invalid_parameter', message: expect.stringMatching(/^error\(s\) occurred while decoding request/) });
  });

  it('serves the default decision at POST /', async () => {
    const missing = await call(server, 'POST', '/', { a: 1 });
    expect(missing.status).toBe(404);
    expect(missing.json()).toEqual({ code: 'undefined_document', message: 'document missing: data.example.main' });
    await putPolicy(server, 'main.rego', 'package example\nmain := {"echo": input.a}\n');
    const ok = await call(server, 'POST', '/', { a: 1 });
    expect(ok.text).toBe('{"echo":1}\n');
  });
});

describe('Health, Config, Status, Metrics', () => {
  it('reports health and policy-based health checks', async () => {
    expect((await call(server, 'GET', '/health')).text).toBe('{}\n');
    expect((await call(server, 'GET', '/health?bundles&plugins')).status).toBe(200);
    const undef = await call(server, 'GET', '/health/ready');
    expect(undef.status).toBe(500);
    expect(undef.json()).toEqual({ error: 'health check (data.system.health.ready) was undefined' });
    await putPolicy(server, 'health.rego', 'package system.health\nlive := true\nready := input.plugins_ready\nodd := "yes"\n');
    expect((await call(server, 'GET', '/health/live')).text).toBe('{}\n');
    expect((await call(server, 'GET', '/health/ready')).status).toBe(200);
    expect((await call(server, 'GET', '/health/odd')).json()).toEqual({ error: 'health check (data.system.health.odd) returned unexpected value' });
  });

  it('returns the redacted active configuration', async () => {
    const r = (await call(server, 'GET', '/v1/config')).json() as { result: Record<string, any> };
    expect(r.result.services.acme).toEqual({ url: 'https://example.com' });
    expect(r.result.keys.k1).toEqual({ algorithm: 'HS256' });
    expect(r.result.labels).toEqual({ team: 'policy', id: 'test-instance', version: '0.1.0-test' });
    expect(r.result.default_decision).toBe('/example/main');
    expect(r.result.default_authorization_decision).toBe('/system/authz/allow');
    expect(r.result.custom_key).toBe('kept');
  });

  it('answers 500 on /v1/status without the status plugin', async () => {
    expect((await call(server, 'GET', '/v1/status')).json()).toEqual({ code: 'internal_error', message: 'status plugin not enabled' });
  });

  it('exposes Prometheus metrics', async () => {
    const r = await call(server, 'GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/http_request_duration_seconds_bucket\{[^}]*code="200"[^}]*handler="v1\/data"[^}]*method="get"/);
  });

  it('counts each request once, 404s and 405s included', async () => {
    const count = async (labels: string): Promise<number> => {
      const text = (await call(server, 'GET', '/metrics')).text;
      const line = text.split('\n').find((l) => l.startsWith(`http_request_duration_seconds_count{${labels}}`));
      return line === undefined ? 0 : Number(line.split(' ')[1]);
    };
    const before404 = await count('code="404",handler="catchall",method="get"');
    const before405 = await count('code="405",handler="catchall",method="delete"');
    const beforeHealth = await count('code="200",handler="health",method="get"');
    await call(server, 'GET', '/no/such/path');
    await call(server, 'GET', '/no/such/path');
    await call(server, 'DELETE', '/v1/data');
    await call(server, 'GET', '/health');
    expect(await count('code="404",handler="catchall",method="get"')).toBe(before404 + 2);
    expect(await count('code="405",handler="catchall",method="delete"')).toBe(before405 + 1);
    expect(await count('code="200",handler="health",method="get"')).toBe(beforeHealth + 1);
  });
});

describe('routing and limits', () => {
  it('answers 405 {code, message} on API prefixes (no Allow), HEAD without a body', async () => {
    const notAllowed = { code: 'method_not_allowed', message: 'Method Not Allowed' };
    for (const [method, path] of [['HEAD', '/v1/data/x'], ['DELETE', '/v1/data'], ['GET', '/v0/data/x'], ['POST', '/v1/policies'], ['GET', '/v1/query/x']]) {
      const r = await call(server, method!, path!);
      expect([method, path, r.status, r.headers.get('allow')]).toEqual([method, path, 405, null]);
      if (method === 'HEAD') expect(r.text).toBe('');
      else expect(r.json()).toEqual(notAllowed);
    }
    const other = await call(server, 'POST', '/v1/config');
    expect(other.status).toBe(405);
    expect(other.headers.get('allow')).toBe('GET');
    expect(other.json()).toEqual(notAllowed);
  });

  it('answers 404 {code, message} with Go\'s text for unknown paths', async () => {
    const r = await call(server, 'GET', '/v2/unknown');
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.text).toBe('{\n  "code": "resource_not_found",\n  "message": "404 page not found"\n}\n');
  });

  it('rejects bodies over server.decoding.max_length with 400 and keeps serving', async () => {
    const r = await call(server, 'POST', '/v1/data/x', JSON.stringify({ input: 'a'.repeat(4096) }));
    expect(r.status).toBe(400);
    expect(r.json()).toEqual({ code: 'invalid_parameter', message: 'request body too large' });
    expect((await call(server, 'GET', '/health')).status).toBe(200);
  });
});
