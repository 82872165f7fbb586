import type { Wakeup } from '../../domain/types.js';
import type { EnqueueResult, Fence, FoldRule, WakeupFilter, WakeupRepo } from '../store.js';
import { DispatchClaim } from './dispatchClaim.js';
import { fencedBy } from './leases.js';
import type { Sql } from './sql.js';
import { Table, clampLimit, whereClause } from './table.js';
import { WAKEUPS } from '../tables.js';

const WAKEUP_COLUMNS = WAKEUPS.columns;

const COLUMN_LIST = WAKEUP_COLUMNS.join(', ');

/**
 * The agent's wakeup whose run exists but has not started: a queued run first, then a run waiting
 * for its retry (the spec's in-flight order minus running, which could not see a merged payload).
 * Two seeks on (agent_id, status), not a scan.
 */
const UNSTARTED_RUN_SQL = `SELECT id, task_id, run_id FROM (
    SELECT 0 AS rank, * FROM (SELECT w.id, w.task_id, w.run_id, w.requested_at FROM agent_wakeup_requests w JOIN runs r ON r.id = w.run_id
      WHERE w.agent_id = @agent AND w.status = 'claimed' AND r.status = 'queued' ORDER BY w.requested_at, w.id LIMIT 1)
    UNION ALL
    SELECT 1 AS rank, * FROM (SELECT id, task_id, run_id, requested_at FROM agent_wakeup_requests
      WHERE agent_id = @agent AND status = 'scheduled_retry' AND run_id IS NOT NULL ORDER BY requested_at, id LIMIT 1))
  ORDER BY rank LIMIT 1`;

/**
 * A fire's own routine run; for the first assignment of a routine's task, the run that created the
 * task (API.md: the heavy outcome comes from that wakeup). So ending any other wakeup reads no routine run.
 */
const ROUTINE_RUN_OF_REQUEST = `COALESCE(@routine_run_id, CASE WHEN @source = 'task_assigned' AND @task_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests WHERE task_id = @task_id AND source = 'task_assigned')
  THEN (SELECT id FROM office_routine_runs WHERE linked_task_id = @task_id LIMIT 1) END)`;

/** The request's values as parameters, except the columns given as SQL. */
const valuesWith = (decided: Partial<Record<(typeof WAKEUP_COLUMNS)[number], string>>) =>
  WAKEUP_COLUMNS.map((column) => decided[column] ?? `@${column}`).join(', ');

/** The request's own values, with the columns a fold decides taken from the target `t` (NULL: none). */
const QUEUED_OR_FOLDED_VALUES = valuesWith({
  workspace_id: 'agent.workspace_id',
  status: "CASE WHEN t.id IS NULL THEN 'queued' ELSE 'coalesced' END",
  coalesced_into_id: 't.id',
  run_id: 't.run_id',
  finished_at: 'CASE WHEN t.id IS NULL THEN NULL ELSE @requested_at END',
  routine_run_id: ROUTINE_RUN_OF_REQUEST,
});

/** A request folded into a known target `t`: its run is the one given, if any. */
const FOLDED_VALUES = valuesWith({
  status: "'coalesced'",
  coalesced_into_id: 't.id',
  run_id: '@fold_run',
  finished_at: '@requested_at',
  routine_run_id: ROUTINE_RUN_OF_REQUEST,
});

/** What the store decided of a new request; the rest of the row is the request as given. */
const DECIDED = 'RETURNING workspace_id, status, coalesced_into_id, run_id, routine_run_id, finished_at';

/**
 * The one statement of the common path. The target is the oldest queued wakeup of the agent and
 * source inside the window that the request may join (on its task, unless any task will do), else
 * the agent's run of the same task that has not started; with neither, the row is queued. No row: the agent is gone or
 * the key is taken.
 */
const ENQUEUE_OR_FOLD_SQL = `WITH agent AS (SELECT workspace_id FROM agent_instances WHERE id = @agent_id AND deleted_at IS NULL),
  window_target AS (
    SELECT id, task_id, NULL AS run_id, 0 AS rank FROM agent_wakeup_requests
    WHERE @fold AND @window_since IS NOT NULL AND agent_id = @agent_id AND status = 'queued' AND source = @source
      AND requested_at >= @window_since AND retry_count = 0 AND (@any_task OR task_id IS @task_id)
    ORDER BY requested_at, id LIMIT 1),
  run_target AS (${UNSTARTED_RUN_SQL}),
  target AS (
    SELECT id, run_id FROM (
      SELECT id, run_id, rank FROM window_target
      UNION ALL
      SELECT id, run_id, 1 AS rank FROM run_target WHERE @fold AND task_id IS @task_id)
    ORDER BY rank LIMIT 1)
  INSERT INTO agent_wakeup_requests (${COLUMN_LIST})
  SELECT ${QUEUED_OR_FOLDED_VALUES} FROM agent LEFT JOIN target t ON 1
  WHERE 1
  ON CONFLICT (idempotency_key) DO NOTHING ${DECIDED}`;

const FOLD_INTO_SQL = `INSERT INTO agent_wakeup_requests (${COLUMN_LIST})
  SELECT ${FOLDED_VALUES} FROM agent_wakeup_requests t
  WHERE t.id = @target AND t.status IN ('queued', 'scheduled_retry')
  ON CONFLICT (idempotency_key) DO NOTHING ${DECIDED}`;

/** Appends the wake `@entry` to a context's list, in SQL, so two folds never overwrite each other. */
const APPEND_WAKE = `CASE WHEN json_type(context_snapshot, '$.wakes') = 'array'
  THEN json_insert(context_snapshot, '$.wakes[#]', json(@entry))
  ELSE json_set(context_snapshot, '$.wakes', json_array(json(@entry))) END`;

/** The atomic claim: queued (or a due retry) to claimed, only while the fence holds the agent's lease. */
const CLAIM = `UPDATE agent_wakeup_requests SET status = 'claimed', claimed_at = @at, skip_reason = NULL, waiting_on_checkout = NULL
  WHERE id = @id AND (status = 'queued' OR status = 'scheduled_retry') AND ${fencedBy('agent_wakeup_requests.agent_id')}`;

const CLAIM_RETURNING_ROW = `${CLAIM} RETURNING *`;

const claimParams = (id: string, at: number, fence: Fence) => ({ id, at, owner: fence.owner_id, epoch: fence.epoch });

export class SqliteWakeups implements WakeupRepo {
  private readonly table: Table<Wakeup>;
  private readonly dispatchClaim: DispatchClaim;
  constructor(private readonly sql: Sql) {
    this.table = new Table(sql, WAKEUPS);
    this.dispatchClaim = new DispatchClaim(sql, this.table, CLAIM);
  }

  async enqueueOrFold(wakeup: Wakeup, fold: FoldRule | null, keyWindowStart: number): Promise<EnqueueResult> {
    const stored = this.insertOrFoldRow(wakeup, fold);
    if (stored) return stored.status === 'queued' ? { kind: 'queued', wakeup: stored } : this.completeFold(stored, wakeup);
    const existing = wakeup.idempotency_key === null ? undefined : await this.findByKey(wakeup.idempotency_key);
    if (!existing) return { kind: 'agent_gone' };
    if (existing.requested_at > keyWindowStart) return { kind: 'duplicate', wakeup: existing };
    await this.retireKey(existing.id);
    return this.enqueueOrFold(wakeup, fold, keyWindowStart);
  }

  async foldInto(wakeup: Wakeup, targetId: string, runId: string | null) {
    const decided = this.sql.get<Partial<Wakeup>>(FOLD_INTO_SQL, { ...wakeup, target: targetId, fold_run: runId });
    if (!decided) return null;
    const folded = this.completeFold({ ...wakeup, ...decided }, wakeup);
    return { wakeup: folded.wakeup, into: folded.into };
  }


  /**
   * The one statement of the common path. The target is the oldest queued wakeup of the agent and
   * source inside the window (if its task scope admits the request), else the agent's run of the
   * same task that has not started; with neither, the row is queued. No row: the agent is gone or
   * the key is taken.
   */
  private insertOrFoldRow(wakeup: Wakeup, fold: FoldRule | null): Wakeup | undefined {
    const decided = this.sql.get<Partial<Wakeup>>(ENQUEUE_OR_FOLD_SQL,
      { ...wakeup, fold: fold !== null, window_since: fold?.windowSince ?? null, any_task: fold?.anyTask ?? false, agent: wakeup.agent_id });
    return decided ? { ...wakeup, ...decided } : undefined;
  }


  /** The fold's other half: the target counts the request and carries its wake, and so does its run while queued. */
  private completeFold(stored: Wakeup, wakeup: Wakeup): { kind: 'folded'; wakeup: Wakeup; into: Wakeup; via: 'window' | 'unstarted_run' } {
    const entry = JSON.stringify((wakeup.context_snapshot as { wakes: unknown[] }).wakes[0]);
    const into = this.table.one(
      `UPDATE agent_wakeup_requests SET coalesced_count = coalesced_count + 1, context_snapshot = ${APPEND_WAKE}
       WHERE id = @id RETURNING *`, { id: stored.coalesced_into_id, entry })!;
    if (stored.run_id) {
      this.sql.run(`UPDATE runs SET context_snapshot = ${APPEND_WAKE} WHERE id = @id AND status = 'queued'`, { id: stored.run_id, entry });
    }
    return { kind: 'folded', wakeup: stored, into, via: stored.run_id ? 'unstarted_run' : 'window' };
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

  async claim(id: string, at: number, fence: Fence) {
    return this.table.one(CLAIM_RETURNING_ROW, claimParams(id, at, fence));
  }

  async claimForDispatch(id: string, at: number, fence: Fence, periodStarts: { daily: number; monthly: number }) {
    return this.dispatchClaim.claim(claimParams(id, at, fence), periodStarts);
  }


  async update(id: string, patch: Partial<Wakeup>) { this.table.update(id, patch); }

  async requeueClaimed(owner: string, agentIds?: readonly string[]) {
    return this.table.many(
      `UPDATE agent_wakeup_requests SET status = 'queued', claimed_at = NULL
       WHERE status = 'claimed' AND agent_id IN (SELECT agent_id FROM agent_leases WHERE owner_id = @owner)
         AND (@ids IS NULL OR agent_id IN (SELECT value FROM json_each(@ids)))
         AND NOT EXISTS (SELECT 1 FROM runs WHERE status = 'running' AND wakeup_id = agent_wakeup_requests.id) RETURNING *`, { owner, ids: agentIds ? JSON.stringify(agentIds) : null });
  }

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
      "SELECT * FROM agent_wakeup_requests WHERE task_id = ? AND status IN ('queued', 'claimed', 'scheduled_retry') ORDER BY requested_at, id",
      [taskId]);
  }

  async countByStatus() {
    const rows = this.sql.all<{ status: string; n: number }>('SELECT status, COUNT(*) AS n FROM agent_wakeup_requests GROUP BY status');
    return Object.fromEntries(rows.map((row) => [row.status, row.n]));
  }
}
