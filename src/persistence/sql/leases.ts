import type { AgentLease, LeaseRepo } from '../store.js';
import type { Dialect, SqlRunner } from './dialect.js';
import { openRun } from './openRows.js';

/** An agent that needs an owner: a live one, or a deleted one whose run is still unfinished (it must be settled). */
export const NEEDS_OWNER = `(a.deleted_at IS NULL
  OR EXISTS (SELECT 1 FROM runs r WHERE r.agent_id = a.id AND ${openRun('r.status')}))`;

/** Insert-or-bump: the epoch is read and raised inside the statement's own write, never in JavaScript. */
const BUMP = `ON CONFLICT (agent_id) DO UPDATE SET owner_id = excluded.owner_id, epoch = agent_leases.epoch + 1,
  expires_at = excluded.expires_at
  RETURNING agent_id, owner_id, epoch, expires_at`;

/** Agents' leases, on both backends. */
export class LeasesSql implements LeaseRepo {
  private readonly sql: SqlRunner;
  constructor(private readonly dialect: Dialect) {
    this.sql = dialect.sql;
  }

  async takeAll(owner: string, expiresAt: number | null) {
    // A deleted agent whose run was left queued or running is taken too: its run must still be settled.
    return this.sql.all<AgentLease>(
      `INSERT INTO agent_leases (agent_id, owner_id, epoch, expires_at)
       SELECT a.id, @owner, 1, ${this.dialect.cast('@expires', 'bigint')} FROM agent_instances a
       WHERE ${NEEDS_OWNER}${this.dialect.lockOrder('a.id')}
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
         WHERE owner_id = @owner AND agent_id IN (${this.dialect.jsonElements('@ids')})`,
        { owner, at, ids: agentIds })
      : await this.sql.run('UPDATE agent_leases SET expires_at = @at WHERE owner_id = @owner', { owner, at })).changes;
  }
}
