import type Database from 'better-sqlite3';
import { fileURLToPath } from 'node:url';
import { loadMigrations, type Migration } from '../shared/migrations.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

/** SQLite's numbered .sql files (persistence/migrations), in order. */
export function loadSqliteMigrations(): Migration[] {
  return loadMigrations(MIGRATIONS_DIR);
}

/**
 * Applies every pending migration in one transaction and records each in schema_migrations,
 * so a crash mid-boot leaves the schema exactly as it was.
 */
export function migrate(db: Database.Database, migrations = loadSqliteMigrations()): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((row) => row.version),
  );
  const pending = migrations.filter((migration) => !applied.has(migration.version));
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (const migration of pending) {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
    }
  })();
  return pending.map((migration) => migration.name);
}
