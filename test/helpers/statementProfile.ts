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
 * A SqliteStore per test on a file of its own, closed and deleted after each test. Its timers are
 * inert, so the idle checkpoint never runs unasked; `options` adds to the defaults (a statement
 * profile, a batch clock).
 */
export function sqliteStorePerTest() {
  let store: SqliteStore | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    store = undefined;
    dir = undefined;
  });
  return (options: Partial<SqliteStoreOptions> = {}): { store: SqliteStore; path: string } => {
    dir = mkdtempSync(join(tmpdir(), 'office-store-'));
    const path = join(dir, 'office.db');
    store = new SqliteStore({
      path, synchronous: 'NORMAL', now: () => Date.now(), publish: () => undefined,
      timers: { setTimeout: () => null, clearTimeout: () => undefined }, ...options,
    });
    return { store, path };
  };
}

/**
 * A scheduler per test on a SQLite file of its own, its statements timed into a profile, stopped
 * and deleted after each test. Not started: nothing runs beside what the test calls (no sweep, no
 * heartbeat, no actor claims), so the profile holds only that test's statements. `functions`: the
 * function executors of a test that starts it.
 */
export function profiledSchedulerPerTest() {
  let scheduler: Scheduler | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await scheduler?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    scheduler = undefined;
    dir = undefined;
  });
  return async (functions?: Map<string, AgentFunction>): Promise<{ scheduler: Scheduler; dbPath: string; profile: StatementProfile }> => {
    dir = mkdtempSync(join(tmpdir(), 'office-profiled-'));
    const dbPath = join(dir, 'office.db');
    const profile = new StatementProfile();
    scheduler = await createScheduler({ config: loadConfig({ ...FAST_ENV, OFFICE_DB: dbPath }), statementProfile: profile, ...(functions ? { functions } : {}) });
    return { scheduler, dbPath, profile };
  };
}
