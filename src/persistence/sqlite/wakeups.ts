import type { Wakeup } from '../../domain/types.js';
import type { Fence, WakeupFilter, WakeupRepo } from '../store.js';
import { fencedBy } from './leases.js';
import type { Sql } from './sql.js';
import { Table, clampLimit, whereClause } from './table.js';

const WAKEUP_COLUMNS = [
  'id', 'workspace_id', 'agent_id', 'source', 'reason', 'payload', 'task_id', 'status', 'cancel_reason', 'skip_reason',
  'coalesced_count', 'coalesced_into_id', 'idempotency_key', 'retry_count', 'scheduled_retry_at', 'available_at',
  'context_snapshot', 'run_id', 'routine_run_id', 'waiting_on_checkout', 'recovered', 'error', 'requested_at', 'claimed_at', 'finished_at',
] as const;

export class SqliteWakeups implements WakeupRepo {
  private readonly table: Table<Wakeup>;
  constructor(private readonly sql: Sql) {
    this.table = new Table(sql, 'agent_wakeup_requests', WAKEUP_COLUMNS,
      { json: { payload: {}, context_snapshot: {} }, bool: ['recovered'] });
  }

  async insert(wakeup: Wakeup) { this.table.insert(wakeup); }
  async get(id: string) { return this.table.get(id); }

  async list(filter: WakeupFilter) {
    const { where, params } = whereClause(filter as Record<string, unknown>, {
      agent_id: 'agent_id', status: 'status', source: 'source', task_id: 'task_id', workspace_id: 'workspace_id',
    });
    return this.table.many(
      `SELECT * FROM agent_wakeup_requests ${where} ORDER BY requested_at DESC, id DESC LIMIT @limit`,
      { ...params, limit: clampLimit(filter.limit, 200) });
  }

  async findByKey(key: string) {
    return this.table.one('SELECT * FROM agent_wakeup_requests WHERE idempotency_key = ?', [key]);
  }

  async retireKey(id: string) {
    // The key stays readable for audit, but no longer collides with a new request.
    this.sql.run("UPDATE agent_wakeup_requests SET idempotency_key = idempotency_key || '#expired:' || id WHERE id = ?", [id]);
  }

  async findCoalesceTarget(agentId: string, source: string, since: number) {
    return this.table.one(
      `SELECT * FROM agent_wakeup_requests
       WHERE agent_id = ? AND status = 'queued' AND source = ? AND requested_at >= ? AND retry_count = 0
       ORDER BY requested_at LIMIT 1`, [agentId, source, since]);
  }

  async findUnstartedRun(agentId: string) {
    // Queued run first, then a run waiting for its retry: the spec's in-flight order minus
    // running, which could not see a merged payload. Two seeks on (agent_id, status), not a scan, in one statement.
    const row = this.table.one(
      `SELECT * FROM (
         SELECT 0 AS rank, * FROM (SELECT w.* FROM agent_wakeup_requests w JOIN runs r ON r.id = w.run_id
           WHERE w.agent_id = @agent AND w.status = 'claimed' AND r.status = 'queued' ORDER BY w.requested_at LIMIT 1)
         UNION ALL
         SELECT 1 AS rank, * FROM (SELECT * FROM agent_wakeup_requests WHERE agent_id = @agent AND status = 'scheduled_retry' AND run_id IS NOT NULL
           ORDER BY requested_at LIMIT 1))
       ORDER BY rank LIMIT 1`, { agent: agentId }) as (Wakeup & { rank?: number }) | undefined;
    if (!row) return undefined;
    const { rank: _rank, ...wakeup } = row;
    return wakeup as Wakeup;
  }

  async claim(id: string, at: number, fence: Fence) {
    return this.table.one(
      `UPDATE agent_wakeup_requests SET status = 'claimed', claimed_at = @at, skip_reason = NULL, waiting_on_checkout = NULL
       WHERE id = @id AND (status = 'queued' OR status = 'scheduled_retry') AND ${fencedBy('agent_wakeup_requests.agent_id')}
       RETURNING *`, { id, at, owner: fence.owner_id, epoch: fence.epoch });
  }

  async update(id: string, patch: Partial<Wakeup>) { this.table.update(id, patch); }

  async listOpen(agentId?: string) {
    return agentId
      ? this.table.many(
        `SELECT * FROM agent_wakeup_requests WHERE agent_id = ? AND status IN ('queued', 'claimed', 'scheduled_retry')
         ORDER BY requested_at, id`, [agentId])
      : this.table.many(
        `SELECT * FROM agent_wakeup_requests WHERE status IN ('queued', 'claimed', 'scheduled_retry')
         ORDER BY requested_at, id`);
  }

  async unfold(targetId: string, carried: readonly string[], now: number) {
    return this.table.many(
      `UPDATE agent_wakeup_requests SET status = 'queued', coalesced_into_id = NULL, run_id = NULL, finished_at = NULL, available_at = @now
       WHERE coalesced_into_id = @target AND status = 'coalesced' AND id NOT IN (SELECT value FROM json_each(@carried)) RETURNING *`,
      { target: targetId, carried: JSON.stringify(carried), now });
  }

  async releaseDeferred(agentId: string, now: number) {
    return this.table.many(
      `UPDATE agent_wakeup_requests SET available_at = @now, skip_reason = NULL
       WHERE agent_id = @agent AND status = 'queued' AND skip_reason IN ('daily_run_cap', 'daily_cost_cap') RETURNING *`,
      { agent: agentId, now });
  }

  async pendingRetriesFor(taskId: string, agentId: string) {
    return this.table.many(
      "SELECT * FROM agent_wakeup_requests WHERE task_id = ? AND agent_id = ? AND status = 'scheduled_retry'",
      [taskId, agentId]);
  }

  async openForTask(taskId: string) {
    return this.table.many(
      "SELECT * FROM agent_wakeup_requests WHERE task_id = ? AND status IN ('queued', 'claimed', 'scheduled_retry') ORDER BY requested_at",
      [taskId]);
  }

  async countByStatus() {
    const rows = this.sql.all<{ status: string; n: number }>('SELECT status, COUNT(*) AS n FROM agent_wakeup_requests GROUP BY status');
    return Object.fromEntries(rows.map((row) => [row.status, row.n]));
  }
}
