// HTTP datasources against a local node:http server: credentials (token and
// basic auth), config headers, transform_query (inline and through a Rego rule
// of the same source that the bundle excludes), status-code errors, transform
// failures, and the datasource hash as revision input.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeStore } from './fake-store.js';
import { buildOnce, readBack, tempDir, writeFiles } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let server: Server;
let base: string;
const seen: Record<string, string | undefined>[] = [];

const USERS = { users: [{ id: 'alice', roles: ['admin', 'editor'] }, { id: 'bob', roles: ['viewer'] }] };

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('regent-http-'));
  await writeFiles(dir, {
    'xf/xf.rego': 'package xf\nimport rego.v1\nnames := [u.id | some u in input.users]\n',
    'xf/policy.rego': 'package app\nimport rego.v1\nis_admin if "admin" in data.people[input.user].roles\n',
  });
  server = createServer((req, res) => {
    seen.push({ path: req.url, authorization: req.headers.authorization, accept: req.headers.accept, xteam: req.headers['x-team'] as string | undefined });
    if (req.url === '/users') {
      if (req.headers.authorization !== 'Bearer tok') return void res.writeHead(401).end();
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(USERS) + '\n');
    }
    if (req.url === '/basic') {
      const ok = req.headers.authorization === 'Basic ' + Buffer.from('user001:letmein').toString('base64');
      return void res.writeHead(ok ? 200 : 403).end(JSON.stringify(USERS));
    }
    if (req.url === '/text') return void res.writeHead(200).end('not json');
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await cleanup();
});

function store(datasources: object[], extra: { excluded_files?: string[]; revision?: string } = {}) {
  return new FakeStore({
    sources: [{ name: 'people', directory: join(dir, 'xf'), paths: ['*.rego'], datasources: datasources as never }],
    secrets: { api: { type: 'token_auth', token: 'tok' }, basic: { type: 'basic_auth', username: 'user001', password: 'letmein', headers: ['X-Team: blue'] } },
    bundles: [{ name: 'h', requirements: [{ source: 'people' }], ...extra }],
  });
}

describe('http datasources', () => {
  it('fetches with credentials and headers and applies an inline transform_query', async () => {
    const s = store([
      {
        name: 'people', type: 'http', path: 'people', credentials: 'api',
        config: { url: `${base}/users`, headers: { Accept: 'application/json', Empty: '' } },
        transform_query: '{u.id: object.remove(u, {"id"}) | u := input.users[_]}',
      },
    ], { excluded_files: ['xf.rego'] });
    const out = await buildOnce(s, 'h', dir);
    expect(out.error_message).toBe('');
    const rb = await readBack(out.bytes!);
    expect(rb.data).toEqual({ people: { alice: { roles: ['admin', 'editor'] }, bob: { roles: ['viewer'] } } });
    expect(Object.keys(rb.modules)).toEqual(['/people/policy.rego']);
    expect(rb.bundle.manifest.roots).toEqual(['app', 'people']);
    expect(seen.at(-1)).toMatchObject({ path: '/users', authorization: 'Bearer tok', accept: 'application/json' });
  });

  it('a transform rule can live in the same source (excluded from the bundle)', async () => {
    const s = store([{ name: 'names', type: 'http', path: 'names', credentials: 'basic', config: { url: `${base}/basic` }, transform_query: 'data.xf.names' }], {
      excluded_files: ['xf.rego'],
      revision: 'input.sources.people.http.names.hash',
    });
    const out = await buildOnce(s, 'h', dir);
    expect(out.error_message).toBe('');
    expect((await readBack(out.bytes!)).data).toEqual({ names: ['alice', 'bob'] });
    expect(out.revision).toMatch(/^[0-9a-f]{64}$/);
    expect(seen.at(-1)).toMatchObject({ path: '/basic', xteam: 'blue' });
  });

  it('without a transform the raw body is the data', async () => {
    const out = await buildOnce(store([{ name: 'raw', type: 'http', path: 'raw', credentials: 'api', config: { url: `${base}/users` } }], { excluded_files: ['xf.rego'] }), 'h', dir);
    expect((await readBack(out.bytes!)).data).toEqual({ raw: USERS });
  });

  it('4xx is a user error in SYNC; a failing transform is TRANSFORM_FAILED', async () => {
    const missing = await buildOnce(store([{ name: 'm', type: 'http', path: 'm', config: { url: `${base}/missing` } }]), 'h', dir);
    expect(missing).toMatchObject({ phase: 'SYNC', status: 'USER_ERROR', error_message: 'source "people": datasource "m": unsuccessful status code 404' });
    const noauth = await buildOnce(store([{ name: 'u', type: 'http', path: 'u', config: { url: `${base}/users` } }]), 'h', dir);
    expect(noauth.error_message).toBe('source "people": datasource "u": unsuccessful status code 401');
    const bad = await buildOnce(store([{ name: 't', type: 'http', path: 't', config: { url: `${base}/text` }, transform_query: 'input' }]), 'h', dir);
    expect(bad).toMatchObject({ phase: 'TRANSFORM', status: 'TRANSFORM_FAILED' });
    expect(bad.error_message).toMatch(/^source "people": datasource "t": transform: failed to unmarshal content: /);
  });
});
