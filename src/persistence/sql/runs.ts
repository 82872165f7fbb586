import type { Run } from '../../domain/types.js';
import type { CheckoutWaiter, ClosedRun, Fence, RunEnding, RunFilter, RunRepo } from '../store.js';
import { afterPosition, clampLimit, orderBy, whereClause } from './filters.js';
import { HISTORY_PAGE_SIZE, LISTS, MAX_PAGE_SIZE } from '../../domain/pagination.js';
import { RUNS } from '../tables.js';
import type { DailyCaps } from '../../domain/dailyCaps.js';
import { fencedBy, type Dialect, type RowTable, type SqlRunner } from './dialect.js';
import { dailyCapReached, holdDailyCaps } from './dailyUsage.js';
import { countByStatus } from './statusCounts.js';
import { openRun } from './openRows.js';

/** The wakeups of the task in `taskColumn` that wait for its checkout, oldest first, as a JSON array. */
export const checkoutWaiters = (dialect: Dialect, taskColumn: string) => dialect.jsonRows(
  { id: 'id', agent_id: 'agent_id', available_at: 'available_at' },
  `FROM agent_wakeup_requests WHERE task_id = ${taskColumn} AND status = 'queued' AND waiting_on_checkout IS NOT NULL`, 'requested_at, id');


/** A succeeded session's wakeup ends with its run's close (RunRepo.close's `finishesWakeup`). */
const FINISH_WAKEUP = `UPDATE agent_wakeup_requests SET status = 'finished', finished_at = @finished_at, error = NULL WHERE id = @wakeup`;

/** Runs, on both backends. */
export class RunsSql implements RunRepo {
  private readonly table: RowTable<Run & { run_token_hash?: string | null }>;
  private readonly sql: SqlRunner;
  constructor(private readonly dialect: Dialect) {
    this.sql = dialect.sql;
    this.table = dialect.table(RUNS);
  }

  async insert(run: Run, tokenHash: string | null) { await this.table.insert({ ...run, run_token_hash: tokenHash }); }
  async start(run: Run, tokenHash: string | null) {
    // The task row is locked (on PostgreSQL) while its checkout is checked, so two starts on one task
    // queue behind each other and the second sees the checkout the first one's trigger took. NO KEY
    // UPDATE, not UPDATE: a comment or a subtask written beside the start only key-shares the task
    // for its foreign key, and must neither wait for the start nor hold it up (cf. migration 0023).
    return this.table.insertIf({ ...run, run_token_hash: tokenHash },
      `(${this.dialect.cast('@task_id', 'text')} IS NULL OR EXISTS (SELECT 1 FROM tasks WHERE id = @task_id
         AND (checkout_agent_id IS NULL OR checkout_wakeup_id = @wakeup_id)${this.dialect.lock('no key update')}))`);
  }
  async get(id: string) { return strip(await this.table.get(id)); }

  async list(filter: RunFilter) {
    const { where, params } = afterPosition(whereClause(filter as Record<string, unknown>,
      { workspace_id: 'workspace_id', agent_id: 'agent_id', task_id: 'task_id', wakeup_id: 'wakeup_id', status: 'status', on_behalf_of: 'on_behalf_of' }),
    filter.after, LISTS.runs);
    return (await this.table.many(`SELECT * FROM runs ${where} ${orderBy(LISTS.runs)} LIMIT @limit`,
      { ...params, limit: clampLimit(filter.limit, HISTORY_PAGE_SIZE, MAX_PAGE_SIZE + 1) })).map((run) => strip(run)!);
  }

  async recordSession(id: string, session: Pick<Run, 'session_pid' | 'session_pgid' | 'session_start_time'>) {
    // Only the first identity stands: a second one would name a process the run never had.
    return (await this.table.transition(id, { patch: session }, 'session_pid IS NULL', {}, 'id')) !== undefined;
  }

  async abandon(id: string, from: 'queued' | 'running', error: string, at: number) {
    return (await this.table.transition(id, { patch: { status: 'cancelled', finished_at: at, error } }, 'status = @from', { from }, 'id')) !== undefined;
  }

  async markProgress(id: string) {
    await this.table.transition(id, { patch: { made_progress: true } }, 'made_progress IS DISTINCT FROM 1', {}, 'id');
  }

  async markStarted(id: string, at: number) {
    return (await this.sql.run(`UPDATE runs SET status = 'running', started_at = @at WHERE id = @id AND status = 'queued'`, { id, at })).changes > 0;
  }

  async recordLateSpend(id: string, spend: Pick<Run, 'cost_usd' | 'usage'>) {
    return (await this.sql.run(
      `UPDATE runs SET cost_usd = @cost_usd, usage = COALESCE(@usage, usage)
       WHERE id = @id AND cost_usd IS NULL AND status IN ('cancelled', 'interrupted')`, { id, cost_usd: spend.cost_usd, usage: spend.usage ?? null })).changes > 0;
  }

  async cancelledAmong(ids: readonly string[]) {
    if (ids.length === 0) return [];
    const { sql, params } = this.dialect.inList('id', ids);
    return (await this.sql.all<{ id: string }>(`SELECT id FROM runs WHERE status = 'cancelled' AND ${sql}`, params)).map((row) => row.id);
  }
  async close(id: string, ended: RunEnding, progress: { taskId: string; since: number } | null, fence: Fence, finishesWakeup: string | null = null): Promise<ClosedRun> {
    // RETURNING's subqueries see the rows as the statement began, before the runs_ended trigger
    // frees the task: `released` says whether this run's wakeup held it.
    const { dialect } = this;
    const close = `UPDATE runs SET status = @status, result_json = @result_json, error = @error, cost_usd = @cost_usd, finished_at = @finished_at,
         usage = COALESCE(@usage, usage), cost_note = COALESCE(@cost_note, cost_note), cli_session_id = COALESCE(@cli_session_id, cli_session_id),
         cli_session_totals = COALESCE(@cli_session_totals, cli_session_totals), assembled_prompt = COALESCE(@assembled_prompt, assembled_prompt),
         run_token_hash = NULL,
         made_progress = CASE WHEN ${dialect.cast('@task', 'text')} IS NULL THEN made_progress ELSE ${dialect.asInt(`
           EXISTS (SELECT 1 FROM tasks WHERE id = @task AND updated_at >= @since)
           OR EXISTS (SELECT 1 FROM comments WHERE task_id = @task AND created_at > @since)
           OR EXISTS (SELECT 1 FROM tasks WHERE parent_id = @task AND created_at >= @since)`)} END
       WHERE id = @id AND ${openRun()} AND ${fencedBy(dialect, 'runs.agent_id')}
       RETURNING made_progress,
         EXISTS (SELECT 1 FROM tasks WHERE id = runs.task_id AND checkout_wakeup_id = runs.wakeup_id) AS released,
         ${checkoutWaiters(dialect, 'runs.task_id')} AS waiters`;
    const params = {
      usage: null, cost_note: null, cli_session_id: null, cli_session_totals: null, assembled_prompt: null,
      ...ended, id, task: progress?.taskId ?? null, since: progress?.since ?? null, owner: fence.owner_id, epoch: fence.epoch, at: ended.finished_at,
    };
    type Closed = { made_progress: number | null; released: boolean | number; waiters: unknown };
    const row = finishesWakeup === null
      ? await this.sql.get<Closed>(close, params)
      : await dialect.returningThen<Closed>(close, FINISH_WAKEUP, { ...params, wakeup: finishesWakeup });
    if (!row) {
      await this.keepLateResult(id, ended, fence);
      return { closed: false, madeProgress: null, checkoutWaiters: null };
    }
    return {
      closed: true,
      madeProgress: progress ? row.made_progress === 1 : null,
      checkoutWaiters: row.released ? dialect.parsed<CheckoutWaiter[]>(row.waiters) : null,
    };
  }

  /** A refused close keeps what the run ended with, and who sent it, for inspection only. */
  private async keepLateResult(id: string, ended: RunEnding, fence: Fence) {
    await this.sql.run('UPDATE runs SET late_result_json = @late WHERE id = @id', { id, late: { ...ended, ...fence } });
  }
  async byTokenHash(hash: string) { return strip(await this.table.one('SELECT * FROM runs WHERE run_token_hash = ?', [hash])); }

  async attemptsOf(wakeupId: string) {
    return (await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM runs WHERE wakeup_id = ?', [wakeupId]))!.n;
  }

  async lastFinishedFor(agentId: string, taskId: string) {
    return strip(await this.table.one(
      `SELECT * FROM runs WHERE agent_id = ? AND task_id = ? AND status IN ('succeeded', 'failed', 'interrupted')
       ORDER BY created_at DESC, id DESC LIMIT 1`, [agentId, taskId]));
  }

  async listUnfinished(owner: string, agentIds?: readonly string[]) {
    return (await this.table.many(
      `SELECT r.* FROM runs r JOIN agent_leases l ON l.agent_id = r.agent_id AND l.owner_id = @owner
       WHERE ${openRun('r.status')} AND (${this.dialect.cast('@ids', 'jsonb')} IS NULL OR r.agent_id IN (${this.dialect.jsonElements('@ids')}))
       ORDER BY r.created_at, r.id`, { owner, ids: agentIds ?? null })).map((run) => strip(run)!);
  }

  async countStartedSince(agentId: string, since: number) {
    return (await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM runs WHERE agent_id = ? AND started_at >= ?', [agentId, since]))!.n;
  }

  async recentForTask(agentId: string, taskId: string, limit: number) {
    return (await this.table.many(
      `SELECT * FROM runs WHERE agent_id = ? AND task_id = ? AND status = 'succeeded'
       ORDER BY created_at DESC, id DESC LIMIT ?`, [agentId, taskId, limit])).map((run) => strip(run)!);
  }

  async costSince(agentId: string, since: number) {
    return (await this.sql.get<{ total: number | null }>(
      'SELECT SUM(cost_usd) AS total FROM cost_ledger WHERE agent_id = ? AND created_at >= ?', [agentId, since]))!.total ?? 0;
  }

  async holdDailyCaps(agentId: string, day: number, caps: DailyCaps) { return holdDailyCaps(this.sql, agentId, day, caps); }
  async dailyCapReached(agentId: string, day: number, caps: DailyCaps) { return dailyCapReached(this.sql, agentId, day, caps); }

  async countByStatus() { return countByStatus(this.sql, 'runs'); }
}

/** The token hash never leaves the store. */
function strip(run: (Run & { run_token_hash?: string | null }) | undefined): Run | undefined {
  if (!run) return undefined;
  const { run_token_hash: _hidden, ...rest } = run;
  return rest;
}
