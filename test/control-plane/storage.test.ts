// Storage suite: the SAME tests against SQLite and PostgreSQL. Covers the
// builder-facing DefinitionStore contract (contract.ts), paged and owner-
// filtered lists, guards running inside the write transaction, reference
// integrity, status-record retention and migrations. PostgreSQL tests fail
// with a clear message when no server is reachable.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { Forbidden, InUse, InvalidReference, NotFound } from '../../server/control-plane/errors.js';
import { openStorage } from '../../server/control-plane/index.js';
import { parseConfigText } from '../../server/control-plane/config/load.js';
import { decodeCursor, encodeCursor, type Storage } from '../../server/control-plane/storage/storage.js';
import { makeStore, PG_DSN, requirePostgres, type Backend } from './helpers.js';
import { sharedFixture } from './fixture.js';

const T = '2026-02-03T04:05:06.000Z';

describe.each<Backend>(['sqlite', 'postgres'])('storage on %s', (backend) => {
  let store: Storage;
  let cleanup: () => Promise<void>;
  sharedFixture(
    async () => {
      ({ store, cleanup } = await makeStore(backend));
      await store.migrate();
      await store.migrate(); // idempotent
    },
    async () => {
      await store?.close();
      await cleanup?.();
    },
  );

  it('implements the DefinitionStore reads the builder uses', async () => {
    await store.putSecret('tok', { type: 'token_auth', token: '${REGENT_CP_TEST_TOKEN}' }, 'internal');
    await store.put('source', { name: 'lib', directory: 'd', paths: ['*.rego'] }, 'internal');
    await store.put('source', { name: 'app', git: { repo: 'https://e/r.git', reference: 'main', credentials: 'tok' }, requirements: [{ source: 'lib', path: 'data.x', prefix: 'data.y' }] }, 'internal');
    await store.put('bundle', { name: 'b', labels: { env: 'prod' }, requirements: [{ source: 'app', git: { commit: 'abc' } }] }, 'internal');
    await store.put('stack', { name: 'st', selector: { env: ['prod'] }, requirements: [{ source: 'lib' }] }, 'internal');
    expect((await store.listSources()).map((s) => s.name)).toEqual(['lib', 'app']);
    expect(await store.getSource('app')).toEqual({ name: 'app', git: { repo: 'https://e/r.git', reference: 'main', credentials: 'tok' }, requirements: [{ source: 'lib', path: 'data.x', prefix: 'data.y' }] });
    expect(await store.getSource('none')).toBeUndefined();
    expect(await store.listBundles()).toEqual([{ name: 'b', labels: { env: 'prod' }, requirements: [{ source: 'app', git: { commit: 'abc' } }] }]);
    expect(await store.getBundle('b')).toMatchObject({ name: 'b' });
    expect(await store.listStacks()).toEqual([{ name: 'st', selector: { env: ['prod'] }, requirements: [{ source: 'lib' }] }]);
    process.env.REGENT_CP_TEST_TOKEN = 'expanded-at-use';
    expect(await store.getSecretValue('tok')).toEqual({ type: 'token_auth', token: 'expanded-at-use' });
    expect(await store.getSecretValue('missing')).toBeUndefined();
    await store.putSecret('empty', null, 'internal');
    expect(await store.getSecretValue('empty')).toBeUndefined();
  });

  it('stores source data under <path>/data.json and lists it for the builder', async () => {
    await store.putSourceData('lib', 'a/b', { x: 1 });
    await store.putSourceData('lib', '', [1]);
    await store.putSourceData('lib', 'a/b', { x: 2 });
    expect(await store.getSourceData('lib', 'a/b')).toEqual({ x: 2 });
    expect(await store.listSourceData('lib')).toEqual([
      { path: 'a/b', value: { x: 2 } },
      { path: '', value: [1] },
    ]);
    await expect(store.putSourceData('nope', 'a', 1)).rejects.toBeInstanceOf(NotFound);
    await store.deleteSourceData('lib', '');
    expect(await store.getSourceData('lib', '')).toBeUndefined();
  });

  it('pages lists by id with an owner filter', async () => {
    for (let i = 0; i < 7; i++) await store.put('stack', { name: `o${i}`, selector: {} }, i % 2 ? 'alice' : 'bob');
    const p1 = await store.list('stack', { limit: 2, owner: 'alice' });
    expect(p1.items.map((s) => s.name)).toEqual(['o1', 'o3']);
    const p2 = await store.list('stack', { limit: 2, owner: 'alice', after: p1.nextAfter! });
    expect(p2.items.map((s) => s.name)).toEqual(['o5']);
    expect(p2.nextAfter).toBeUndefined();
    expect((await store.list('stack', { limit: 100 })).items).toHaveLength(8);
    expect(await store.get('stack', 'o1', 'bob')).toBeUndefined();
    expect(await store.ownerOf('stack', 'o1')).toBe('alice');
    expect(decodeCursor(encodeCursor(1234))).toBe(1234);
    expect(decodeCursor('bad!')).toBeUndefined();
    expect(decodeCursor(Buffer.from('x1').toString('base64'))).toBeUndefined();
  });

  it('runs guards inside the transaction and rolls back when they throw', async () => {
    const deny = (): void => {
      throw new Forbidden();
    };
    await expect(store.put('stack', { name: 'o1', selector: { changed: [] } }, 'eve', deny)).rejects.toBeInstanceOf(Forbidden);
    expect(await store.get('stack', 'o1')).toEqual({ name: 'o1', selector: {} });
    let seen: unknown = 'unset';
    await store.put('stack', { name: 'o1', selector: { k: [] } }, 'eve', (e) => void (seen = e));
    expect(seen).toEqual({ owner: 'alice' });
    expect(await store.ownerOf('stack', 'o1')).toBe('alice');
    await expect(store.delete('stack', 'o1', deny)).rejects.toBeInstanceOf(Forbidden);
    await expect(store.delete('stack', 'never')).rejects.toBeInstanceOf(NotFound);
    for (let i = 0; i < 7; i++) await store.delete('stack', `o${i}`);
  });

  it('keeps references intact: missing targets are rejected, used targets cannot be deleted', async () => {
    await expect(store.put('bundle', { name: 'x', requirements: [{ source: 'ghost' }] }, 'internal')).rejects.toBeInstanceOf(InvalidReference);
    expect(await store.getBundle('x')).toBeUndefined();
    await expect(store.put('bundle', { name: 'x', object_storage: { azure: { account_url: 'u', container: 'c', path: 'p', credentials: 'ghost' } } }, 'internal')).rejects.toBeInstanceOf(InvalidReference);
    await expect(store.delete('source', 'lib')).rejects.toBeInstanceOf(InUse);
    await expect(store.delete('secret', 'tok')).rejects.toBeInstanceOf(InUse);
    await store.put('source', { name: 'app', git: { repo: 'https://e/r.git', reference: 'main' } }, 'internal');
    await store.delete('secret', 'tok');
    await expect(store.delete('source', 'lib')).rejects.toThrow(/in use by stack "st"/);
  });

  it('concurrent writes all land', async () => {
    await Promise.all(Array.from({ length: 30 }, (_, i) => store.put('source', { name: `c${i}`, requirements: [{ source: 'lib' }] }, 'internal')));
    expect((await store.listSources()).filter((s) => s.name.startsWith('c'))).toHaveLength(30);
    await Promise.all(Array.from({ length: 30 }, (_, i) => store.delete('source', `c${i}`)));
    expect((await store.listSources()).map((s) => s.name)).toEqual(['lib', 'app']);
  });

  it('keeps one status record per revision, the newest 10, and drops them with the bundle', async () => {
    await store.addStatus({ bundle_name: 'b', revision: '', phase: 'SYNC', status: 'SYNC_FAILED', error_message: 'no git', created_at: T });
    expect((await store.listStatuses('b', undefined, 10)).map((r) => r.revision)).toEqual(['']);
    for (let i = 0; i < 11; i++) await store.addStatus({ bundle_name: 'b', revision: `v${i}`, phase: 'BUILD', status: 'SUCCESS', created_at: T });
    let rows = await store.listStatuses('b', undefined, 10);
    expect(rows.map((r) => r.revision)).toEqual(['v10', 'v9', 'v8', 'v7', 'v6', 'v5', 'v4', 'v3', 'v2', 'v1']);
    await store.addStatus({ bundle_name: 'b', revision: 'v5', phase: 'PUSH', status: 'PUSH_FAILED', error_message: 'denied', created_at: '2030-01-01T00:00:00.000Z' });
    const latest = await store.latestStatus('b');
    expect(latest).toMatchObject({ bundle_name: 'b', revision: 'v5', phase: 'PUSH', status: 'PUSH_FAILED', error_message: 'denied', created_at: T });
    expect(Date.parse(latest!.updated_at)).toBeGreaterThan(Date.parse(T));
    rows = await store.listStatuses('b', 'v5', 10);
    expect(rows).toHaveLength(1);
    expect((await store.listStatuses('b', undefined, 3)).map((r) => r.revision)).toEqual(['v5', 'v10', 'v9']);
    await store.addStatus({ bundle_name: 'ghost', revision: 'r', phase: 'BUILD', status: 'SUCCESS', created_at: T });
    expect(await store.latestStatus('ghost')).toBeUndefined();
    await store.delete('bundle', 'b');
    expect(await store.listStatuses('b', undefined, 10)).toEqual([]);
  });
});

describe('storage selection from configuration', () => {
  it('opens PostgreSQL from database.sql (DSN with search_path options)', async () => {
    await requirePostgres();
    const schema = `regent_cp_cfg_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: PG_DSN });
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    try {
      const dsn = `${PG_DSN}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
      const config = parseConfigText(`database: {sql: {driver: postgres, dsn: "${dsn}"}}`);
      const store = openStorage(config, '/nonexistent');
      await store.migrate();
      await store.put('stack', { name: 'in-schema', selector: {} }, 'internal');
      await store.close();
      const rows = await admin.query(`SELECT name FROM "${schema}".definitions`);
      expect(rows.rows).toEqual([{ name: 'in-schema' }]);
    } finally {
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.end();
    }
  });
});
