import type { SnapshotRepo } from '../store.js';
import type { Sql } from './sql.js';

export class SqliteSnapshots implements SnapshotRepo {
  constructor(private readonly sql: Sql) {}
  async save(entries: { actor_id: string; kind: string; snapshot: unknown }[], at: number) {
    for (const entry of entries) {
      this.sql.run(
        `INSERT INTO actor_snapshots (actor_id, kind, snapshot, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (actor_id) DO UPDATE SET snapshot = excluded.snapshot, updated_at = excluded.updated_at`,
        [entry.actor_id, entry.kind, JSON.stringify(entry.snapshot), at]);
    }
  }
  async get(actorId: string) {
    const row = this.sql.get<{ snapshot: string }>('SELECT snapshot FROM actor_snapshots WHERE actor_id = ?', [actorId]);
    return row ? JSON.parse(row.snapshot) : undefined;
  }
  async all(kind: string) {
    const rows = this.sql.all<{ actor_id: string; snapshot: string }>('SELECT actor_id, snapshot FROM actor_snapshots WHERE kind = ?', [kind]);
    return new Map(rows.map((row) => [row.actor_id, JSON.parse(row.snapshot) as unknown]));
  }
  async delete(actorId: string) { this.sql.run('DELETE FROM actor_snapshots WHERE actor_id = ?', [actorId]); }
}
