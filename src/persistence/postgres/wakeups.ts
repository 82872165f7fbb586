import type { Wakeup } from '../../domain/types.js';
import type { EnqueueResult, Fence, FoldRule, WakeupFilter, WakeupRepo } from '../store.js';
import { clampLimit, whereClause } from '../sqlite/table.js';
import { DispatchClaim } from './dispatchClaim.js';
import { fencedBy } from './leases.js';
import type { PgSql } from './sql.js';
import { PgTable } from './table.js';
import { WAKEUPS } from '../tables.js';

const WAKEUP_COLUMNS = WAKEUPS.columns;

const COLUMN_LIST = WAKEUP_COLUMNS.join(', ');

/**
 * Column types of the request's parameters: INSERT … SELECT gives a parameter no type from its
 * target column, so each is cast (text unless listed).
 */
const PARAMETER_TYPE: Partial<Record<(typeof WAKEUP_COLUMNS)[number], string>> = {
  coalesced_count: 'integer', retry_count: 'integer', recovered: 'integer', unattended: 'integer', scheduled_retry_at: 'bigint',
  available_at: 'bigint', requested_at: 'bigint', claimed_at: 'bigint', finished_at: 'bigint',
};
const param = (column: (typeof WAKEUP_COLUMNS)[number]) => `@${column}::${PARAMETER_TYPE[column] ?? 'text'}`;

/**
 * The agent's wakeup whose run exists but has not started: a queued run first, then a run waiting
 * for its retry. The wakeup is locked (FOR UPDATE): a claim that commits first takes it out of
 * the choice, and one that comes after sees the fold.
 */
const UNSTARTED_RUN_SQL = `SELECT id, task_id, run_id FROM (
    SELECT * FROM (SELECT 0 AS rank, w.id, w.task_id, w.run_id FROM agent_wakeup_requests w JOIN runs r ON r.id = w.run_id
      WHERE w.agent_id = @agent_id AND w.status = 'claimed' AND r.status = 'queued' ORDER BY w.requested_at, w.id LIMIT 1 FOR UPDATE OF w) queued_run
    UNION ALL
    SELECT * FROM (SELECT 1 AS rank, id, task_id, run_id FROM agent_wakeup_requests
      WHERE agent_id = @agent_id AND status = 'scheduled_retry' AND run_id IS NOT NULL ORDER BY requested_at, id LIMIT 1 FOR UPDATE) retry_run) u
  ORDER BY rank LIMIT 1`;

/** SQLite's ROUTINE_RUN_OF_REQUEST (sqlite/wakeups.ts), with PostgreSQL's casts. */
const ROUTINE_RUN_OF_REQUEST = `COALESCE(@routine_run_id::text, CASE WHEN @source::text = 'task_assigned' AND @task_id::text IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests WHERE task_id = @task_id AND source = 'task_assigned')
  THEN (SELECT id FROM office_routine_runs WHERE linked_task_id = @task_id LIMIT 1) END)`;

/** The request's own values, with the columns a fold decides taken from the target `t` (NULL: none). */
const QUEUED_OR_FOLDED_VALUES = WAKEUP_COLUMNS.map((column) => {
  switch (column) {
    case 'workspace_id': return 'agent.workspace_id';
    case 'status': return "CASE WHEN t.id IS NULL THEN 'queued' ELSE 'coalesced' END";
    case 'coalesced_into_id': return 't.id';
    case 'run_id': return 't.run_id';
    case 'finished_at': return 'CASE WHEN t.id IS NULL THEN NULL ELSE @requested_at::bigint END';
    case 'routine_run_id': return ROUTINE_RUN_OF_REQUEST;
    default: return param(column);
  }
}).join(', ');

/** A request folded into a known target `t`: its run is the one given, if any. */
const FOLDED_VALUES = WAKEUP_COLUMNS.map((column) => {
  switch (column) {
    case 'status': return "'coalesced'";
    case 'coalesced_into_id': return 't.id';
    case 'run_id': return '@fold_run::text';
    case 'finished_at': return '@requested_at::bigint';
    case 'routine_run_id': return ROUTINE_RUN_OF_REQUEST;
    default: return param(column);
  }
}).join(', ');

/** What the store decided of a new request; the rest of the row is the request as given. */
const DECIDED = 'RETURNING workspace_id, status, coalesced_into_id, run_id, routine_run_id, finished_at';

/**
 * SQLite's statement of the common path. The window target is locked (FOR UPDATE), so a claim
 * racing it either takes it first (it is then no target) or waits and sees the fold.
 */
const ENQUEUE_OR_FOLD_SQL = `WITH agent AS (SELECT workspace_id FROM agent_instances WHERE id = @agent_id AND deleted_at IS NULL),
  window_target AS (
    SELECT id, task_id, NULL::text AS run_id FROM agent_wakeup_requests
    WHERE @fold = 1 AND @window_since::bigint IS NOT NULL AND agent_id = @agent_id AND status = 'queued' AND source = @source
      AND requested_at >= @window_since::bigint AND retry_count = 0 AND (@any_task = 1 OR task_id IS NOT DISTINCT FROM @task_id::text)
    ORDER BY requested_at, id LIMIT 1 FOR UPDATE),
  run_target AS (${UNSTARTED_RUN_SQL}),
  target AS (
    SELECT id, run_id FROM (
      SELECT id, run_id, 0 AS rank FROM window_target
      UNION ALL
      SELECT id, run_id, 1 AS rank FROM run_target WHERE @fold = 1 AND task_id IS NOT DISTINCT FROM @task_id::text) c
    ORDER BY rank LIMIT 1)
  INSERT INTO agent_wakeup_requests (${COLUMN_LIST})
  SELECT ${QUEUED_OR_FOLDED_VALUES} FROM agent LEFT JOIN target t ON true
  ON CONFLICT (idempotency_key) DO NOTHING ${DECIDED}`;

const FOLD_INTO_SQL = `WITH t AS (SELECT id FROM agent_wakeup_requests
    WHERE id = @target AND status IN ('queued', 'scheduled_retry') FOR UPDATE)
  INSERT INTO agent_wakeup_requests (${COLUMN_LIST})
  SELECT ${FOLDED_VALUES} FROM t
  ON CONFLICT (idempotency_key) DO NOTHING ${DECIDED}`;

/**
 * The fold decisions of one agent are taken one at a time: READ COMMITTED gives each statement the
 * rows committed when it starts, so two requests deciding at once would each find no window target
 * and both queue. This lock (until commit) comes in its own statement before the decision, whose
 * snapshot then holds every earlier decision for the agent.
 *
 * A request bound to its task (not `anyTask`) can fold only into work on that task, and a request
 * made later is never the oldest in the window, so it need not wait for requests on the agent's
 * other tasks: it holds the agent's key shared and its (agent, task) key alone. A request that may
 * fold whatever the task holds the agent's key alone, and so waits for all of them. Keys are always
 * taken agent first, so no two requests wait for each other.
 */
const FOLD_KEY = (suffix: string) => `hashtextextended('office.fold:' || @agent${suffix}, 0)`;
const LOCK_AGENT_FOLDS = `SELECT pg_advisory_xact_lock(${FOLD_KEY('')})`;
const LOCK_TASK_FOLDS = `SELECT pg_advisory_xact_lock_shared(${FOLD_KEY('')}), pg_advisory_xact_lock(${FOLD_KEY(" || ':' || @task")})`;

/** The fold lock `wakeup` takes before its decision under `fold` (FOLD_KEY), as a statement and its parameters. */
function foldLock(wakeup: Wakeup, fold: FoldRule): [string, Record<string, unknown>] {
  return fold.anyTask || wakeup.task_id === null
    ? [LOCK_AGENT_FOLDS, { agent: wakeup.agent_id }]
    : [LOCK_TASK_FOLDS, { agent: wakeup.agent_id, task: wakeup.task_id }];
}

/** Appends the wake `@entry` to a context's list, in SQL, so two folds never overwrite each other. */
const APPEND_WAKE = `(CASE WHEN jsonb_typeof(context_snapshot::jsonb -> 'wakes') = 'array'
  THEN jsonb_set(context_snapshot::jsonb, '{wakes}', (context_snapshot::jsonb -> 'wakes') || jsonb_build_array(@entry::jsonb))
  ELSE jsonb_set(context_snapshot::jsonb, '{wakes}', jsonb_build_array(@entry::jsonb)) END)::text`;

/** The atomic claim: queued (or a due retry) to claimed, only while the fence holds the agent's lease. */
const CLAIM = `UPDATE agent_wakeup_requests SET status = 'claimed', claimed_at = @at, skip_reason = NULL, waiting_on_checkout = NULL
  WHERE id = @id AND (status = 'queued' OR status = 'scheduled_retry') AND ${fencedBy('agent_wakeup_requests.agent_id')}`;

const CLAIM_RETURNING_ROW = `${CLAIM} RETURNING *`;

const claimParams = (id: string, at: number, fence: Fence) => ({ id, at, owner: fence.owner_id, epoch: fence.epoch });

export class PgWakeups implements WakeupRepo {
  private readonly table: PgTable<Wakeup>;
  private readonly dispatchClaim: DispatchClaim;
  constructor(private readonly sql: PgSql) {
    this.table = new PgTable(sql, WAKEUPS);
    this.dispatchClaim = new DispatchClaim(sql, this.table, CLAIM);
  }

  async enqueueOrFold(wakeup: Wakeup, fold: FoldRule | null, keyWindowStart: number): Promise<EnqueueResult> {
    // The lock leaves in the same write as the statement that needs it: nothing waits for its answer.
    const [, stored] = await Promise.all([
      fold === null ? null : this.sql.get(...foldLock(wakeup, fold)),
      this.insertOrFoldRow(wakeup, fold),
    ]);
    if (stored) return stored.status === 'queued' ? { kind: 'queued', wakeup: stored } : this.completeFold(stored, wakeup);
    const existing = wakeup.idempotency_key === null ? undefined : await this.findByKey(wakeup.idempotency_key);
    if (!existing) return { kind: 'agent_gone' };
    if (existing.requested_at > keyWindowStart) return { kind: 'duplicate', wakeup: existing };
    await this.retireKey(existing.id);
    return this.enqueueOrFold(wakeup, fold, keyWindowStart);
  }

  async foldInto(wakeup: Wakeup, targetId: string, runId: string | null) {
    const decided = await this.sql.get<Partial<Wakeup>>(FOLD_INTO_SQL, { ...wakeup, target: targetId, fold_run: runId });
    if (!decided) return null;
    const folded = await this.completeFold({ ...wakeup, ...decided }, wakeup);
    return { wakeup: folded.wakeup, into: folded.into };
  }

  private async insertOrFoldRow(wakeup: Wakeup, fold: FoldRule | null): Promise<Wakeup | undefined> {
    const decided = await this.sql.get<Partial<Wakeup>>(ENQUEUE_OR_FOLD_SQL,
      { ...wakeup, fold: fold !== null, window_since: fold?.windowSince ?? null, any_task: fold?.anyTask ?? false });
    return decided ? { ...wakeup, ...decided } : undefined;
  }

  /** The fold's other half: the target counts the request and carries its wake, and so does its run while queued. */
  private async completeFold(stored: Wakeup, wakeup: Wakeup): Promise<{ kind: 'folded'; wakeup: Wakeup; into: Wakeup; via: 'window' | 'unstarted_run' }> {
    const entry = JSON.stringify((wakeup.context_snapshot as { wakes: unknown[] }).wakes[0]);
    const into = (await this.table.one(
      `UPDATE agent_wakeup_requests SET coalesced_count = coalesced_count + 1, context_snapshot = ${APPEND_WAKE}
       WHERE id = @id RETURNING *`, { id: stored.coalesced_into_id, entry }))!;
    if (stored.run_id) {
      await this.sql.run(`UPDATE runs SET context_snapshot = ${APPEND_WAKE} WHERE id = @id AND status = 'queued'`, { id: stored.run_id, entry });
    }
    return { kind: 'folded', wakeup: stored, into, via: stored.run_id ? 'unstarted_run' : 'window' };
  }

  async insert(wakeup: Wakeup) { await this.table.insert(wakeup); }
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
    await this.sql.run("UPDATE agent_wakeup_requests SET idempotency_key = idempotency_key || '#expired:' || id WHERE id = ?", [id]);
  }

  async claim(id: string, at: number, fence: Fence) {
    return this.table.one(CLAIM_RETURNING_ROW, claimParams(id, at, fence));
  }

  async claimForDispatch(id: string, at: number, fence: Fence, periodStarts: { daily: number; monthly: number }) {
    return this.dispatchClaim.claim(claimParams(id, at, fence), periodStarts);
  }

  async update(id: string, patch: Partial<Wakeup>) { await this.table.update(id, patch); }

  async requeueClaimed(owner: string, agentIds?: readonly string[]) {
    return this.table.many(
      `UPDATE agent_wakeup_requests SET status = 'queued', claimed_at = NULL
       WHERE status = 'claimed' AND agent_id IN (SELECT agent_id FROM agent_leases WHERE owner_id = @owner)
         AND (@ids::jsonb IS NULL OR agent_id IN (SELECT jsonb_array_elements_text(@ids::jsonb)))
         AND NOT EXISTS (SELECT 1 FROM runs WHERE status = 'running' AND wakeup_id = agent_wakeup_requests.id) RETURNING *`, { owner, ids: agentIds ?? null });
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
       WHERE coalesced_into_id = @target AND status = 'coalesced'
         AND id NOT IN (SELECT jsonb_array_elements_text(@carried::jsonb)) RETURNING *`,
      { target: targetId, carried, now });
  }

  async releaseDeferred(agentId: string, now: number) {
    return this.table.many(
      `UPDATE agent_wakeup_requests SET available_at = @now, skip_reason = NULL
       WHERE agent_id = @agent AND status = 'queued' AND skip_reason IN ('daily_run_cap', 'daily_cost_cap') RETURNING *`,
      { agent: agentId, now });
  }

  async pendingRetriesFor(taskId: string, agentId: string) {
    return this.table.many(
      "SELECT * FROM agent_wakeup_requests WHERE task_id = ? AND agent_id = ? AND status = 'scheduled_retry' ORDER BY requested_at, id",
      [taskId, agentId]);
  }

  async openForTask(taskId: string) {
    return this.table.many(
      "SELECT * FROM agent_wakeup_requests WHERE task_id = ? AND status IN ('queued', 'claimed', 'scheduled_retry') ORDER BY requested_at, id",
      [taskId]);
  }

  async countByStatus() {
    const rows = await this.sql.all<{ status: string; n: number }>('SELECT status, COUNT(*) AS n FROM agent_wakeup_requests GROUP BY status');
    return Object.fromEntries(rows.map((row) => [row.status, row.n]));
  }
}
