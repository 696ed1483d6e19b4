// The storage interface of the control plane. `Storage` extends the builder's
// `DefinitionStore` (contract.ts) with what the HTTP API needs: paged, owner-
// filtered lists, guarded upserts and deletes (the guard runs inside the write
// transaction, so authorization sees the same state the write changes), source
// data documents and status queries. Both back ends (sqlite.ts, postgres.ts)
// implement `SqlDb`, a minimal async SQL surface; repository.ts holds the one
// shared implementation of `Storage` on top of it.
import type { FleetStore } from './fleet.js';
import type { StatusError } from '../contract.js';
import type {
  DefByKind,
  DefinitionStore,
  Kind,
  ListOptions,
  Page,
  SecretValue,
  StatusRow,
} from '../types.js';

/** What an upsert/delete guard sees: the stored row, if any. */
export interface Existing {
  owner: string;
}

/** Runs inside the write transaction; throws (Forbidden, NotFound) to abort it. */
export type Guard = (existing: Existing | undefined) => void;

export interface Storage extends DefinitionStore {
  /** Apply pending migrations (idempotent). */
  migrate(): Promise<void>;
  close(): Promise<void>;

  list<K extends Kind>(kind: K, opts: ListOptions): Promise<Page<DefByKind[K]>>;
  /** The definition, or undefined. `owner` restricts to definitions of that principal. */
  get<K extends Kind>(kind: K, name: string, owner?: string): Promise<DefByKind[K] | undefined>;
  /** Create or replace; returns true when created. Ownership is recorded on create. */
  put<K extends Exclude<Kind, 'secret'>>(kind: K, def: DefByKind[K], principal: string, guard?: Guard): Promise<boolean>;
  putSecret(name: string, value: SecretValue | null, principal: string, guard?: Guard): Promise<boolean>;
  /** Delete; NotFound when absent (after the guard), InUse when referenced. */
  delete(kind: Kind, name: string, guard?: Guard): Promise<void>;
  /** Owner of a stored definition, or undefined if it does not exist. */
  ownerOf(kind: Kind, name: string): Promise<string | undefined>;

  /** Source data documents at `path` (without the `/data.json` suffix). */
  getSourceData(source: string, path: string): Promise<unknown>;
  putSourceData(source: string, path: string, value: unknown): Promise<void>;
  deleteSourceData(source: string, path: string): Promise<void>;

  listStatuses(bundle: string, revision: string | undefined, limit: number): Promise<StatusRow[]>;
  latestStatus(bundle: string): Promise<StatusRow | undefined>;
  /** Regent extension: the newest record of each named bundle, in one statement (GET /v1/bundles-summary). */
  latestStatuses(bundles: string[]): Promise<Map<string, StatusRow>>;
  /** Regent extension: the newest record of a bundle and its located build errors (migration 003). */
  latestStatusErrors(bundle: string): Promise<{ status: StatusRow; errors: StatusError[] } | undefined>;

  /** Engine status reports (Regent extension, fleet.ts). */
  readonly fleet: FleetStore;
}

/** Keep at most this many status records per bundle. */
export const STATUS_RETENTION = 10;

// ------------------------------------------------------------------ SQL surface

/** Statement execution shared by a connection and a transaction. */
export interface SqlExecutor {
  /** Rows of a query; `?` placeholders. */
  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Execute a statement; returns the number of changed rows. */
  run(sql: string, params?: unknown[]): Promise<number>;
  /** Run a multi-statement script without parameters (migrations). */
  exec(script: string): Promise<void>;
}

export interface SqlDb extends SqlExecutor {
  readonly dialect: 'sqlite' | 'postgres';
  /** Told about every statement the driver runs (metrics); unset by default. */
  observer?: QueryObserver;
  /** Run `fn` in a write transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A statement's SQL and its duration in seconds, or undefined when it failed. */
export type QueryObserver = (sql: string, seconds: number | undefined) => void;

/** `inner`, reporting each statement to the observer `current()` returns (if any). */
export function observeExecutor(inner: SqlExecutor, current: () => QueryObserver | undefined): SqlExecutor {
  const timed = async <T>(sql: string, run: () => Promise<T>): Promise<T> => {
    const observer = current();
    if (observer === undefined) return run();
    const start = performance.now();
    let result: T;
    try {
      result = await run();
    } catch (e) {
      observer(sql, undefined);
      throw e;
    }
    observer(sql, (performance.now() - start) / 1000);
    return result;
  };
  return {
    all: <T>(sql: string, params?: unknown[]) => timed(sql, () => inner.all<T>(sql, params)),
    run: (sql, params) => timed(sql, () => inner.run(sql, params)),
    exec: (script) => timed(script, () => inner.exec(script)),
  };
}

/** A constraint violation reported by a driver, in driver-independent form. */
export class ConstraintError extends Error {
  constructor(
    readonly constraint: 'foreign_key' | 'unique' | 'other',
    message: string,
  ) {
    super(message);
  }
}

// ------------------------------------------------------------------ cursors

/** Opaque cursor: URL-safe base64 (with padding) of the decimal row id. */
export function encodeCursor(id: number): string {
  return Buffer.from(String(id), 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

/** Decode a cursor; undefined when it is not one this server produced. */
export function decodeCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
  if (!/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}

/** Expand `$X` / `${X}` in the top-level string values of a secret at use time. */
export function expandSecret(value: SecretValue, env: NodeJS.ProcessEnv = process.env): SecretValue {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] =
      typeof v === 'string'
        ? v.replace(/\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a?: string, b?: string) => env[a ?? b ?? ''] ?? '')
        : v;
  }
  return out as SecretValue;
}
