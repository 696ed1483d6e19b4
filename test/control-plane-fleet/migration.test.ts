// Upgrading a control plane database made before the fleet tables: a store at
// schema version 1 (only 001_initial applied) with a bundle in it migrates to
// 002_fleet on start, keeps its definitions, and takes status reports. Run on
// SQLite and PostgreSQL (which fails, never skips, when not reachable).
import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../server/control-plane/storage/migrate.js';
import type { SqlStorage } from '../../server/control-plane/storage/repository.js';
import { makeStore, type Backend } from '../control-plane/helpers.js';

for (const backend of ['sqlite', 'postgres'] as Backend[]) {
  describe(`fleet migration (${backend})`, () => {
    it('adds the fleet tables to a version-1 database and keeps its definitions', async () => {
      const { store, cleanup } = await makeStore(backend);
      const sql = store as SqlStorage;
      try {
        const all = loadMigrations(sql.db.dialect);
        expect(all.slice(0, 2).map((m) => `${m.version}_${m.name}`)).toEqual(['1_initial', '2_fleet']);
        expect(await migrate(sql.db, all.slice(0, 1))).toEqual([1]);
        await store.put('bundle', { name: 'app', labels: { env: 'prod' } }, 'admin');
        await expect(store.fleet.listEngines()).rejects.toThrow(/fleet_engines/);

        expect(await migrate(sql.db)).toEqual(all.slice(1).map((m) => m.version));
        expect(await migrate(sql.db)).toEqual([]);
        expect(await store.get('bundle', 'app')).toEqual({ name: 'app', labels: { env: 'prod' } });
        const at = new Date().toISOString();
        await store.fleet.recordReport({ id: 'e1', labels: '{"id":"e1"}', summary: '{"bundles":{},"plugins":{},"errors":[]}', report: '{}', served: [{ bundle: 'app', revision: 'r1' }], at });
        expect((await store.fleet.listEngines()).map((e) => [e.id, e.first_seen])).toEqual([['e1', at]]);
        expect(await store.fleet.firstServed('app', 'r1')).toBe(at);
      } finally {
        await store.close();
        await cleanup();
      }
    });
  });
}
