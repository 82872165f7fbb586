import type { SnapshotKind, SnapshotRepo } from '../store.js';
import type { Sql } from './sql.js';

/**
 * The agent whose lease owns a snapshot row `s`: the agent itself, or a schedule trigger's routine's
 * assignee (read now, so a reassigned routine's trigger follows its new assignee).
 */
const OWNING_AGENT = `CASE s.kind WHEN 'trigger' THEN (
    SELECT r.assignee_agent_instance_id FROM office_routine_triggers t JOIN office_routines r ON r.id = t.routine_id
    WHERE t.id = s.actor_id)
  ELSE s.actor_id END`;

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
  async all(kind: SnapshotKind, owner: string) {
    const rows = this.sql.all<{ actor_id: string; snapshot: string }>(
      `SELECT s.actor_id, s.snapshot FROM actor_snapshots s
       JOIN agent_leases l ON l.agent_id = ${OWNING_AGENT} AND l.owner_id = @owner
       WHERE s.kind = @kind`, { kind, owner });
    return new Map(rows.map((row) => [row.actor_id, JSON.parse(row.snapshot) as unknown]));
  }
  async delete(actorId: string) { this.sql.run('DELETE FROM actor_snapshots WHERE actor_id = ?', [actorId]); }
}
