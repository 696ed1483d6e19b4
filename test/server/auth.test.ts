// Authentication (token) and authorization (basic, system.authz) against a
// listening server: allowed and denied paths, 401 bodies, and the input document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from './helpers.js';

let server: TestServer;

const AUTHZ = `package system.authz

default allow := false

# Anyone may read the greeting; the admin token may do anything.
allow if {
	input.method == "GET"
	input.path == ["v1", "data", "greeting"]
}

allow if input.identity == "admin-token"
`;

beforeAll(async () => {
  server = await startTestServer({ authentication: 'token', authorization: 'basic' });
  // Bootstrap the authorization policy and data in-process (the API is locked until then).
  const engine = server.app.regent.engine;
  await engine.putPolicy('authz.rego', AUTHZ);
  await engine.writeData([['greeting']], (txn) => txn.write('add', ['greeting'], 'hello'));
});
afterAll(() => server.close());

describe('token authentication + basic authorization', () => {
  it('serves the path the policy allows', async () => {
    expect((await call(server, 'GET', '/v1/data/greeting')).json()).toEqual({ result: 'hello' });
  });

  it('rejects other paths with 401 unauthorized', async () => {
    const r = await call(server, 'GET', '/v1/data/secret');
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.json()).toEqual({ code: 'unauthorized', message: 'request rejected by administrative policy' });
    expect((await call(server, 'GET', '/v2/unknown')).status).toBe(401); // authz runs before routing
  });

  it('lets a valid bearer token through as the identity', async () => {
    const r = await call(server, 'GET', '/v1/policies', undefined, { authorization: 'Bearer admin-token' });
    expect(r.status).toBe(200);
    expect((await call(server, 'GET', '/v1/policies', undefined, { authorization: 'Basic admin-token' })).status).toBe(401);
  });

  it('passes method, path, params, headers, identity and body in the input', async () => {
    await server.app.regent.engine.putPolicy(
      'record.rego',
      'package system.authz\nimport rego.v1\nallow if { input.path == ["v1", "data", "inspect"]; input.params.x == ["1", ""]; input.headers["X-Custom"] == ["yes"]; input.identity == "tok"; input.method == "POST"; input.body == {"input": {"k": "v"}} }\n',
    );
    const r = await call(server, 'POST', '/v1/data/inspect?x=1&x', { input: { k: 'v' } }, { 'x-custom': 'yes', authorization: 'Bearer tok' });
    expect(r.status).toBe(200);
    const denied = await call(server, 'POST', '/v1/data/inspect?x=1', { input: { k: 'v' } }, { 'x-custom': 'yes', authorization: 'Bearer tok' });
    expect(denied.status).toBe(401);
  });

  it('parses the body as util.UnmarshalJSON does and reports the bare parser error', async () => {
    const admin = { authorization: 'Bearer admin-token' };
    const trailing = await call(server, 'POST', '/v1/data/greeting', '{"input": 1} 2', admin);
    expect(trailing.status).toBe(400);
    expect(trailing.json()).toEqual({ code: 'invalid_parameter', message: "error: invalid character '2' after top-level value" });
    const bad = await call(server, 'POST', '/v1/data/greeting', '{"input": x}', admin);
    expect(bad.json()).toEqual({ code: 'invalid_parameter', message: "invalid character 'x' looking for beginning of value" });
    expect((await call(server, 'POST', '/v1/data/greeting', '{"input": 1}', admin)).json()).toEqual({ result: 'hello' });
  });

  it('uses the reason of an {allowed, reason} decision, and 500 when undefined', async () => {
    const engine = server.app.regent.engine;
    await engine.deletePolicy('record.rego');
    await engine.putPolicy('authz.rego', 'package system.authz\nimport rego.v1\nallow := {"allowed": false, "reason": "go away"}\n');
    expect((await call(server, 'GET', '/v1/data/greeting')).json()).toEqual({ code: 'unauthorized', message: 'go away' });
    await engine.deletePolicy('authz.rego');
    const r = await call(server, 'GET', '/v1/data/greeting');
    expect(r.status).toBe(500);
    expect(r.json()).toEqual({ code: 'internal_error', message: 'authorization policy missing or undefined' });
  });
});
