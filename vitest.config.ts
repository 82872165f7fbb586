import { configDefaults, defineConfig } from 'vitest/config';

/** Tests that need a PostgreSQL server: only a run that includes one starts the server (test/store/postgresGlobalSetup.ts). */
const POSTGRES_TESTS = 'test/**/*.postgres.test.ts';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // CI also writes a JSON report, from which .ci/run prints a plain "N passed, N failed" line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'test-results/vitest.json' }]] : ['default'],
    // Two files at a time on 2 cores (vitest's default there is one); the PostgreSQL files follow,
    // one at a time, since their replica processes must keep failover within its bound.
    projects: [
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, POSTGRES_TESTS],
        maxWorkers: 2, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'postgres', include: [POSTGRES_TESTS], globalSetup: ['test/store/postgresGlobalSetup.ts'],
        maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
