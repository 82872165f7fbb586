import { CAP_REACHED, needsCapSlot } from '../../domain/provenance.js';
import type { Wakeup } from '../../domain/types.js';
import type { EnqueueResult, EnqueueSlot, Fence, FoldRule, WakeupEnding, WakeupFilter, WakeupRepo, WakeupRequeue } from '../store.js';
import { afterPosition, clampLimit, orderBy, whereClause } from './filters.js';
import { HISTORY_PAGE_SIZE, LISTS, MAX_PAGE_SIZE } from '../../domain/pagination.js';
import { WAKEUPS } from '../tables.js';
import { HOLD_WAKEUP_SLOT, eitherCapFull, raiseBothBy } from './capSlots.js';
import { andThen, fencedBy, type Dialect, type MaybePromise, type RowTable, type SqlRunner, type SqlText } from './dialect.js';
import { DispatchClaim } from './dispatchClaim.js';
import { countByStatus } from './statusCounts.js';
import { openWakeup } from './openRows.js';

type Column = (typeof WAKEUPS.columns)[number];

/**
 * Column types of the request's parameters: INSERT … SELECT gives a parameter no type from its
 * target column, so PostgreSQL is told each (text unless listed).
 */
const PARAMETER_TYPE: Partial<Record<Column, 'integer' | 'bigint'>> = {
  coalesced_count: 'integer', retry_count: 'integer', recovered: 'integer', unattended: 'integer', scheduled_retry_at: 'bigint',
  available_at: 'bigint', requested_at: 'bigint', claimed_at: 'bigint', finished_at: 'bigint',
};

/** What the store decided of a new request; the rest of the row is the request as given. */
const DECIDED = 'RETURNING workspace_id, status, coalesced_into_id, run_id, routine_run_id, finished_at';

/** DECIDED for the enqueue, with what a refusal at a cap says: its skip reason and the agent's own cap. */
const ENQUEUE_DECIDED = `${DECIDED}, skip_reason, CASE WHEN status = 'skipped' THEN (SELECT max_concurrent_routine_runs
  FROM agent_instances WHERE id = agent_wakeup_requests.agent_id) END AS agent_cap`;

/** The enqueue's row as stored, and the agent's routine-run cap when it was refused at one. */
interface Stored {
  wakeup: Wakeup;
  agentCap: number | null;
}

const claimParams = (id: string, at: number, fence: Fence) => ({ id, at, owner: fence.owner_id, epoch: fence.epoch });

/** RETURNING gives rows in no set order: the callers' entries follow the requests' order. */
const oldestFirst = (rows: Wakeup[]) => rows.sort((a, b) => a.requested_at - b.requested_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** A request as a read of its row answers it: without its trace context (a hidden column, tables.ts). */
function asStored(wakeup: Wakeup): Wakeup {
  if (wakeup.trace_context === undefined) return wakeup;
  const { trace_context: _hidden, ...stored } = wakeup;
  return stored;
}

type Folded = { kind: 'folded'; wakeup: Wakeup; into: Wakeup; via: 'window' | 'unstarted_run' };

/**
 * Whether `wakeup` may fold only into work on its own task: a rule that is not for any task, and a
 * task to be bound to (a taskless request bound to "its task" may join only taskless work).
 */
export function foldsOnItsTask(wakeup: Wakeup, fold: FoldRule | null): wakeup is Wakeup & { task_id: string } {
  return fold?.anyTask === false && wakeup.task_id !== null;
}

/**
 * The column a request's trace context goes in (tables.ts leaves it out of WAKEUPS): only the
 * statements of a traced request name it, so with tracing off no statement writes it.
 */
const TRACE_CONTEXT = 'trace_context';

/**
 * The statements of the enqueue, the fold and the claim, in a dialect's text (`appendWake`: see
 * WakeupsSql); `columns`: those a request writes.
 */
function statements(dialect: SqlText, appendWake: string, columns: readonly string[] = WAKEUPS.columns) {
  const { cast, lock } = dialect;
  const taskIs = `task_id IS NOT DISTINCT FROM ${cast('@task_id', 'text')}`;

  /**
   * The agent's wakeup whose run exists but has not started: a queued run first, then a run waiting
   * for its retry (the spec's in-flight order minus running, which could not see a merged payload).
   * Two seeks on (agent_id, status), not a scan. The wakeup is locked (FOR UPDATE, on PostgreSQL): a
   * claim that commits first takes it out of the choice, and one that comes after sees the fold.
   */
  const unstartedRun = `SELECT id, task_id, run_id FROM (
      SELECT * FROM (SELECT 0 AS rank, w.id, w.task_id, w.run_id FROM agent_wakeup_requests w JOIN runs r ON r.id = w.run_id
        WHERE w.agent_id = @agent_id AND w.status = 'claimed' AND r.status = 'queued' ORDER BY w.requested_at, w.id LIMIT 1${dialect.lockOf('update', 'w')}) queued_run
      UNION ALL
      SELECT * FROM (SELECT 1 AS rank, id, task_id, run_id FROM agent_wakeup_requests
        WHERE agent_id = @agent_id AND status = 'scheduled_retry' AND run_id IS NOT NULL ORDER BY requested_at, id LIMIT 1${lock('update')}) retry_run) u
    ORDER BY rank LIMIT 1`;

  /**
   * A fire's own routine run; for the first assignment of a routine's task, the run that created the
   * task (API.md: the heavy outcome comes from that wakeup). So ending any other wakeup reads no routine run.
   */
  const routineRunOfRequest = `COALESCE(${cast('@routine_run_id', 'text')}, CASE WHEN ${cast('@source', 'text')} = 'task_assigned' AND ${cast('@task_id', 'text')} IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests WHERE task_id = @task_id AND source = 'task_assigned')
    THEN (SELECT id FROM office_routine_runs WHERE linked_task_id = @task_id LIMIT 1) END)`;

  /** The request's values as parameters, except the columns given as SQL. */
  const valuesWith = (decided: Partial<Record<Column, string>>) =>
    columns.map((column) => decided[column as Column] ?? cast(`@${column}`, PARAMETER_TYPE[column as Column] ?? 'text')).join(', ');

  /**
   * Whether the request is refused at a routine-run cap (only when the caller gave @slot_cap): it
   * needs a slot (needsCapSlot: unattended, with no routine run of its own, and not folded) and the
   * deployment's counter or its agent's is full. Read from the counters as the statement runs: one
   * writer at a time on SQLite, and on PostgreSQL a statement before this one locks both (PgWakeups).
   */
  const atCap = `CASE WHEN t.id IS NULL AND ${cast('@unattended', 'integer')} = 1 AND own_run.id IS NULL AND ${cast('@slot_cap', 'integer')} IS NOT NULL
    AND ${eitherCapFull(dialect, '@agent_id', cast('@slot_cap', 'integer'), 'agent.routine_cap')} THEN 1 ELSE 0 END`;

  /**
   * The request's own values, with the columns the enqueue decides from `d`: the target a fold
   * takes (NULL: none), or the refusal at a cap (`d.at_cap`).
   */
  const queuedOrFolded = valuesWith({
    workspace_id: 'd.workspace_id',
    status: "CASE WHEN d.into_id IS NOT NULL THEN 'coalesced' WHEN d.at_cap = 1 THEN 'skipped' ELSE 'queued' END",
    skip_reason: `CASE WHEN d.at_cap = 1 THEN ${cast('@refused_reason', 'text')} ELSE ${cast('@skip_reason', 'text')} END`,
    coalesced_into_id: 'd.into_id',
    run_id: 'd.into_run',
    finished_at: `CASE WHEN d.into_id IS NULL AND d.at_cap = 0 THEN NULL ELSE ${cast('@requested_at', 'bigint')} END`,
    routine_run_id: 'd.routine_run_id',
  });

  /** A request folded into a known target `t`: its run is the one given, if any. */
  const folded = valuesWith({
    status: "'coalesced'",
    coalesced_into_id: 't.id',
    run_id: cast('@fold_run', 'text'),
    finished_at: cast('@requested_at', 'bigint'),
    routine_run_id: routineRunOfRequest,
  });

  const columnList = columns.join(', ');

  /**
   * The oldest queued wakeup of the agent and source inside the window that the request may join
   * (on its task, unless any task will do). Bound to a task, it is a seek on that task's
   * wakeups (wakeups_by_task), whatever the agent's queue holds; otherwise it walks the agent's queue
   * inside the window.
   */
  const windowTargetWhere = {
    onTask: `task_id = ${cast('@task_id', 'text')} AND status = 'queued' AND ${dialect.notIndexedBy('agent_id')} = @agent_id`,
    byAgent: `agent_id = @agent_id AND status = 'queued' AND (@any_task = 1 OR ${taskIs})`,
  };
  const windowTarget = (where: string) => `SELECT id, task_id, ${cast('NULL', 'text')} AS run_id FROM agent_wakeup_requests
        WHERE @fold = 1 AND ${cast('@window_since', 'bigint')} IS NOT NULL AND ${where} AND source = @source
          AND requested_at >= ${cast('@window_since', 'bigint')} AND retry_count = 0
        ORDER BY requested_at, id LIMIT 1${lock('update')}`;

  /**
   * The one statement of the common path. The target is the window's (windowTarget), else the
   * agent's run of the same task that has not started; with neither, the row is queued, or skipped
   * when it needs a routine-run slot and a cap is full (atCap). No row: the agent is gone or the key
   * is taken. The window target is locked (FOR UPDATE, on PostgreSQL), so a claim racing it either
   * takes it first (it is then no target) or waits and sees the fold.
   */
  const enqueueOrFold = (windowTargetIs: string) => `WITH agent AS (SELECT workspace_id, max_concurrent_routine_runs AS routine_cap FROM agent_instances
        WHERE id = @agent_id AND deleted_at IS NULL),
      window_target AS (${windowTarget(windowTargetIs)}),
      run_target AS (${unstartedRun}),
      target AS (
        SELECT id, run_id FROM (
          SELECT id, run_id, 0 AS rank FROM window_target
          UNION ALL
          SELECT id, run_id, 1 AS rank FROM run_target WHERE @fold = 1 AND ${taskIs}) c
        ORDER BY rank LIMIT 1),
      own_run AS (SELECT ${routineRunOfRequest} AS id),
      d AS (SELECT agent.workspace_id, t.id AS into_id, t.run_id AS into_run, own_run.id AS routine_run_id, ${atCap} AS at_cap
        FROM agent CROSS JOIN own_run LEFT JOIN target t ON true)
      INSERT INTO agent_wakeup_requests (${columnList})
      SELECT ${queuedOrFolded} FROM d WHERE true
      ON CONFLICT (idempotency_key) DO NOTHING ${ENQUEUE_DECIDED}`;

  /** The atomic claim: queued (or a due retry) to claimed, only while the fence holds the agent's lease. */
  const claim = `UPDATE agent_wakeup_requests SET status = 'claimed', claimed_at = @at, skip_reason = NULL, waiting_on_checkout = NULL
    WHERE id = @id AND (status = 'queued' OR status = 'scheduled_retry') AND ${fencedBy(dialect, 'agent_wakeup_requests.agent_id')}`;

  return {
    /** enqueueOrFold for a request bound to a task, and for the rest (one that may fold whatever the task, a taskless one, none that folds). */
    enqueueOrFold: { onTask: enqueueOrFold(windowTargetWhere.onTask), byAgent: enqueueOrFold(windowTargetWhere.byAgent) },
    /** `WHERE true`: without it SQLite's parser would read the upsert's ON CONFLICT as a join's constraint. */
    foldInto: `WITH t AS (SELECT id FROM agent_wakeup_requests
        WHERE id = @target AND status IN ('queued', 'scheduled_retry')${lock('update')})
      INSERT INTO agent_wakeup_requests (${columnList})
      SELECT ${folded} FROM t WHERE true
      ON CONFLICT (idempotency_key) DO NOTHING ${DECIDED}`,
    /** The fold's other half: the target counts the request and carries its wake (@entry)… */
    countFold: `UPDATE agent_wakeup_requests SET coalesced_count = coalesced_count + 1, context_snapshot = ${appendWake}
      WHERE id = @id RETURNING *`,
    /** … and so does its run while queued. */
    carryWake: `UPDATE runs SET context_snapshot = ${appendWake} WHERE id = @id AND status = 'queued'`,
    claim,
    claimReturningRow: `${claim} RETURNING *`,
    /** A slot the enqueue decided the request takes: both counters one higher (atCap found room). */
    raiseSlots: raiseBothBy(dialect, '@agent', 1),
  };
}

/**
 * Wakeup requests, on both backends. The enqueue, the claim and the update are the scheduler's hot
 * path: on SQLite they run at once (andThen), without a turn of the event loop per statement.
 */
export class WakeupsSql implements WakeupRepo {
  protected readonly sql: SqlRunner;
  private readonly table: RowTable<Wakeup>;
  private readonly dispatchClaim: DispatchClaim;
  private readonly statements: ReturnType<typeof statements>;
  /** The enqueue and the fold of a request that carries its trace context (tracing is on). */
  private readonly traced: Pick<ReturnType<typeof statements>, 'enqueueOrFold' | 'foldInto'>;

  /** `appendWake`: SQL that appends the wake `@entry` to the `context_snapshot` list, so two folds never overwrite each other. */
  constructor(private readonly dialect: Dialect, appendWake: string) {
    this.sql = dialect.sql;
    this.table = dialect.table(WAKEUPS);
    this.statements = statements(dialect, appendWake);
    this.traced = statements(dialect, appendWake, [...WAKEUPS.columns, TRACE_CONTEXT]);
    this.dispatchClaim = new DispatchClaim(dialect, this.table, this.statements.claim);
  }

  async enqueueOrFold(wakeup: Wakeup, fold: FoldRule | null, keyWindowStart: number, slot: EnqueueSlot | null = null): Promise<EnqueueResult> {
    return andThen<Stored | undefined, EnqueueResult>(this.insertOrFoldRow(wakeup, fold, slot), (stored) => {
      if (!stored) return this.keyTaken(wakeup, fold, keyWindowStart, slot);
      const row = stored.wakeup;
      if (row.status === 'skipped') return { kind: 'refused', wakeup: row, caps: { deployment: slot!.deploymentCap, agent: stored.agentCap || null } };
      if (row.status !== 'queued') return this.completeFold(row, wakeup);
      if (!slot || !needsCapSlot(row)) return { kind: 'queued', wakeup: row };
      return andThen(this.holdSlot(row), (): EnqueueResult => ({ kind: 'queued', wakeup: row }));
    });
  }

  /** No row was written: the agent is gone, or the key is taken (by a request inside its window, or an old one, whose key retires). */
  private async keyTaken(wakeup: Wakeup, fold: FoldRule | null, keyWindowStart: number, slot: EnqueueSlot | null): Promise<EnqueueResult> {
    const existing = wakeup.idempotency_key === null ? undefined : await this.findByKey(wakeup.idempotency_key);
    if (!existing) return { kind: 'agent_gone' };
    if (existing.requested_at > keyWindowStart) return { kind: 'duplicate', wakeup: existing };
    await this.retireKey(existing.id);
    return this.enqueueOrFold(wakeup, fold, keyWindowStart, slot);
  }

  /**
   * The slot the enqueue's statement found room for: both counters, and the wakeup as its holder.
   * Neither waits for the other's answer: on PostgreSQL they leave in one write.
   */
  private holdSlot(wakeup: Wakeup): MaybePromise<unknown> {
    const raised = this.sql.run(this.statements.raiseSlots, { agent: wakeup.agent_id });
    const held = this.sql.run(HOLD_WAKEUP_SLOT, [wakeup.id, wakeup.agent_id]);
    return raised instanceof Promise ? Promise.all([raised, held]) : held;
  }

  async foldInto(wakeup: Wakeup, targetId: string, runId: string | null) {
    const decided = await this.sql.get<Partial<Wakeup>>(this.writing(wakeup).foldInto, { ...wakeup, target: targetId, fold_run: runId });
    if (!decided) return null;
    const folded = await this.completeFold({ ...asStored(wakeup), ...decided }, wakeup);
    return { wakeup: folded.wakeup, into: folded.into };
  }

  /** The one statement of the common path (see statements): the row as stored, or none. */
  protected insertOrFoldRow(wakeup: Wakeup, fold: FoldRule | null, slot: EnqueueSlot | null): MaybePromise<Stored | undefined> {
    const { enqueueOrFold } = this.writing(wakeup);
    // The seek by task cannot find taskless work; the walk by agent serves every other request.
    return andThen(this.sql.get<Partial<Wakeup> & { agent_cap?: number | null }>(foldsOnItsTask(wakeup, fold) ? enqueueOrFold.onTask : enqueueOrFold.byAgent, {
      ...wakeup, fold: fold !== null, window_since: fold?.windowSince ?? null, any_task: fold?.anyTask ?? false,
      slot_cap: slot?.deploymentCap ?? null, refused_reason: CAP_REACHED,
    }), (decided) => {
      if (!decided) return undefined;
      const { agent_cap: agentCap, ...row } = decided;
      return { wakeup: { ...asStored(wakeup), ...row }, agentCap: agentCap ?? null };
    });
  }

  /** The statements that write `wakeup`: those naming its trace context only when it has one. */
  private writing(wakeup: Wakeup) {
    return wakeup.trace_context ? this.traced : this.statements;
  }

  /** The fold's other half: the target counts the request and carries its wake, and so does its run while queued. */
  private completeFold(stored: Wakeup, wakeup: Wakeup): MaybePromise<Folded> {
    const entry = JSON.stringify((wakeup.context_snapshot as { wakes: unknown[] }).wakes[0]);
    const via = stored.run_id ? 'unstarted_run' : 'window';
    return andThen(this.sql.get<Record<string, unknown>>(this.statements.countFold, { id: stored.coalesced_into_id, entry }),
      (row) => andThen(stored.run_id ? this.sql.run(this.statements.carryWake, { id: stored.run_id, entry }) : null,
        (): Folded => ({ kind: 'folded', wakeup: stored, into: this.foldTarget(row!), via })));
  }

  /** The wakeup a request folded into, with its trace context (when it has one): the folded request's enqueue span links to it. */
  private foldTarget(row: Record<string, unknown>): Wakeup {
    const traceContext = row.trace_context;
    const into = this.table.decode(row);
    return typeof traceContext === 'string' ? { ...into, trace_context: traceContext } : into;
  }

  async insert(wakeup: Wakeup) { await this.table.insert(wakeup); }
  async get(id: string) { return this.table.get(id); }

  async list(filter: WakeupFilter) {
    const { where, params } = afterPosition(whereClause(filter as Record<string, unknown>, {
      agent_id: 'agent_id', status: 'status', source: 'source', task_id: 'task_id', workspace_id: 'workspace_id',
    }), filter.after, LISTS.wakeups);
    return this.table.many(
      `SELECT * FROM agent_wakeup_requests ${where} ${orderBy(LISTS.wakeups)} LIMIT @limit`,
      { ...params, limit: clampLimit(filter.limit, HISTORY_PAGE_SIZE, MAX_PAGE_SIZE + 1) });
  }

  async findByKey(key: string) {
    return this.table.one('SELECT * FROM agent_wakeup_requests WHERE idempotency_key = ?', [key]);
  }

  async retireKey(id: string) {
    // The key stays readable for audit, but no longer collides with a new request.
    await this.sql.run("UPDATE agent_wakeup_requests SET idempotency_key = idempotency_key || '#expired:' || id WHERE id = ?", [id]);
  }

  async claim(id: string, at: number, fence: Fence) {
    return this.table.one(this.statements.claimReturningRow, claimParams(id, at, fence));
  }

  async claimForDispatch(id: string, at: number, fence: Fence, periodStarts: { daily: number; monthly: number }) {
    return this.dispatchClaim.claim(claimParams(id, at, fence), periodStarts);
  }

  async refuse(id: string, skipReason: string, at: number) {
    return this.table.transition(id, { patch: { status: 'skipped', skip_reason: skipReason, finished_at: at } }, "status = 'queued'");
  }

  async unclaim(id: string, back: WakeupRequeue) {
    return this.table.transition(id, { patch: { status: 'queued', claimed_at: null, ...back } }, "status = 'claimed'");
  }

  async scheduleRetry(id: string, retry: { retry_count: number; retry_at: number; error: string }) {
    return this.table.transition(id, {
      patch: { status: 'scheduled_retry', retry_count: retry.retry_count, scheduled_retry_at: retry.retry_at, available_at: retry.retry_at, error: retry.error },
    }, "status = 'claimed'");
  }

  async endClaimed(id: string, ending: WakeupEnding, runId?: string) {
    const { status, finished_at, cancel_reason, skip_reason, error, run_id } = ending;
    return this.table.transition(id, { patch: { status, finished_at, cancel_reason, skip_reason, error, run_id } },
      runId === undefined ? "status = 'claimed'" : "status = 'claimed' AND run_id = @run", { run: runId });
  }

  async requeueClaimed(owner: string, agentIds?: readonly string[]) {
    return this.table.many(
      `UPDATE agent_wakeup_requests SET status = 'queued', claimed_at = NULL
       WHERE status = 'claimed' AND agent_id IN (SELECT agent_id FROM agent_leases WHERE owner_id = @owner)
         AND (${this.dialect.cast('@ids', 'jsonb')} IS NULL OR agent_id IN (${this.dialect.jsonElements('@ids')}))
         AND NOT EXISTS (SELECT 1 FROM runs WHERE status = 'running' AND wakeup_id = agent_wakeup_requests.id) RETURNING *`, { owner, ids: agentIds ?? null });
  }

  async listOpen(agentId?: string) {
    return agentId
      ? this.table.many(
        `SELECT * FROM agent_wakeup_requests WHERE agent_id = ? AND ${openWakeup()}
         ORDER BY requested_at, id`, [agentId])
      : this.table.many(
        `SELECT * FROM agent_wakeup_requests WHERE ${openWakeup()}
         ORDER BY requested_at, id`);
  }

  async unfold(targetId: string, carried: readonly string[], now: number) {
    return this.table.many(
      `UPDATE agent_wakeup_requests SET status = 'queued', coalesced_into_id = NULL, run_id = NULL, finished_at = NULL, available_at = @now
       WHERE coalesced_into_id = @target AND status = 'coalesced' AND id NOT IN (${this.dialect.jsonElements('@carried')}) RETURNING *`,
      { target: targetId, carried, now });
  }

  async releaseDeferred(agentId: string, now: number) {
    return this.table.many(
      `UPDATE agent_wakeup_requests SET available_at = @now, skip_reason = NULL
       WHERE agent_id = @agent AND status = 'queued' AND skip_reason IN ('daily_run_cap', 'daily_cost_cap') RETURNING *`,
      { agent: agentId, now });
  }

  async cancelRetriesOf(taskId: string, agentId: string, reason: string, at: number) {
    return oldestFirst(await this.table.many(
      `UPDATE agent_wakeup_requests SET status = 'cancelled', cancel_reason = @reason, finished_at = @at
       WHERE task_id = @task AND agent_id = @agent AND status = 'scheduled_retry' RETURNING *`,
      { task: taskId, agent: agentId, reason, at }));
  }

  async cancelUnclaimedOf(agentId: string, reason: string, at: number) {
    return oldestFirst(await this.table.many(
      `UPDATE agent_wakeup_requests SET status = 'cancelled', cancel_reason = @reason, finished_at = @at
       WHERE agent_id = @agent AND status IN ('queued', 'scheduled_retry') RETURNING *`,
      { agent: agentId, reason, at }));
  }

  async cancelOnBehalfOf(ownerId: string, reason: string, at: number) {
    return this.table.many(
      `UPDATE agent_wakeup_requests SET status = 'cancelled', cancel_reason = @reason, finished_at = @at
       WHERE on_behalf_of = @owner AND status IN ('queued', 'scheduled_retry') RETURNING *`,
      { owner: ownerId, reason, at });
  }

  async openForTask(taskId: string) {
    return this.table.many(
      `SELECT * FROM agent_wakeup_requests WHERE task_id = ? AND ${openWakeup()} ORDER BY requested_at, id`,
      [taskId]);
  }

  async countByStatus() { return countByStatus(this.sql, 'wakeups'); }
}
