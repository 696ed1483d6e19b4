// PostgreSQL back end (node-postgres pool). Statements are written once with `?`
// placeholders (repository.ts) and renumbered to `$n` here. Transactions take a
// pooled client for their whole duration. An optional schema isolates a
// deployment (or a test run): it is created if missing and set as search_path
// on every pooled connection.
import pg from 'pg';
import { ConstraintError, observeExecutor, type QueryObserver, type SqlDb, type SqlExecutor } from './storage.js';
import { SqlStorage } from './repository.js';

/** Turn `?` placeholders into `$1, $2, ...` (statements never contain literal `?`). */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

function translate(err: unknown): unknown {
  const code = (err as { code?: unknown })?.code;
  if (code === '23503') return new ConstraintError('foreign_key', (err as Error).message);
  if (code === '23505') return new ConstraintError('unique', (err as Error).message);
  return err;
}

type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

function executor(q: Queryable): SqlExecutor {
  return {
    async all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
      try {
        return (await q.query(numberPlaceholders(sql), params)).rows as T[];
      } catch (e) {
        throw translate(e);
      }
    },
    async run(sql: string, params: unknown[] = []): Promise<number> {
      try {
        return (await q.query(numberPlaceholders(sql), params)).rowCount ?? 0;
      } catch (e) {
        throw translate(e);
      }
    },
    async exec(script: string): Promise<void> {
      try {
        await q.query(script);
      } catch (e) {
        throw translate(e);
      }
    },
  };
}

export interface PostgresOptions {
  /** Connection string, e.g. `postgres://user@host:5432/db`. */
  dsn: string;
  /** Schema to create and use (search_path); default: the server default. */
  schema?: string;
  /** Pool size (default 10). */
  max?: number;
}

const quoteIdent = (s: string): string => `"${s.replace(/"/g, '""')}"`;

export class PostgresDb implements SqlDb {
  readonly dialect = 'postgres' as const;
  observer?: QueryObserver;
  private readonly pool: pg.Pool;
  private readonly direct: SqlExecutor;
  private ready: Promise<void> | undefined;

  constructor(private readonly opts: PostgresOptions) {
    this.pool = new pg.Pool({
      connectionString: opts.dsn,
      max: opts.max ?? 10,
      connectionTimeoutMillis: 10_000,
      ...(opts.schema ? { options: `-c search_path=${quoteIdent(opts.schema)}` } : {}),
    });
    // Idle-client errors (server restart) must not crash the process.
    this.pool.on('error', () => undefined);
    this.direct = observeExecutor(executor(this.pool), () => this.observer);
  }

  /** Connect once and create the schema; the error names the DSN host, not credentials. */
  private connect(): Promise<void> {
    this.ready ??= (async () => {
      try {
        if (this.opts.schema) await this.pool.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.opts.schema)}`);
        else await this.pool.query('SELECT 1');
      } catch (e) {
        this.ready = undefined;
        throw new Error(`cannot connect to PostgreSQL at ${describeDsn(this.opts.dsn)}: ${(e as Error).message}`);
      }
    })();
    return this.ready;
  }

  async all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
    await this.connect();
    return this.direct.all<T>(sql, params);
  }

  async run(sql: string, params?: unknown[]): Promise<number> {
    await this.connect();
    return this.direct.run(sql, params);
  }

  async exec(script: string): Promise<void> {
    await this.connect();
    return this.direct.exec(script);
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    await this.connect();
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(observeExecutor(executor(client), () => this.observer));
      await client.query('COMMIT');
      return result;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** host:port/database of a DSN, without user or password. */
export function describeDsn(dsn: string): string {
  try {
    const u = new URL(dsn);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return '(unparseable DSN)';
  }
}

export function openPostgresStorage(opts: PostgresOptions): SqlStorage {
  return new SqlStorage(new PostgresDb(opts));
}
