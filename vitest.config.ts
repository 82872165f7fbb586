import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/longestFirst.js';

/** Tests that need a PostgreSQL server: only a run that includes one starts the server (test/store/postgresGlobalSetup.ts). */
const POSTGRES_TESTS = 'test/**/*.postgres.test.ts';
/**
 * Tests that run the compiled build (dist/): the CLI, the build itself, and the files that start the
 * scheduler as a process of its own (test/helpers/serverProcess.ts). Only a run that includes one
 * compiles it first (test/helpers/buildGlobalSetup.ts); the PostgreSQL projects start servers too.
 */
const COMPILED_TESTS = [
  'test/integration/cli.*test.ts', 'test/integration/build.test.ts',
  'test/crash/crash.test.ts', 'test/integration/crashRestart.test.ts', 'test/integration/databaseLock.test.ts',
  'test/integration/ownership.test.ts', 'test/integration/safeBinding.test.ts', 'test/integration/sessionLifetime.test.ts',
  'test/integration/agentEnvironment.test.ts',
];
const BUILD_SETUP = 'test/helpers/buildGlobalSetup.ts';
/**
 * The PostgreSQL files that bound a time (a failover, a relayed cancel, the chaos run's take-overs)
 * with replica processes of their own: they run alone, after the others, so that no other file's
 * load stretches the time they measure.
 */
const TIMED_POSTGRES_TESTS = [
  'test/integration/chaos.postgres.test.ts',
  'test/integration/replicas.failover.postgres.test.ts',
  'test/integration/replicas.postgres.test.ts',
  'test/integration/runCancel.postgres.test.ts',
];

export default defineConfig({
  // `office-scheduler/client` is its TypeScript source in tests, as package.json's `source` condition says.
  resolve: { alias: { 'office-scheduler/client': fileURLToPath(new URL('./src/client/index.ts', import.meta.url)) } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // A worker keeps its modules from one file to the next. Importing the source tree again in a
    // fresh fork for every file was a fifth of the suite's CPU: the unit files, run in turn, took
    // 14.8 s isolated and 7.1 s not. No file changes module state that another reads (the caches and
    // the shared tracing SDK are built for several schedulers in one process), and each file stops
    // what it started in its own hooks.
    isolate: false,
    sequence: { sequencer: LongestFirst },
    // CI also writes a JSON report, from which .ci/run prints a plain "N passed, N failed" line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'test-results/vitest.json' }]] : ['default'],
    // On 2 cores: three files at a time, since most of a file's time is spent waiting on child
    // processes, a browser or a socket; then the PostgreSQL files, each in a database of its own,
    // two at a time (beside the others they made the run slower: 735 s against 642 s); then the
    // timed ones, one at a time. The files on the compiled build share the first group's three
    // workers: a project of one worker at group order 0 is run by Vitest in a group of its own after
    // all the others, which put its 42 s at the end of the run.
    projects: [
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, POSTGRES_TESTS, ...COMPILED_TESTS],
        maxWorkers: 3, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'compiled', include: COMPILED_TESTS, globalSetup: [BUILD_SETUP],
        maxWorkers: 3, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'postgres', include: [POSTGRES_TESTS], exclude: [...configDefaults.exclude, ...TIMED_POSTGRES_TESTS],
        globalSetup: [BUILD_SETUP, 'test/store/postgresGlobalSetup.ts'], maxWorkers: 2, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'postgres-timed', include: TIMED_POSTGRES_TESTS, globalSetup: [BUILD_SETUP, 'test/store/postgresGlobalSetup.ts'],
        maxWorkers: 1, sequence: { groupOrder: 2 } } },
    ],
  },
});
