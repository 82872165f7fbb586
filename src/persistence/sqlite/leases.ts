import type { AgentLease, Heartbeat, LeaseRepo, Replica, ReplicaRepo } from '../store.js';
import { fencedBy as sharedFencedBy } from '../sql/dialect.js';
import { SQLITE_TEXT } from './dialect.js';
import type { Sql } from './sql.js';

/** Insert-or-bump: the epoch is read and raised inside the statement's own write, never in JavaScript. */
const BUMP = `ON CONFLICT (agent_id) DO UPDATE SET owner_id = excluded.owner_id, epoch = agent_leases.epoch + 1,
  expires_at = excluded.expires_at
  RETURNING agent_id, owner_id, epoch, expires_at`;

export class SqliteLeases implements LeaseRepo {
  constructor(private readonly sql: Sql) {}

  async takeAll(owner: string, expiresAt: number | null) {
    // A deleted agent whose run was left queued or running is taken too: its run must still be settled.
    return this.sql.all<AgentLease>(
      `INSERT INTO agent_leases (agent_id, owner_id, epoch, expires_at)
       SELECT a.id, @owner, 1, @expires FROM agent_instances a
       WHERE a.deleted_at IS NULL
          OR EXISTS (SELECT 1 FROM runs r WHERE r.agent_id = a.id AND r.status IN ('queued', 'running'))
       ${BUMP}`, { owner, expires: expiresAt });
  }

  async take(agentId: string, owner: string, expiresAt: number | null) {
    const lease = this.sql.get<AgentLease>(
      `INSERT INTO agent_leases (agent_id, owner_id, epoch, expires_at) VALUES (@agent, @owner, 1, @expires) ${BUMP}`,
      { agent: agentId, owner, expires: expiresAt });
    return lease!;
  }

  async leaseOf(agentId: string) {
    return this.sql.get<AgentLease>('SELECT agent_id, owner_id, epoch, expires_at FROM agent_leases WHERE agent_id = ?', [agentId]);
  }

  async held(owner: string) {
    return this.sql.all<AgentLease>(
      'SELECT agent_id, owner_id, epoch, expires_at FROM agent_leases WHERE owner_id = ? ORDER BY agent_id', [owner]);
  }

  async release(owner: string, at: number, agentIds?: readonly string[]) {
    // The epoch stays: whoever takes the agent next bumps it, so this owner's fence stays stale.
    return agentIds
      ? this.sql.run(
        `UPDATE agent_leases SET expires_at = @at
         WHERE owner_id = @owner AND agent_id IN (SELECT value FROM json_each(@ids))`,
        { owner, at, ids: JSON.stringify(agentIds) }).changes
      : this.sql.run('UPDATE agent_leases SET expires_at = @at WHERE owner_id = @owner', { owner, at }).changes;
  }
}

/**
 * The fence as a condition of a statement acting on `agentColumn`'s agent: the lease is this
 * owner's, at this epoch, and has not expired at `@at`. Binds @owner, @epoch and @at.
 */
export const fencedBy = (agentColumn: string): string => sharedFencedBy(SQLITE_TEXT, agentColumn);

/** An agent that needs an owner: a live one, or a deleted one whose run is still unfinished (it must be settled). */
export const NEEDS_OWNER = `(a.deleted_at IS NULL
  OR EXISTS (SELECT 1 FROM runs r WHERE r.agent_id = a.id AND r.status IN ('queued', 'running')))`;

/** SQLite: one process holds the database, so membership is that process; heartbeats exist for the port's sake. */
export class SqliteReplicas implements ReplicaRepo {
  constructor(private readonly sql: Sql) {}

  async register(id: string, now: number, expiresAt: number | null) {
    return this.sql.run(
      `INSERT INTO replicas (id, started_at, heartbeat_at, expires_at) VALUES (@id, @now, @now, @expires)
       ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at
       WHERE replicas.expires_at IS NOT NULL AND replicas.expires_at <= @now`,
      { id, now, expires: expiresAt }).changes > 0;
  }

  async retireOthers(id: string) {
    this.sql.run('DELETE FROM replicas WHERE id <> ?', [id]);
  }

  async heartbeat(id: string, now: number, expiresAt: number): Promise<Heartbeat> {
    this.sql.run('UPDATE replicas SET heartbeat_at = @now, expires_at = @expires WHERE id = @id', { id, now, expires: expiresAt });
    const renewed = this.sql.all<{ agent_id: string; epoch: number }>(
      `UPDATE agent_leases SET expires_at = @expires WHERE owner_id = @id AND expires_at > @now RETURNING agent_id, epoch`,
      { id, now, expires: expiresAt });
    const live = this.sql.all<{ id: string }>(
      'SELECT id FROM replicas WHERE expires_at IS NULL OR expires_at > @now OR id = @id ORDER BY id', { id, now }).map((r) => r.id);
    return { renewed, live, orphans: (await this.orphans(now)).length };
  }

  async orphans(now: number) {
    return this.sql.all<{ id: string }>(
      `SELECT a.id FROM agent_instances a WHERE ${NEEDS_OWNER} AND NOT EXISTS (SELECT 1 FROM agent_leases l
         WHERE l.agent_id = a.id AND (l.expires_at IS NULL OR l.expires_at > @now)) ORDER BY a.id`, { now }).map((r) => r.id);
  }

  async takeOver(owner: string, agentIds: readonly string[], now: number, expiresAt: number) {
    return this.sql.all<AgentLease>(
      `INSERT INTO agent_leases (agent_id, owner_id, epoch, expires_at)
       SELECT value, @owner, 1, @expires FROM json_each(@ids) WHERE true
       ON CONFLICT (agent_id) DO UPDATE SET owner_id = excluded.owner_id, epoch = agent_leases.epoch + 1, expires_at = excluded.expires_at
       WHERE agent_leases.expires_at IS NOT NULL AND agent_leases.expires_at <= @now
       RETURNING agent_id, owner_id, epoch, expires_at`, { owner, ids: JSON.stringify(agentIds), now, expires: expiresAt });
  }

  async list(now: number) {
    return this.sql.all<Replica>(
      `SELECT r.id, r.started_at, r.heartbeat_at, r.expires_at,
         (SELECT COUNT(*) FROM agent_leases l WHERE l.owner_id = r.id AND (l.expires_at IS NULL OR l.expires_at > @now)) AS agents_owned
       FROM replicas r WHERE r.expires_at IS NULL OR r.expires_at > @now ORDER BY r.id`, { now });
  }

  async holders(agentIds: readonly string[], now: number) {
    const rows = this.sql.all<{ agent_id: string; owner_id: string }>(
      `SELECT agent_id, owner_id FROM agent_leases WHERE agent_id IN (SELECT value FROM json_each(@ids))
         AND (expires_at IS NULL OR expires_at > @now)`, { ids: JSON.stringify(agentIds), now });
    return new Map(rows.map((row) => [row.agent_id, row.owner_id]));
  }

  async leave(id: string, at: number) {
    this.sql.run('UPDATE replicas SET expires_at = @at WHERE id = @id', { id, at });
  }
}
