// SQLite back end (better-sqlite3). One connection per process, journal_mode=WAL
// and synchronous=FULL: a transaction is on disk (WAL fsynced) when COMMIT
// returns, so every write the API acknowledged survives a crash or kill -9.
// foreign_keys=ON enforces the reference rows (in-use sources and secrets).
// The driver is synchronous; all statements run through one async queue so that
// an open transaction is never observed by another request's statements.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ConstraintError, observeExecutor, type QueryObserver, type SqlDb, type SqlExecutor } from './storage.js';
import { SqlStorage } from './repository.js';

/** Map a driver error to ConstraintError where it is one. */
function translate(err: unknown): unknown {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_CONSTRAINT')) return err;
  const kind =
    code === 'SQLITE_CONSTRAINT_FOREIGNKEY'
      ? 'foreign_key'
      : code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
        ? 'unique'
        : 'other';
  return new ConstraintError(kind, (err as Error).message);
}

/** Values better-sqlite3 accepts: booleans become integers, undefined becomes null. */
function bind(params: unknown[]): unknown[] {
  return params.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : p));
}

export class SqliteDb implements SqlDb {
  readonly dialect = 'sqlite' as const;
  observer?: QueryObserver;
  private readonly db: Database.Database;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly direct: SqlExecutor;

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    const db = this.db;
    const raw: SqlExecutor = {
      all: async <T>(sql: string, params: unknown[] = []) => {
        try {
          return db.prepare(sql).all(...bind(params)) as T[];
        } catch (e) {
          throw translate(e);
        }
      },
      run: async (sql: string, params: unknown[] = []) => {
        try {
          return db.prepare(sql).run(...bind(params)).changes;
        } catch (e) {
          throw translate(e);
        }
      },
      exec: async (script: string) => {
        try {
          db.exec(script);
        } catch (e) {
          throw translate(e);
        }
      },
    };
    this.direct = observeExecutor(raw, () => this.observer);
  }

  /** Run `fn` after everything queued before it; never runs two at once. */
  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    return this.serialize(() => this.direct.all<T>(sql, params));
  }

  run(sql: string, params?: unknown[]): Promise<number> {
    return this.serialize(() => this.direct.run(sql, params));
  }

  exec(script: string): Promise<void> {
    return this.serialize(() => this.direct.exec(script));
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.serialize(async () => {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.direct);
        this.db.exec('COMMIT');
        return result;
      } catch (e) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw e;
      }
    });
  }

  async close(): Promise<void> {
    await this.serialize(async () => {
      if (this.db.open) this.db.close();
    });
  }
}

/** A Storage on an SQLite file (`:memory:` for a throw-away database). */
export function openSqliteStorage(file: string): SqlStorage {
  return new SqlStorage(new SqliteDb(file));
}
