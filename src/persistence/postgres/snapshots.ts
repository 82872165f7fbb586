import type { SnapshotKind, SnapshotRepo } from '../store.js';
import type { PgSql } from './sql.js';

/**
 * The agent whose lease owns a snapshot row `s`: the agent itself, or a schedule trigger's routine's
 * assignee (read now, so a reassigned routine's trigger follows its new assignee).
 */
const OWNING_AGENT = `CASE s.kind WHEN 'trigger' THEN (
    SELECT r.assignee_agent_instance_id FROM office_routine_triggers t JOIN office_routines r ON r.id = t.routine_id
    WHERE t.id = s.actor_id)
  ELSE s.actor_id END`;

export class PgSnapshots implements SnapshotRepo {
  constructor(private readonly sql: PgSql) {}
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
  async get(actorId: string) {
    const row = await this.sql.get<{ snapshot: string }>('SELECT snapshot FROM actor_snapshots WHERE actor_id = ?', [actorId]);
    return row ? JSON.parse(row.snapshot) : undefined;
  }
  async all(kind: SnapshotKind, owner: string) {
    const rows = await this.sql.all<{ actor_id: string; snapshot: string }>(
      `SELECT s.actor_id, s.snapshot FROM actor_snapshots s
       JOIN agent_leases l ON l.agent_id = ${OWNING_AGENT} AND l.owner_id = @owner
       WHERE s.kind = @kind`, { kind, owner });
    return new Map(rows.map((row) => [row.actor_id, JSON.parse(row.snapshot) as unknown]));
  }
  async delete(actorId: string) { await this.sql.run('DELETE FROM actor_snapshots WHERE actor_id = ?', [actorId]); }
}
