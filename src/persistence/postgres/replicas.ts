/**
 * Replica membership on PostgreSQL: the shared statements (../sql/replicas.ts), with the heartbeat
 * that renews every lease of a replica in the same statement.
 */
import { orphaned, RENEW_LEASES, ReplicasSql } from '../sql/replicas.js';
import type { Heartbeat } from '../store.js';
import { postgresDialect } from './dialect.js';
import type { PgConnection } from './connection.js';

export class PgReplicas extends ReplicasSql {
  /** The array's elements, as a column named id (taken in id order: the dialect's lockOrder). */
  protected readonly takeOverIds = { column: 'id', from: 'jsonb_array_elements_text(@ids::jsonb) AS t(id)' };
  constructor(sql: PgConnection) { super(postgresDialect(sql)); }

  /**
   * One statement (a pg-only use of data-modifying CTEs, to spare the round trips SQLite does not
   * pay): the replica's row and its unexpired leases are renewed by data-modifying CTEs; the outer
   * SELECT reads who is alive and which agents wait for an owner from the snapshot the statement
   * started with (this replica's own leases count as held there, as they are).
   */
  override async heartbeat(id: string, now: number, expiresAt: number): Promise<Heartbeat> {
    const row = await this.sql.get<Heartbeat>(
      `WITH me AS (
         INSERT INTO replicas (id, started_at, heartbeat_at, expires_at) VALUES (@id, @now, @now, @expires)
         ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at
         RETURNING id),
       renewed AS (${RENEW_LEASES})
       SELECT
         (SELECT COALESCE(json_agg(json_build_object('agent_id', agent_id, 'epoch', epoch) ORDER BY agent_id), '[]') FROM renewed) AS renewed,
         (SELECT COALESCE(json_agg(r.id ORDER BY r.id), '[]') FROM (
            SELECT id FROM replicas WHERE expires_at IS NULL OR expires_at > @now UNION SELECT id FROM me) r) AS live,
         (SELECT COUNT(*) ${orphaned('@now')})::int AS orphans`,
      { id, now, expires: expiresAt });
    return row!;
  }
}
