import type { SnapshotKind, SnapshotRepo } from '../store.js';
import type { Dialect, SqlRunner } from './dialect.js';

/**
 * The agent whose lease owns a snapshot row `s`: the agent itself, or a schedule trigger's routine's
 * assignee (read now, so a reassigned routine's trigger follows its new assignee).
 */
const OWNING_AGENT = `CASE s.kind WHEN 'trigger' THEN (
    SELECT r.assignee_agent_instance_id FROM office_routine_triggers t JOIN office_routines r ON r.id = t.routine_id
    WHERE t.id = s.actor_id)
  ELSE s.actor_id END`;

/**
 * Actors' snapshots, on both backends. How a batch is saved is each backend's (sqlite/snapshots.ts,
 * postgres/snapshots.ts): a statement per entry costs nothing on SQLite's in-process connection, a
 * round trip each on PostgreSQL, which writes the batch in one.
 */
export abstract class SnapshotsSql implements SnapshotRepo {
  private readonly runner: SqlRunner;
  constructor(dialect: Dialect) {
    this.runner = dialect.sql;
  }

  abstract save(entries: { actor_id: string; kind: string; snapshot: unknown }[], at: number): Promise<void>;

  async get(actorId: string) {
    const row = await this.runner.get<{ snapshot: string }>('SELECT snapshot FROM actor_snapshots WHERE actor_id = ?', [actorId]);
    return row ? JSON.parse(row.snapshot) : undefined;
  }
  async all(kind: SnapshotKind, owner: string) {
    const rows = await this.runner.all<{ actor_id: string; snapshot: string }>(
      `SELECT s.actor_id, s.snapshot FROM actor_snapshots s
       JOIN agent_leases l ON l.agent_id = ${OWNING_AGENT} AND l.owner_id = @owner
       WHERE s.kind = @kind`, { kind, owner });
    return new Map(rows.map((row) => [row.actor_id, JSON.parse(row.snapshot) as unknown]));
  }
  async delete(actorId: string) { await this.runner.run('DELETE FROM actor_snapshots WHERE actor_id = ?', [actorId]); }
}
