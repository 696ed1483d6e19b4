// A fixture shared by one describe block (a listening server, a store): set up
// once before its tests, torn down after them. A setup failure is reported by
// every test of the block, so a missing database fails the run, never skips it.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startServer, type Backend, type TestServer } from './helpers.js';

/** Registers the hooks; call inside `describe`. `setup` assigns the block's variables. */
export function sharedFixture(setup: () => Promise<void>, teardown: () => Promise<void>): void {
  let setupError: unknown;
  beforeAll(async () => {
    try {
      await setup();
    } catch (e) {
      setupError = e;
    }
  });
  beforeEach(() => {
    if (setupError) throw setupError;
  });
  afterAll(teardown);
}

/**
 * A control plane server on `backend` with `configYaml`, started once for the
 * block; `use` receives it (assign it to the block's variable). Closed after.
 */
export function sharedServer(backend: Backend, configYaml: string, use: (server: TestServer) => void): void {
  let server: TestServer | undefined;
  sharedFixture(
    async () => {
      server = await startServer(backend, configYaml);
      use(server);
    },
    async () => {
      await server?.close();
    },
  );
}
