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
    projects: [
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, POSTGRES_TESTS] } },
      { extends: true, test: { name: 'postgres', include: [POSTGRES_TESTS], globalSetup: ['test/store/postgresGlobalSetup.ts'] } },
    ],
  },
});
