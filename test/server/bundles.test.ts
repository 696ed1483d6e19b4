// Bundle activation through the PluginHost: atomic compile + swap, roots owned
// against REST writes, data.system.bundles, provenance and /health?bundles|plugins.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RObject, fromJS, type Bundle } from '../../runtime/index.js';
import { call, putPolicy, startTestServer, type TestServer } from './helpers.js';

let server: TestServer;

function bundle(revision: string, allow: string): Bundle {
  return {
    manifest: { revision, roots: ['authz'] },
    modules: [{ path: '/authz/policy.rego', text: `package authz\nallow := ${allow}\n` }],
    data: fromJS({ authz: { users: ['alice'] } }),
  };
}

beforeAll(async () => {
  server = await startTestServer({ workers: 1, configText: 'bundles:\n  authz:\n    resource: bundles/authz\n' });
});
afterAll(() => server.close());

describe('bundles', () => {
  it('reports bundles and plugins not ready until the plugin says OK', async () => {
    expect((await call(server, 'GET', '/health?bundles')).json()).toEqual({ error: 'one or more bundles are not activated' });
    expect((await call(server, 'GET', '/health?plugins')).json()).toEqual({ error: 'one or more plugins are not up' });
    expect((await call(server, 'GET', '/health?plugins&exclude-plugin=bundle')).status).toBe(200);
  });

  it('activates a bundle: policies, data, system metadata, provenance', async () => {
    const host = server.app.regent.host;
    await host.activateBundle('authz', bundle('r1', 'true'));
    host.setPluginState('bundle', 'OK');
    expect((await call(server, 'GET', '/v1/data/authz')).json()).toEqual({ result: { allow: true, users: ['alice'] } });
    expect((await call(server, 'GET', '/v1/data/system/bundles/authz/manifest')).json()).toEqual({ result: { revision: 'r1', roots: ['authz'] } });
    const prov = (await call(server, 'GET', '/v1/data/authz/allow?provenance')).json() as { provenance: Record<string, unknown> };
    expect(prov.provenance.bundles).toEqual({ authz: { revision: 'r1' } });
    expect(Object.keys(prov.provenance)[0]).toBe('bundles');
    expect((await call(server, 'GET', '/health?bundles')).status).toBe(200);
    expect((await call(server, 'GET', '/v1/policies/authz/authz/policy.rego')).status).toBe(200);
  });

  it('rejects REST writes under bundle roots with 400', async () => {
    const put = await call(server, 'PUT', '/v1/data/authz/users', []);
    expect(put.status).toBe(400);
    expect(put.json()).toEqual({ code: 'invalid_parameter', message: 'path authz/users is owned by bundle "authz"' });
    expect((await call(server, 'DELETE', '/v1/data/authz')).json()).toEqual({ code: 'invalid_parameter', message: 'path authz is owned by bundle "authz"' });
    expect((await call(server, 'PUT', '/v1/data', {})).json()).toEqual({ code: 'invalid_parameter', message: "can't write to document root with bundle roots configured" });
    const policy = await putPolicy(server, 'mine.rego', 'package authz.extra\nx := 1\n');
    expect(policy.json()).toEqual({ code: 'invalid_parameter', message: 'path authz/extra is owned by bundle "authz"' });
    expect((await call(server, 'PUT', '/v1/data/elsewhere', 1)).status).toBe(204);
  });

  it('keeps the old bundle active when the new one fails to compile', async () => {
    const host = server.app.regent.host;
    await expect(host.activateBundle('authz', bundle('r2', 'undefined_var_here'))).rejects.toThrow();
    expect((await call(server, 'GET', '/v1/data/authz/allow')).json()).toEqual({ result: true });
    await host.activateBundle('authz', bundle('r3', 'false'));
    expect((await call(server, 'GET', '/v1/data/authz/allow')).json()).toEqual({ result: false });
    expect(host.activeBundles().map((b) => b.revision)).toEqual(['r3']);
  });

  it('rejects bundles whose packages or data lie outside their roots', async () => {
    const host = server.app.regent.host;
    const outside: Bundle = { manifest: { roots: ['authz'] }, modules: [{ path: '/x.rego', text: 'package other\nx := 1\n' }], data: new RObject() };
    await expect(host.activateBundle('authz', outside)).rejects.toThrow(/do not permit 'package other'/);
    const overlap: Bundle = { manifest: { roots: ['authz/sub'] }, modules: [], data: new RObject() };
    await expect(host.activateBundle('second', overlap)).rejects.toThrow(/overlapping roots/);
  });
});
