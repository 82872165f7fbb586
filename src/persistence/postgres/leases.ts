import type { AgentLease, LeaseRepo } from '../store.js';
import { fencedBy as sharedFencedBy } from '../sql/dialect.js';
import { POSTGRES_TEXT } from './dialect.js';
import type { PgSql } from './sql.js';

/** Insert-or-bump: the epoch is read and raised inside the statement's own write, never in JavaScript. */
const BUMP = `ON CONFLICT (agent_id) DO UPDATE SET owner_id = excluded.owner_id, epoch = agent_leases.epoch + 1,
  expires_at = excluded.expires_at
  RETURNING agent_id, owner_id, epoch, expires_at`;

export class PgLeases implements LeaseRepo {
  constructor(private readonly sql: PgSql) {}

  async takeAll(owner: string, expiresAt: number | null) {
    // A deleted agent whose run was left queued or running is taken too: its run must still be settled.
    return this.sql.all<AgentLease>(
      `INSERT INTO agent_leases (agent_id, owner_id, epoch, expires_at)
       SELECT a.id, @owner, 1, @expires::bigint FROM agent_instances a
       WHERE a.deleted_at IS NULL
          OR EXISTS (SELECT 1 FROM runs r WHERE r.agent_id = a.id AND r.status IN ('queued', 'running'))
       ORDER BY a.id
       ${BUMP}`, { owner, expires: expiresAt });
  }

  async take(agentId: string, owner: string, expiresAt: number | null) {
    const lease = await this.sql.get<AgentLease>(
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
    return (agentIds
      ? await this.sql.run(
        `UPDATE agent_leases SET expires_at = @at
         WHERE owner_id = @owner AND agent_id IN (SELECT jsonb_array_elements_text(@ids::jsonb))`,
        { owner, at, ids: agentIds })
      : await this.sql.run('UPDATE agent_leases SET expires_at = @at WHERE owner_id = @owner', { owner, at })).changes;
  }
}

/**
 * The fence as a condition of a statement acting on `agentColumn`'s agent: the lease is this
 * owner's, at this epoch, and has not expired at `@at`. Binds @owner, @epoch and @at. The lease row
 * is share-locked, so a take of the agent waits for the fenced statement's transaction, and a
 * fenced statement that waited for a take sees the new epoch and does nothing.
 */
export const fencedBy = (agentColumn: string): string => sharedFencedBy(POSTGRES_TEXT, agentColumn);
