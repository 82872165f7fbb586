/**
 * Picks the Store implementation the configuration asks for. Today that is always SQLite; a second
 * backend (PostgreSQL) is chosen here too, so that nothing above the port names an implementation.
 */
import type { Config } from '../config.js';
import type { Inspector } from './inspector.js';
import { SqliteInspector } from './sqlite/inspector.js';
import { SqliteStore, type SqliteStoreOptions } from './sqlite/store.js';
import type { Store } from './store.js';

/** What every implementation is given besides its settings: the clock, and where committed events and failures go. */
export type StoreHooks = Omit<SqliteStoreOptions, 'path' | 'synchronous'>;

export function createStore(config: Pick<Config, 'dbPath' | 'sqliteSync'>, hooks: StoreHooks): Store {
  return new SqliteStore({ path: config.dbPath, synchronous: config.sqliteSync, ...hooks });
}

/** A read-only look at the same database, for tests and diagnostics (inspector.ts). */
export function createInspector(config: Pick<Config, 'dbPath'>): Inspector {
  return new SqliteInspector(config.dbPath);
}
