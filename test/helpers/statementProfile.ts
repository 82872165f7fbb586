/**
 * What the statement-profile and group-commit tests share: a unit of two inserts, counting by
 * statement, a store on a file of its own per test, and a profiled scheduler.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { StatementProfile } from '../../src/persistence/shared/statementProfile.js';
import type { AgentFunction } from '../../src/executors/types.js';
import type { Store } from '../../src/persistence/store.js';
import { SqliteStore, type SqliteStoreOptions } from '../../src/persistence/sqlite/store.js';
import { createScheduler, type Scheduler } from '../../src/scheduler.js';
import { FAST_ENV } from './harness.js';

let seq = 0;

/** One unit of work: two workspace inserts, one statement each. */
export function twoInserts(store: Store): Promise<void> {
  return store.transaction(async (tx) => {
    for (let i = 0; i < 2; i++) {
      const id = `ws_${++seq}`;
      await tx.workspaces.insert({ id, name: id, created_at: 1, updated_at: 1 } as never);
    }
  });
}

/** How many times the statements whose text starts with `prefix` ran. */
export function countOf(profile: StatementProfile, prefix: string): number {
  return profile.statements().filter((stat) => stat.text.startsWith(prefix)).reduce((sum, stat) => sum + stat.count, 0);
}

/**
 * The database file of one test at a time, in a folder of its own: `open` makes the folder and
 * whatever the test needs on the file in it; after each test, `close` ends that and the folder goes.
 */
function databasePerTest<T>(prefix: string, close: (opened: T) => Promise<void>) {
  let opened: T | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    if (opened !== undefined) await close(opened);
    if (dir) rmSync(dir, { recursive: true, force: true });
    opened = undefined;
    dir = undefined;
  });
  return async (open: (dbPath: string) => T | Promise<T>): Promise<T> => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    opened = await open(join(dir, 'office.db'));
    return opened;
  };
}

/**
 * A SqliteStore per test on a file of its own, closed and deleted after each test. Its timers are
 * inert, so the idle checkpoint never runs unasked; `options` adds to the defaults (a statement
 * profile, a batch clock).
 */
export function sqliteStorePerTest() {
  const perTest = databasePerTest<{ store: SqliteStore; path: string }>('office-store-', ({ store }) => store.close());
  return (options: Partial<SqliteStoreOptions> = {}) => perTest((path) => ({
    path,
    store: new SqliteStore({
      path, synchronous: 'NORMAL', now: () => Date.now(), publish: () => undefined,
      timers: { setTimeout: () => null, clearTimeout: () => undefined }, ...options,
    }),
  }));
}

/**
 * A scheduler per test on a SQLite file of its own, its statements timed into a profile, stopped
 * and deleted after each test. Not started: nothing runs beside what the test calls (no sweep, no
 * heartbeat, no actor claims), so the profile holds only that test's statements. `functions`: the
 * function executors of a test that starts it.
 */
export function profiledSchedulerPerTest() {
  const perTest = databasePerTest<{ scheduler: Scheduler; dbPath: string; profile: StatementProfile }>('office-profiled-', ({ scheduler }) => scheduler.stop());
  return (functions?: Map<string, AgentFunction>) => perTest(async (dbPath) => {
    const profile = new StatementProfile();
    const scheduler = await createScheduler({ config: loadConfig({ ...FAST_ENV, OFFICE_DB: dbPath }), statementProfile: profile, ...(functions ? { functions } : {}) });
    return { scheduler, dbPath, profile };
  });
}
