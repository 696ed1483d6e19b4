// Test helpers for the control plane: a real listening server (127.0.0.1, port
// 0) on SQLite (temp dir) or PostgreSQL (a fresh schema per run), captured pino
// output, a recording fake BuildScheduler, and a small fetch-based client that
// also remembers every response body (the secret-leak test searches them).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createControlPlane, type ControlPlane, type ControlPlaneOptions } from '../../server/control-plane/index.js';
import { parseConfigText } from '../../server/control-plane/config/load.js';
import { openPostgresStorage } from '../../server/control-plane/storage/postgres.js';
import { openSqliteStorage } from '../../server/control-plane/storage/sqlite.js';
import type { Storage } from '../../server/control-plane/storage/storage.js';
import type { BuildScheduler } from '../../server/control-plane/types.js';

export type Backend = 'sqlite' | 'postgres';

export const PG_DSN = process.env.REGENT_TEST_PG_DSN ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Fail (never skip) with a clear message when PostgreSQL is not reachable. */
export async function requirePostgres(): Promise<void> {
  const client = new pg.Client({ connectionString: PG_DSN, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (e) {
    throw new Error(
      `PostgreSQL is required for these tests but is not reachable at ${PG_DSN} (${(e as Error).message}). ` +
        `The test setup (test/postgres-global-setup.ts) starts an embedded one when nothing answers there; ` +
        `otherwise start it (e.g. pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start) ` +
        `or set REGENT_TEST_PG_DSN.`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A throw-away store plus its cleanup. */
export async function makeStore(backend: Backend): Promise<{ store: Storage; cleanup(): Promise<void> }> {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'regent-cp-'));
    const store = openSqliteStorage(join(dir, 'sqlite.db'));
    return { store, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  await requirePostgres();
  const schema = `regent_cp_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const store = openPostgresStorage({ dsn: PG_DSN, schema, max: 4 });
  return {
    store,
    cleanup: async () => {
      const client = new pg.Client({ connectionString: PG_DSN });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/** Records notifyChanged calls. */
export class FakeScheduler implements BuildScheduler {
  calls: (string[] | undefined)[] = [];
  started = false;
  notifyChanged(bundles?: string[]): void {
    this.calls.push(bundles);
  }
  start(): void {
    this.started = true;
  }
  async stop(): Promise<void> {
    this.started = false;
  }
}

export const KEYS = {
  admin: 'key-admin-0123',
  viewer: 'key-viewer-4567',
  owner1: 'key-owner1-89ab',
  owner2: 'key-owner2-cdef',
  stacker: 'key-stacker-f00d',
} as const;

export const TOKENS_YAML = `
tokens:
  admin: {api_key: ${KEYS.admin}, scopes: [{role: administrator}]}
  viewer: {api_key: ${KEYS.viewer}, scopes: [{role: viewer}]}
  owner1: {api_key: ${KEYS.owner1}, scopes: [{role: owner}]}
  owner2: {api_key: ${KEYS.owner2}, scopes: [{role: owner}]}
  stacker: {api_key: ${KEYS.stacker}, scopes: [{role: stack_owner}]}
`;

export interface Response {
  status: number;
  contentType: string;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface TestServer {
  cp: ControlPlane;
  url: string;
  store: Storage;
  scheduler: FakeScheduler;
  /** Every pino line written so far. */
  logs: string[];
  /** Every response body received so far. */
  bodies: string[];
  req(method: string, path: string, opts?: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/** Start a control plane on `backend` with `configYaml` (tokens are always added). */
export async function startServer(
  backend: Backend,
  configYaml = '',
  extra: Partial<ControlPlaneOptions> = {},
): Promise<TestServer> {
  const { store, cleanup } = extra.store ? { store: extra.store, cleanup: async () => undefined } : await makeStore(backend);
  const logs: string[] = [];
  const bodies: string[] = [];
  const scheduler = new FakeScheduler();
  const config = parseConfigText(TOKENS_YAML + configYaml);
  const cp = createControlPlane({
    config,
    port: 0,
    store,
    scheduler,
    logLevel: 'debug',
    logStream: { write: (s: string) => void logs.push(s) },
    ...extra,
  });
  const url = await cp.start();
  const req: TestServer['req'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    const key = opts.key === undefined ? KEYS.admin : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    bodies.push(text);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, json };
  };
  return {
    cp,
    url,
    store,
    scheduler,
    logs,
    bodies,
    req,
    close: async () => {
      await cp.stop();
      await cleanup();
    },
  };
}
