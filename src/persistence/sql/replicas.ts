import type { AgentLease, Heartbeat, Replica, ReplicaRepo } from '../store.js';
import type { Dialect, SqlRunner } from './dialect.js';
import { NEEDS_OWNER } from './leases.js';

/** A heartbeat's renewal of the replica @id's leases that have not expired at @now, to @expires. */
export const RENEW_LEASES = `UPDATE agent_leases SET expires_at = @expires WHERE owner_id = @id AND expires_at > @now
  RETURNING agent_id, epoch`;

/** FROM … WHERE of the agents (`a`) that need an owner and hold no lease unexpired at `now`. */
export const orphaned = (now: string) => `FROM agent_instances a WHERE ${NEEDS_OWNER} AND NOT EXISTS (SELECT 1 FROM agent_leases l
  WHERE l.agent_id = a.id AND (l.expires_at IS NULL OR l.expires_at > ${now}))`;

/**
 * Replica membership, on both backends: registration, heartbeats that renew the replica's leases,
 * and the take-over of agents whose lease expired (see ReplicaRepo).
 */
export abstract class ReplicasSql implements ReplicaRepo {
  protected readonly sql: SqlRunner;
  constructor(protected readonly dialect: Dialect) {
    this.sql = dialect.sql;
  }

  /**
   * The rows a take-over inserts, one per agent id of the JSON array @ids: the id's column and the
   * FROM item (the JSON functions, and how their column is named, differ).
   */
  protected abstract readonly takeOverIds: { column: string; from: string };

  async register(id: string, now: number, expiresAt: number | null) {
    return (await this.sql.run(
      `INSERT INTO replicas (id, started_at, heartbeat_at, expires_at) VALUES (@id, @now, @now, ${this.dialect.cast('@expires', 'bigint')})
       ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at
       WHERE replicas.expires_at IS NOT NULL AND replicas.expires_at <= @now`,
      { id, now, expires: expiresAt })).changes > 0;
  }

  async retireOthers(id: string) {
    await this.sql.run('DELETE FROM replicas WHERE id <> ?', [id]);
  }

  /** Statement by statement (PostgreSQL does it in one: postgres/replicas.ts). */
  async heartbeat(id: string, now: number, expiresAt: number): Promise<Heartbeat> {
    await this.sql.run('UPDATE replicas SET heartbeat_at = @now, expires_at = @expires WHERE id = @id', { id, now, expires: expiresAt });
    const renewed = await this.sql.all<{ agent_id: string; epoch: number }>(RENEW_LEASES, { id, now, expires: expiresAt });
    const live = (await this.sql.all<{ id: string }>(
      'SELECT id FROM replicas WHERE expires_at IS NULL OR expires_at > @now OR id = @id ORDER BY id', { id, now })).map((r) => r.id);
    return { renewed, live, orphans: (await this.orphans(now)).length };
  }

  async orphans(now: number) {
    return (await this.sql.all<{ id: string }>(
      `SELECT a.id ${orphaned(this.dialect.cast('@now', 'bigint'))} ORDER BY a.id`, { now })).map((r) => r.id);
  }

  /** ON CONFLICT … WHERE is evaluated on the row as locked: a lease renewed or taken meanwhile is left alone. */
  async takeOver(owner: string, agentIds: readonly string[], now: number, expiresAt: number) {
    const { column, from } = this.takeOverIds;
    return this.sql.all<AgentLease>(
      `INSERT INTO agent_leases (agent_id, owner_id, epoch, expires_at)
       SELECT ${column}, @owner, 1, ${this.dialect.cast('@expires', 'bigint')} FROM ${from}${this.dialect.lockOrder(column)}
       ON CONFLICT (agent_id) DO UPDATE SET owner_id = excluded.owner_id, epoch = agent_leases.epoch + 1, expires_at = excluded.expires_at
       WHERE agent_leases.expires_at IS NOT NULL AND agent_leases.expires_at <= ${this.dialect.cast('@now', 'bigint')}
       RETURNING agent_id, owner_id, epoch, expires_at`, { owner, ids: agentIds, now, expires: expiresAt });
  }

  async list(now: number) {
    const at = this.dialect.cast('@now', 'bigint');
    return this.sql.all<Replica>(
      `SELECT r.id, r.started_at, r.heartbeat_at, r.expires_at,
         ${this.dialect.asInt(`SELECT COUNT(*) FROM agent_leases l WHERE l.owner_id = r.id AND (l.expires_at IS NULL OR l.expires_at > ${at})`)} AS agents_owned
       FROM replicas r WHERE r.expires_at IS NULL OR r.expires_at > ${at} ORDER BY r.id`, { now });
  }

  async holders(agentIds: readonly string[], now: number) {
    const rows = await this.sql.all<{ agent_id: string; owner_id: string }>(
      `SELECT agent_id, owner_id FROM agent_leases WHERE agent_id IN (${this.dialect.jsonElements('@ids')})
         AND (expires_at IS NULL OR expires_at > ${this.dialect.cast('@now', 'bigint')})`, { ids: agentIds, now });
    return new Map(rows.map((row) => [row.agent_id, row.owner_id]));
  }

  async leave(id: string, at: number) {
    await this.sql.run('UPDATE replicas SET expires_at = @at WHERE id = @id', { id, at });
  }
}
