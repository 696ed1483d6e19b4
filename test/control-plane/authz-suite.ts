// Authentication and authorization suite (control-plane-api.md §5,
// control-plane-behaviors.md §4.2–4.3), run on each storage back end: the
// plain-text 401, the 403 role matrix (administrator, viewer, owner,
// stack_owner, ownership of created definitions) and that secret values never
// appear in any response body or log line.
import { describe, expect, it } from 'vitest';
import { KEYS, type Backend, type TestServer } from './helpers.js';
import { sharedServer } from './fixture.js';

const SECRET_VALUES = ['cfg-super-secret-9f3a', 'api-super-secret-77b1', 'replaced-secret-5c2e'];

const CONFIG = `
secrets:
  cfg-secret: {type: token_auth, token: ${SECRET_VALUES[0]}}
sources:
  cfg-src: {}
bundles:
  cfg-bundle: {requirements: [{source: cfg-src}]}
stacks:
  cfg-stack: {selector: {}}
`;

export function authzSuite(backend: Backend): void {
  describe(`control plane auth on ${backend}`, () => {
    let s: TestServer;
    sharedServer(backend, CONFIG, (server) => (s = server));

    it('answers 401 text/plain "Unauthorized" for a missing, malformed or unknown key', async () => {
      const variants: Record<string, string>[] = [
        {},
        { authorization: 'Bearer' },
        { authorization: `Basic ${KEYS.admin}` },
        { authorization: 'Bearer not-a-key' },
        { authorization: `Bearer ${KEYS.admin}x` },
      ];
      for (const headers of variants) {
        for (const [m, p] of [['GET', '/v1/bundles'], ['PUT', '/v1/bundles/x'], ['DELETE', '/v1/secrets/cfg-secret'], ['GET', '/v1/sources/cfg-src/data/a']]) {
          const r = await s.req(m!, p!, { key: null, headers, body: m === 'PUT' ? {} : undefined });
          expect(r.status, `${m} ${p} ${JSON.stringify(headers)}`).toBe(401);
          expect(r.text).toBe('Unauthorized');
          expect(r.contentType).toBe('text/plain; charset=utf-8');
        }
      }
      expect((await s.req('GET', '/v1/bundles/x', { key: null })).status).toBe(401);
      expect((await s.req('GET', '/v1/secrets/cfg-secret')).status).toBe(200);
    });

    it('accepts the bearer scheme case-insensitively', async () => {
      const r = await s.req('GET', '/v1/bundles', { key: null, headers: { authorization: `bearer ${KEYS.viewer}` } });
      expect(r.status).toBe(200);
    });

    const forbidden = async (key: string, method: string, path: string, body?: unknown): Promise<void> => {
      const r = await s.req(method, path, { key, body });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.json).toEqual({ code: 'not_authorized', message: 'not authorized' });
    };

    it('lets a viewer read everything but change nothing', async () => {
      const v = KEYS.viewer;
      for (const p of ['/v1/bundles', '/v1/bundles/cfg-bundle', '/v1/sources/cfg-src', '/v1/stacks/cfg-stack', '/v1/secrets', '/v1/secrets/cfg-secret', '/v1/bundles/cfg-bundle/status', '/v1/sources/cfg-src/data/x']) {
        expect((await s.req('GET', p, { key: v })).status, p).toBe(200);
      }
      expect((await s.req('GET', '/v1/bundles', { key: v })).json.result).toHaveLength(1);
      await forbidden(v, 'PUT', '/v1/bundles/cfg-bundle', {});
      await forbidden(v, 'PUT', '/v1/bundles/new', {});
      await forbidden(v, 'PUT', '/v1/sources/new', {});
      await forbidden(v, 'PUT', '/v1/stacks/new', { selector: {} });
      await forbidden(v, 'PUT', '/v1/secrets/new', { value: { type: 'token_auth', token: 'x' } });
      await forbidden(v, 'DELETE', '/v1/bundles/cfg-bundle');
      await forbidden(v, 'DELETE', '/v1/bundles/does-not-exist');
      await forbidden(v, 'DELETE', '/v1/secrets/cfg-secret');
      await forbidden(v, 'PUT', '/v1/sources/cfg-src/data/x', { a: 1 });
      await forbidden(v, 'DELETE', '/v1/sources/cfg-src/data/x');
      expect((await s.req('GET', '/v1/bundles/new')).status).toBe(404);
    });

    it('lets an owner create bundles, sources and secrets and manage only its own', async () => {
      const o1 = KEYS.owner1;
      const o2 = KEYS.owner2;
      expect((await s.req('PUT', '/v1/secrets/o1-sec', { key: o1, body: { value: { type: 'token_auth', token: SECRET_VALUES[1] } } })).status).toBe(200);
      expect((await s.req('PUT', '/v1/sources/o1-src', { key: o1, body: { git: { repo: 'https://e/x.git', reference: 'main', credentials: 'o1-sec' } } })).status).toBe(200);
      expect((await s.req('PUT', '/v1/bundles/o1-b', { key: o1, body: { requirements: [{ source: 'o1-src' }] } })).status).toBe(200);
      await forbidden(o1, 'PUT', '/v1/stacks/o1-stack', { selector: {} });
      // Lists and reads show only the owner's definitions.
      expect((await s.req('GET', '/v1/bundles', { key: o1 })).json.result.map((b: { name: string }) => b.name)).toEqual(['o1-b']);
      expect((await s.req('GET', '/v1/secrets', { key: o1 })).json.result).toEqual(['o1-sec']);
      expect((await s.req('GET', '/v1/stacks', { key: o1 })).json).toEqual({ result: null });
      expect((await s.req('GET', '/v1/bundles/cfg-bundle', { key: o1 })).status).toBe(404);
      expect((await s.req('GET', '/v1/bundles', { key: o2 })).json).toEqual({});
      expect((await s.req('GET', '/v1/bundles/o1-b', { key: o2 })).status).toBe(404);
      expect((await s.req('GET', '/v1/secrets/o1-sec', { key: o2 })).status).toBe(404);
      // Another owner can neither replace nor delete, and learns nothing from deletes.
      await forbidden(o2, 'PUT', '/v1/bundles/o1-b', {});
      await forbidden(o2, 'PUT', '/v1/secrets/o1-sec', { value: { type: 'token_auth', token: 'x' } });
      await forbidden(o2, 'DELETE', '/v1/bundles/o1-b');
      await forbidden(o2, 'DELETE', '/v1/bundles/never-existed');
      await forbidden(o1, 'PUT', '/v1/bundles/cfg-bundle', {});
      await forbidden(o1, 'DELETE', '/v1/sources/cfg-src');
      // Source data: the owner of the source reads and writes it; others may not.
      expect((await s.req('PUT', '/v1/sources/o1-src/data/d', { key: o1, body: { x: 1 } })).status).toBe(200);
      expect((await s.req('GET', '/v1/sources/o1-src/data/d', { key: o1 })).json).toEqual({ result: { x: 1 } });
      await forbidden(o2, 'GET', '/v1/sources/o1-src/data/d');
      await forbidden(o2, 'PUT', '/v1/sources/o1-src/data/d', { x: 2 });
      await forbidden(o1, 'PUT', '/v1/sources/cfg-src/data/d', { x: 2 });
      // Owners do not have the bundle-status permission, not even on their own bundles.
      await forbidden(o1, 'GET', '/v1/bundles/o1-b/status');
      await forbidden(o1, 'GET', '/v1/bundles/o1-b/status/latest');
      // The owner replaces and deletes its own definitions; admins see them.
      expect((await s.req('PUT', '/v1/secrets/o1-sec', { key: o1, body: { value: { type: 'token_auth', token: SECRET_VALUES[2] } } })).status).toBe(200);
      expect((await s.req('GET', '/v1/bundles/o1-b')).status).toBe(200);
      for (const p of ['/v1/bundles/o1-b', '/v1/sources/o1-src', '/v1/secrets/o1-sec']) {
        expect((await s.req('DELETE', p, { key: o1 })).status, p).toBe(200);
      }
    });

    it('lets a stack_owner create and manage stacks only', async () => {
      const so = KEYS.stacker;
      expect((await s.req('PUT', '/v1/stacks/so-stack', { key: so, body: { selector: { a: [] }, requirements: [{ source: 'cfg-src' }] } })).status).toBe(200);
      expect((await s.req('GET', '/v1/stacks', { key: so })).json.result.map((x: { name: string }) => x.name)).toEqual(['so-stack']);
      await forbidden(so, 'PUT', '/v1/bundles/so-b', {});
      await forbidden(so, 'PUT', '/v1/sources/so-s', {});
      await forbidden(so, 'PUT', '/v1/secrets/so-sec', { value: { type: 'token_auth', token: 'x' } });
      await forbidden(so, 'PUT', '/v1/stacks/cfg-stack', { selector: {} });
      await forbidden(so, 'DELETE', '/v1/stacks/cfg-stack');
      await forbidden(KEYS.owner1, 'DELETE', '/v1/stacks/so-stack');
      expect((await s.req('GET', '/v1/bundles', { key: so })).json).toEqual({});
      expect((await s.req('DELETE', '/v1/stacks/so-stack', { key: so })).status).toBe(200);
    });

    it('lets an administrator do everything', async () => {
      expect((await s.req('PUT', '/v1/stacks/adm', { body: { selector: {} } })).status).toBe(200);
      expect((await s.req('GET', '/v1/bundles/cfg-bundle/status')).status).toBe(200);
      expect((await s.req('DELETE', '/v1/stacks/adm')).status).toBe(200);
      expect((await s.req('DELETE', '/v1/stacks/adm')).status).toBe(404);
    });

    it('never reveals secret values in responses or logs', async () => {
      await s.req('PUT', '/v1/secrets/leak', { body: { name: 'leak', value: { type: 'token_auth', token: SECRET_VALUES[1] } } });
      await s.req('PUT', '/v1/secrets/leak', { body: { type: 'token_auth', token: SECRET_VALUES[2] } });
      await s.req('PUT', '/v1/secrets/leak', { raw: `{"value": {"type": "token_auth", "token": "${SECRET_VALUES[1]}"` });
      await s.req('PUT', '/v1/secrets/leak', { body: { name: 'other', value: { token: SECRET_VALUES[1] } } });
      await s.req('PUT', '/v1/secrets/leak', { body: { value: { type: 5, token: SECRET_VALUES[1] } } });
      await s.req('PUT', '/v1/secrets/leak', { key: KEYS.viewer, body: { value: { type: 'x', token: SECRET_VALUES[1] } } });
      for (const p of ['/v1/secrets', '/v1/secrets/leak', '/v1/secrets?pretty', '/v1/sources', '/v1/bundles']) await s.req('GET', p);
      expect(await s.store.getSecretValue('leak')).toEqual({ type: 'token_auth', token: SECRET_VALUES[2] });
      expect(s.logs.length).toBeGreaterThan(10);
      const everything = s.bodies.join('\n') + '\n' + s.logs.join('');
      for (const v of SECRET_VALUES) expect(everything).not.toContain(v);
      for (const k of Object.values(KEYS)) expect(s.logs.join('')).not.toContain(k);
    });
  });
}
