import { SnapshotsSql } from '../sql/snapshots.js';
import { sqliteDialect } from './dialect.js';
import type { SqliteConnection } from './connection.js';

/** The shared statements (../sql/snapshots.ts) on this backend's connection, and its save. */
export class SqliteSnapshots extends SnapshotsSql {
  constructor(private readonly sql: SqliteConnection) { super(sqliteDialect(sql)); }
  async save(entries: { actor_id: string; kind: string; snapshot: unknown }[], at: number) {
    for (const entry of entries) {
      this.sql.run(
        `INSERT INTO actor_snapshots (actor_id, kind, snapshot, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (actor_id) DO UPDATE SET snapshot = excluded.snapshot, updated_at = excluded.updated_at`,
        [entry.actor_id, entry.kind, JSON.stringify(entry.snapshot), at]);
    }
  }
}
