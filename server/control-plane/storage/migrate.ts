// Schema migrations: numbered files `NNN_<name>.<dialect>.sql` in ./migrations,
// applied in order, each in its own transaction together with its row in
// `schema_migrations`. PostgreSQL takes a transaction-scoped advisory lock so
// that two processes starting together apply each migration once.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SqlDb } from './storage.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The migrations directory: next to this module in the source tree; from the
 * compiled tree (dist/...) the .sql files are read from the source tree.
 */
function migrationsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [
    join(here, 'migrations'),
    join(here, '..', '..', '..', '..', 'server', 'control-plane', 'storage', 'migrations'),
  ];
  const found = candidates.find((d) => existsSync(d));
  if (!found) throw new Error(`migrations directory not found (looked in ${candidates.join(', ')})`);
  return found;
}

/** The migrations of a dialect, ordered by version. */
export function loadMigrations(dialect: SqlDb['dialect'], dir = migrationsDir()): Migration[] {
  const re = new RegExp(`^(\\d+)_([a-z0-9_]+)\\.${dialect}\\.sql$`);
  return readdirSync(dir)
    .map((f) => ({ f, m: re.exec(f) }))
    .filter((x): x is { f: string; m: RegExpExecArray } => x.m !== null)
    .map(({ f, m }) => ({ version: Number(m[1]), name: m[2]!, sql: readFileSync(join(dir, f), 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

const LOCK_ID = 7_346_021; // arbitrary constant for pg_advisory_xact_lock

/** Apply every pending migration; returns the versions applied. */
export async function migrate(db: SqlDb, migrations = loadMigrations(db.dialect)): Promise<number[]> {
  await db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  const applied: number[] = [];
  for (const m of migrations) {
    const done = await db.transaction(async (tx) => {
      if (db.dialect === 'postgres') await tx.all(`SELECT pg_advisory_xact_lock(${LOCK_ID})`);
      const rows = await tx.all('SELECT version FROM schema_migrations WHERE version = ?', [m.version]);
      if (rows.length > 0) return false;
      await tx.exec(m.sql);
      await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
        m.version,
        m.name,
        new Date().toISOString(),
      ]);
      return true;
    });
    if (done) applied.push(m.version);
  }
  return applied;
}
