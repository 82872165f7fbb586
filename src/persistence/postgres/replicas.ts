/**
 * Replica membership on PostgreSQL: registration, the heartbeat that renews every lease of a replica
 * in the same statement, and the take-over of agents whose lease expired (see ReplicaRepo).
 */
import { NEEDS_OWNER } from '../sqlite/leases.js';
import type { AgentLease, Heartbeat, Replica, ReplicaRepo } from '../store.js';
import type { PgSql } from './sql.js';

export class PgReplicas implements ReplicaRepo {
  constructor(private readonly sql: PgSql) {}

  async register(id: string, now: number, expiresAt: number | null) {
    return (await this.sql.run(
      `INSERT INTO replicas (id, started_at, heartbeat_at, expires_at) VALUES (@id, @now, @now, @expires::bigint)
       ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at
       WHERE replicas.expires_at IS NOT NULL AND replicas.expires_at <= @now`,
      { id, now, expires: expiresAt })).changes > 0;
  }

  async retireOthers(id: string) {
    await this.sql.run('DELETE FROM replicas WHERE id <> ?', [id]);
  }

  /**
   * One statement: the replica's row and its unexpired leases are renewed by data-modifying CTEs;
   * the outer SELECT reads who is alive and which agents wait for an owner from the snapshot the
   * statement started with (this replica's own leases count as held there, as they are).
   */
  async heartbeat(id: string, now: number, expiresAt: number): Promise<Heartbeat> {
    const row = await this.sql.get<Heartbeat>(
      `WITH me AS (
         INSERT INTO replicas (id, started_at, heartbeat_at, expires_at) VALUES (@id, @now, @now, @expires)
         ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at
         RETURNING id),
       renewed AS (
         UPDATE agent_leases SET expires_at = @expires WHERE owner_id = @id AND expires_at > @now
         RETURNING agent_id, epoch)
       SELECT
         (SELECT COALESCE(json_agg(json_build_object('agent_id', agent_id, 'epoch', epoch) ORDER BY agent_id), '[]') FROM renewed) AS renewed,
         (SELECT COALESCE(json_agg(r.id ORDER BY r.id), '[]') FROM (
            SELECT id FROM replicas WHERE expires_at IS NULL OR expires_at > @now UNION SELECT id FROM me) r) AS live,
         (SELECT COUNT(*) FROM agent_instances a WHERE ${NEEDS_OWNER} AND NOT EXISTS (SELECT 1 FROM agent_leases l
            WHERE l.agent_id = a.id AND (l.expires_at IS NULL OR l.expires_at > @now)))::int AS orphans`,
      { id, now, expires: expiresAt });
    return row!;
  }

  async orphans(now: number) {
    return (await this.sql.all<{ id: string }>(
      `SELECT a.id FROM agent_instances a WHERE ${NEEDS_OWNER} AND NOT EXISTS (SELECT 1 FROM agent_leases l
         WHERE l.agent_id = a.id AND (l.expires_at IS NULL OR l.expires_at > @now::bigint)) ORDER BY a.id`, { now })).map((r) => r.id);
  }

  /** ON CONFLICT … WHERE is evaluated on the row as locked: a lease renewed or taken meanwhile is left alone. */
  async takeOver(owner: string, agentIds: readonly string[], now: number, expiresAt: number) {
    return this.sql.all<AgentLease>(
      `INSERT INTO agent_leases (agent_id, owner_id, epoch, expires_at)
       SELECT id, @owner, 1, @expires::bigint FROM jsonb_array_elements_text(@ids::jsonb) AS t(id) ORDER BY id
       ON CONFLICT (agent_id) DO UPDATE SET owner_id = excluded.owner_id, epoch = agent_leases.epoch + 1, expires_at = excluded.expires_at
       WHERE agent_leases.expires_at IS NOT NULL AND agent_leases.expires_at <= @now::bigint
       RETURNING agent_id, owner_id, epoch, expires_at`, { owner, ids: agentIds, now, expires: expiresAt });
  }

  async list(now: number) {
    return this.sql.all<Replica>(
      `SELECT r.id, r.started_at, r.heartbeat_at, r.expires_at,
         (SELECT COUNT(*) FROM agent_leases l WHERE l.owner_id = r.id AND (l.expires_at IS NULL OR l.expires_at > @now::bigint))::int AS agents_owned
       FROM replicas r WHERE r.expires_at IS NULL OR r.expires_at > @now::bigint ORDER BY r.id`, { now });
  }

  async holders(agentIds: readonly string[], now: number) {
    const rows = await this.sql.all<{ agent_id: string; owner_id: string }>(
      `SELECT agent_id, owner_id FROM agent_leases WHERE agent_id IN (SELECT jsonb_array_elements_text(@ids::jsonb))
         AND (expires_at IS NULL OR expires_at > @now::bigint)`, { ids: agentIds, now });
    return new Map(rows.map((row) => [row.agent_id, row.owner_id]));
  }

  async leave(id: string, at: number) {
    await this.sql.run('UPDATE replicas SET expires_at = @at WHERE id = @id', { id, at });
  }
}
