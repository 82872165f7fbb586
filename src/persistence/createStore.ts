/**
 * Picks the Store implementation the configuration asks for: PostgreSQL when OFFICE_DATABASE_URL is
 * set, SQLite (the default) otherwise, so that nothing above the port names an implementation.
 */
import type { Config } from '../config.js';
import type { Inspector } from './inspector.js';
import { PostgresInspector } from './postgres/inspector.js';
import type { PgSignals } from './postgres/notify.js';
import { PostgresStore } from './postgres/store.js';
import { SqliteInspector } from './sqlite/inspector.js';
import { SqliteStore, type SqliteStoreOptions } from './sqlite/store.js';
import type { Store } from './store.js';

/**
 * What every implementation is given besides its settings: the clock, and where committed events and
 * failures go; `outboxClaimMs` matters only where several processes share the database (PostgreSQL).
 */
export type StoreHooks = Omit<SqliteStoreOptions, 'path' | 'synchronous'> & { outboxClaimMs?: number };

/** Which database: `databaseUrl` (postgres://…) when set, else the SQLite file at `dbPath`. */
type Where = Pick<Config, 'dbPath'> & Partial<Pick<Config, 'databaseUrl'>>;

export function createStore(config: Where & Pick<Config, 'sqliteSync'>, hooks: StoreHooks): Store {
  if (config.databaseUrl) return new PostgresStore({ url: config.databaseUrl, ...hooks });
  const { outboxClaimMs: _oneProcess, ...sqliteHooks } = hooks;
  return new SqliteStore({ path: config.dbPath, synchronous: config.sqliteSync, ...sqliteHooks });
}

/** A read-only look at the same database, for tests and diagnostics (inspector.ts). */
export function createInspector(config: Where): Inspector {
  if (config.databaseUrl) return new PostgresInspector(config.databaseUrl);
  return new SqliteInspector(config.dbPath);
}

/**
 * The signals between replicas (PostgreSQL's LISTEN/NOTIFY, postgres/notify.ts): wakeups reach the
 * replica that owns their agent, and live feeds reach every replica. Null on SQLite, where the one
 * process hears everything in-process.
 */
export function openReplicaSignals(store: Store, replica: string): PgSignals | null {
  return store instanceof PostgresStore ? store.openSignals(replica) : null;
}
