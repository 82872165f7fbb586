import { SnapshotsSql } from '../sql/snapshots.js';
import { postgresDialect } from './dialect.js';
import type { PgConnection } from './connection.js';

/** The shared statements (../sql/snapshots.ts) on this backend's connection, and its save. */
export class PgSnapshots extends SnapshotsSql {
  constructor(private readonly sql: PgConnection) { super(postgresDialect(sql)); }
  async save(entries: { actor_id: string; kind: string; snapshot: unknown }[], at: number) {
    if (entries.length === 0) return;
    // One statement for the batch; a batch naming one actor twice keeps its last snapshot.
    const last = new Map(entries.map((entry) => [entry.actor_id, entry]));
    await this.sql.run(
      `INSERT INTO actor_snapshots (actor_id, kind, snapshot, updated_at)
       SELECT e.value ->> 'actor_id', e.value ->> 'kind', e.value ->> 'snapshot', @at FROM jsonb_array_elements(@entries::jsonb) AS e(value)
       ON CONFLICT (actor_id) DO UPDATE SET snapshot = excluded.snapshot, updated_at = excluded.updated_at`,
      { at, entries: [...last.values()].map((entry) => ({ actor_id: entry.actor_id, kind: entry.kind, snapshot: JSON.stringify(entry.snapshot) })) });
  }
}
