import type pg from 'pg';
import { loadMigrations, type Migration } from '../shared/migrations.js';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url).pathname;

/** Any fixed key: the one advisory lock every replica's migration takes. */
const MIGRATION_LOCK_KEY = 7_700_001;

/** PostgreSQL's numbered .sql files (postgres/migrations), in order. */
export function loadPostgresMigrations(): Migration[] {
  return loadMigrations(MIGRATIONS_DIR);
}

/**
 * Applies every pending migration in one transaction, under a transaction-level advisory lock, so
 * that replicas starting together apply each migration once: the second waits for the first to
 * commit, then finds nothing pending. Returns the names it applied.
 */
export async function migratePostgres(client: pg.ClientBase, migrations = loadPostgresMigrations()): Promise<string[]> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
    const applied = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((row) => row.version));
    const pending = migrations.filter((migration) => !applied.has(migration.version));
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)',
        [migration.version, migration.name, Date.now()]);
    }
    await client.query('COMMIT');
    return pending.map((migration) => migration.name);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
