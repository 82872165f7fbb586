import type { MissedTicks, Routine, RoutineRun, RoutineTrigger } from '../../domain/routines.js';
import { paged } from './filters.js';
import { LISTS, type ListPage, type PagePosition } from '../../domain/pagination.js';
import type { RoutineFields, RoutineRepo, RunRoute, TickClaim, TriggerFields } from '../store.js';
import { ROUTINES, ROUTINE_RUNS, ROUTINE_TRIGGERS } from '../tables.js';
import { AGENT_SCOPE, DEPLOYMENT_SCOPE, HOLD_WAKEUP_SLOT, SLOTS, SLOT_LOCK_ORDER, agentScope } from './capSlots.js';
import type { Dialect, RowTable, SqlRunner } from './dialect.js';
import { openWakeup } from './openRows.js';

const RUN_COLUMNS = ROUTINE_RUNS.columns;

/** Archived is terminal: no transition but the reads leaves it. */
const NOT_ARCHIVED = "status <> 'archived'";

/** A failed outcome that reaches an active routine's consecutive_failure_limit (in an UPDATE of office_routines). */
const PAUSES_NOW = "@succeeded = 0 AND status = 'active' AND consecutive_failures + 1 >= consecutive_failure_limit";


/** The type PostgreSQL reads a run column as out of the batch insert's JSON (text unless named; SQLite keeps the JSON value's). */
const RUN_COLUMN_TYPE: Partial<Record<(typeof RUN_COLUMNS)[number], 'bigint' | 'integer'>> = {
  scheduled_for: 'bigint', unattended: 'integer', started_at: 'bigint', completed_at: 'bigint',
};

/** A run as the batch insert reads it: booleans as 0/1, as the table stores them. */
function encodeRun(run: RoutineRun): Record<string, unknown> {
  return { ...run, unattended: run.unattended ? 1 : 0 };
}

/**
 * Routines, their triggers and runs, and the routine-run cap counters, on both backends. The
 * missed-ticks note is read and written per backend (sqlite/routines.ts, postgres/routines.ts).
 */
export abstract class RoutinesSql implements RoutineRepo {
  protected readonly routines: RowTable<Routine>;
  protected readonly triggers: RowTable<RoutineTrigger>;
  protected readonly runs: RowTable<RoutineRun>;
  private readonly sql: SqlRunner;
  /** Each run column read out of the batch insert's JSON element `value`. */
  private readonly runRead: string;

  constructor(private readonly dialect: Dialect) {
    this.sql = dialect.sql;
    this.routines = dialect.table(ROUTINES);
    this.triggers = dialect.table(ROUTINE_TRIGGERS);
    this.runs = dialect.table(ROUTINE_RUNS);
    this.runRead = RUN_COLUMNS.map((column) => {
      if (column === 'trigger_payload') return dialect.cast("(value -> 'trigger_payload')", 'text');
      const type = RUN_COLUMN_TYPE[column];
      return type ? dialect.cast(`(value ->> '${column}')`, type) : `(value ->> '${column}')`;
    }).join(', ');
  }

  abstract carryMissedTicks(id: string, note: MissedTicks): Promise<void>;
  abstract takeCarriedMissedTicks(id: string): Promise<MissedTicks | null>;

  async insert(routine: Routine) { await this.routines.insert(routine); }
  async get(id: string) { return this.routines.get(id); }
  async list(filter: { workspace_id?: string | undefined; assignee?: string | undefined; include_archived?: boolean }, page?: ListPage) {
    const parts: string[] = filter.include_archived ? [] : ["status <> 'archived'"];
    const params: Record<string, unknown> = {};
    if (filter.workspace_id) { parts.push('workspace_id = @workspace_id'); params.workspace_id = filter.workspace_id; }
    if (filter.assignee) { parts.push('assignee_agent_instance_id = @assignee'); params.assignee = filter.assignee; }
    const { tail, params: pageParams } = paged({ where: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params }, page, LISTS.routines, 'LIMIT 1000');
    return this.routines.many(`SELECT * FROM office_routines ${tail}`, pageParams);
  }
  async edit(id: string, fields: RoutineFields) { return this.routines.transition(id, { patch: fields }, NOT_ARCHIVED); }

  async pause(id: string, reason: string, at: number) {
    return this.routines.transition(id, { patch: { status: 'paused', paused_reason: reason, updated_at: at } }, "status IN ('active', 'paused')");
  }

  async pauseActiveOf(agentId: string, reason: string, at: number) {
    return this.routines.many(
      `UPDATE office_routines SET status = 'paused', paused_reason = @reason, updated_at = @at
       WHERE assignee_agent_instance_id = @agent AND status = 'active' RETURNING *`, { agent: agentId, reason, at });
  }

  async resume(id: string, at: number) {
    return this.routines.transition(id, { patch: { status: 'active', paused_reason: null, consecutive_failures: 0, updated_at: at } }, "status = 'paused'");
  }

  async archive(id: string, at: number) {
    const archived = await this.routines.transition(id, { patch: { status: 'archived', paused_reason: null, carried_missed_ticks: null, updated_at: at } }, NOT_ARCHIVED);
    // Nothing fires an archived routine again; its triggers stay for the record.
    if (archived) await this.sql.run('UPDATE office_routine_triggers SET enabled = 0, next_run_at = NULL, updated_at = @at WHERE routine_id = @id', { id, at });
    return archived;
  }

  async countOutcome(id: string, succeeded: boolean, at: number, pauseReason: string) {
    // SET sees the row as it was: every CASE below reads the count before this outcome.
    const row = await this.sql.get<{ consecutive_failures: number; status: string; paused_reason: string | null }>(
      `UPDATE office_routines SET
         consecutive_failures = CASE WHEN @succeeded = 1 THEN 0 ELSE consecutive_failures + 1 END,
         status = CASE WHEN ${PAUSES_NOW} THEN 'paused' ELSE status END,
         paused_reason = CASE WHEN ${PAUSES_NOW} THEN replace(@reason, '{n}', ${this.dialect.cast('(consecutive_failures + 1)', 'text')}) ELSE paused_reason END,
         updated_at = @at
       WHERE id = @id RETURNING consecutive_failures, status, paused_reason`,
      { id, succeeded, at, reason: pauseReason });
    if (!row) return undefined;
    const paused = row.status === 'paused' && row.paused_reason === pauseReason.replace('{n}', String(row.consecutive_failures));
    return { consecutive_failures: row.consecutive_failures, paused, paused_reason: row.paused_reason };
  }

  async insertTrigger(trigger: RoutineTrigger) { await this.triggers.insert(trigger); }
  async getTrigger(id: string) { return this.triggers.get(id); }
  async triggerByPublicId(publicId: string) {
    return this.triggers.one('SELECT * FROM office_routine_triggers WHERE public_id = ?', [publicId]);
  }
  async triggersOf(routineId: string) {
    return this.triggers.many('SELECT * FROM office_routine_triggers WHERE routine_id = ? ORDER BY created_at, id', [routineId]);
  }
  async editTrigger(id: string, fields: TriggerFields) {
    return this.triggers.transition(id, { patch: fields },
      `EXISTS (SELECT 1 FROM office_routines r WHERE r.id = office_routine_triggers.routine_id AND r.${NOT_ARCHIVED}${this.dialect.lock('share')})`);
  }
  async deleteTrigger(id: string) { await this.sql.run('DELETE FROM office_routine_triggers WHERE id = ?', [id]); }

  async liveScheduleTriggers() {
    const triggers = await this.triggers.many(
      `SELECT t.* FROM office_routine_triggers t JOIN office_routines r ON r.id = t.routine_id
       WHERE t.kind = 'schedule' AND t.enabled = 1 AND r.status = 'active' ORDER BY t.created_at, t.id`);
    const routines = new Map((await this.routines.many(
      "SELECT * FROM office_routines WHERE status = 'active'")).map((routine) => [routine.id, routine]));
    return withRoutines(triggers, routines);
  }

  async scheduleTriggers(triggerIds: readonly string[]) {
    const ids = this.dialect.jsonElements('?');
    const triggers = await this.triggers.many(
      `SELECT * FROM office_routine_triggers WHERE id IN (${ids}) AND kind = 'schedule'`, [triggerIds]);
    const routines = new Map((await this.routines.many(
      `SELECT * FROM office_routines WHERE id IN (SELECT routine_id FROM office_routine_triggers WHERE id IN (${ids}))`, [triggerIds]))
      .map((routine) => [routine.id, routine]));
    return withRoutines(triggers, routines);
  }

  async claimTick(triggerId: string, expectedNextRunAt: number, nextRunAt: number | null, firedAt: number) {
    return (await this.sql.run(
      `UPDATE office_routine_triggers SET next_run_at = @next, last_fired_at = @fired, updated_at = @fired
       WHERE id = @id AND next_run_at = @expected`,
      { id: triggerId, expected: expectedNextRunAt, next: nextRunAt, fired: firedAt })).changes === 1;
  }

  async claimTicks(claims: readonly TickClaim[], firedAt: number) {
    if (claims.length === 0) return [];
    const { dialect } = this;
    // The claim's trigger is `claimed`, not `id`: SQLite's RETURNING cannot name the alias `t`, so a bare `id` must be the trigger's only.
    const won = new Set((await this.sql.all<{ id: string }>(
      `UPDATE office_routine_triggers AS t SET next_run_at = c.next, last_fired_at = @fired, updated_at = @fired
       FROM (SELECT value ->> 'id' AS claimed, ${dialect.cast("(value ->> 'expected')", 'bigint')} AS expected,
                    ${dialect.cast("(value ->> 'next')", 'bigint')} AS next
             FROM ${dialect.jsonEach('@claims')}) AS c
       WHERE t.id = c.claimed AND t.next_run_at = c.expected
       RETURNING id`,
      { claims: claims.map((c) => ({ id: c.triggerId, expected: c.expectedNextRunAt, next: c.nextRunAt })), fired: firedAt },
    )).map((row) => row.id));
    const runs = claims.filter((c) => won.has(c.triggerId)).map((c) => c.run);
    // WHERE true: SQLite would read ON CONFLICT as a join's ON without it.
    const recorded = new Set(runs.length === 0 ? [] : (await this.sql.all<{ trigger_id: string }>(
      `INSERT INTO office_routine_runs (${RUN_COLUMNS.join(', ')})
       SELECT ${this.runRead} FROM ${dialect.jsonEach('?')} WHERE true
       ON CONFLICT DO NOTHING
       RETURNING trigger_id`, [runs.map(encodeRun)])).map((row) => row.trigger_id));
    return claims.filter((c) => won.has(c.triggerId)).map((c) => ({ triggerId: c.triggerId, recorded: recorded.has(c.triggerId) }));
  }

  async insertRun(run: RoutineRun) { return this.runs.insert(run, 'ignore'); }
  async getRun(id: string) { return this.runs.get(id); }
  async runByDelivery(triggerId: string, deliveryId: string) {
    return this.runs.one('SELECT * FROM office_routine_runs WHERE trigger_id = ? AND delivery_id = ?', [triggerId, deliveryId]);
  }
  async retireDeliveryBefore(triggerId: string, deliveryId: string, startedBefore: number) {
    // The id stays readable for audit, but no longer collides with a new delivery.
    await this.sql.run(
      `UPDATE office_routine_runs SET delivery_id = delivery_id || '#expired:' || id
       WHERE trigger_id = ? AND delivery_id = ? AND started_at <= ?`, [triggerId, deliveryId, startedBefore]);
  }
  async runsOf(routineId: string, limit: number, after?: PagePosition) {
    const { tail, params } = paged({ where: 'WHERE routine_id = @routine_id', params: { routine_id: routineId } }, { limit, after }, LISTS.routine_runs);
    return this.runs.many(`SELECT * FROM office_routine_runs ${tail}`, params);
  }
  async routeRun(id: string, route: RunRoute) {
    return (await this.runs.transition(id, { patch: route }, "status = 'received'", {}, 'id')) !== undefined;
  }

  async settleRun(id: string, patch: Pick<RoutineRun, 'outcome' | 'completed_at'> & Partial<Pick<RoutineRun, 'status' | 'error'>>) {
    // The slots it held are freed by the statement itself (trigger routine_run_slots_freed, migration 0013).
    return this.runs.one(
      `UPDATE office_routine_runs SET outcome = @outcome, completed_at = @completed_at,
         status = COALESCE(@status, status), error = COALESCE(@error, error)
       WHERE id = @id AND outcome IS NULL RETURNING *`,
      { id, outcome: patch.outcome, completed_at: patch.completed_at, status: patch.status ?? null, error: patch.error ?? null });
  }

  async takeRunSlot(runId: string, agentId: string, caps: { deployment: number; agent: number | null }) {
    if (!(await this.raiseBothSlots(agentId, caps))) return false;
    await this.sql.run('INSERT INTO office_routine_run_slot_holders (routine_run_id, agent_id) VALUES (?, ?)', [runId, agentId]);
    return true;
  }

  async takeWakeupSlot(wakeupId: string, agentId: string, caps: { deployment: number; agent: number | null }) {
    if (!(await this.raiseBothSlots(agentId, caps))) return false;
    await this.sql.run(HOLD_WAKEUP_SLOT, [wakeupId, agentId]);
    return true;
  }

  /** One more in the deployment's counter and the agent's, each only below its cap; neither when either is full. */
  private async raiseBothSlots(agentId: string, caps: { deployment: number; agent: number | null }): Promise<boolean> {
    if (!(await this.raiseSlots(DEPLOYMENT_SCOPE, caps.deployment))) return false;
    if (await this.raiseSlots(agentScope(agentId), caps.agent)) return true;
    await this.lowerSlots([DEPLOYMENT_SCOPE]);
    return false;
  }

  async takeRunSlots(runs: readonly { runId: string; agentId: string }[], deploymentCap: number) {
    if (!(await this.raiseSlotsBy(DEPLOYMENT_SCOPE, runs.length, deploymentCap))) return new Set<string>();
    const { dialect } = this;
    const shares = new Map<string, number>();
    for (const run of runs) shares.set(run.agentId, (shares.get(run.agentId) ?? 0) + 1);
    // ORDER BY a.id: concurrent batches lock the agents' counter rows in one order (PostgreSQL), so they cannot deadlock.
    const raised = new Set((await this.sql.all<{ scope: string }>(
      `INSERT INTO ${SLOTS} (scope, active)
       SELECT '${AGENT_SCOPE}' || a.id, s.n FROM (SELECT value ->> 'agent' AS agent, ${dialect.cast("(value ->> 'n')", 'integer')} AS n
                                          FROM ${dialect.jsonEach('@shares')}) s
       JOIN agent_instances a ON a.id = s.agent AND a.deleted_at IS NULL
       WHERE COALESCE(NULLIF(a.max_concurrent_routine_runs, 0), s.n) >= s.n
       ORDER BY a.id
       ON CONFLICT (scope) DO UPDATE SET active = ${SLOTS}.active + excluded.active
       WHERE ${SLOTS}.active + excluded.active <= COALESCE(NULLIF(
         (SELECT max_concurrent_routine_runs FROM agent_instances WHERE id = substr(excluded.scope, ${AGENT_SCOPE.length + 1})), 0), ${SLOTS}.active + excluded.active)
       RETURNING scope`,
      { shares: [...shares].map(([agent, n]) => ({ agent, n })) })).map((row) => row.scope));
    const granted = runs.filter((run) => raised.has(agentScope(run.agentId)));
    // The deployment slots of the runs whose agent had no room go back.
    if (granted.length < runs.length) {
      await this.sql.run(`UPDATE ${SLOTS} SET active = active - ? WHERE scope = ?`, [runs.length - granted.length, DEPLOYMENT_SCOPE]);
    }
    if (granted.length > 0) {
      await this.sql.run(
        `INSERT INTO office_routine_run_slot_holders (routine_run_id, agent_id)
         SELECT value ->> 'runId', value ->> 'agentId' FROM ${dialect.jsonEach('?')}`, [granted]);
    }
    return new Set(granted.map((run) => run.runId));
  }

  async releaseRunSlot(runId: string) {
    const holder = await this.sql.get<{ agent_id: string }>(
      'DELETE FROM office_routine_run_slot_holders WHERE routine_run_id = ? RETURNING agent_id', [runId]);
    if (holder) await this.lowerSlots([DEPLOYMENT_SCOPE, agentScope(holder.agent_id)]);
    return holder !== undefined;
  }

  /** One more run in `scope`, only while it is below `cap` (null: no cap); false when full. */
  private async raiseSlots(scope: string, cap: number | null): Promise<boolean> {
    const capped = this.dialect.cast('@cap', 'integer');
    return (await this.sql.get(
      `INSERT INTO ${SLOTS} (scope, active) SELECT @scope, 1 WHERE ${capped} IS NULL OR ${capped} >= 1
       ON CONFLICT (scope) DO UPDATE SET active = ${SLOTS}.active + 1 WHERE ${capped} IS NULL OR ${SLOTS}.active < ${capped}
       RETURNING active`, { scope, cap })) !== undefined;
  }

  /** `n` more runs in `scope`, only if it stays within `cap` (null: no cap); false when it would not. */
  private async raiseSlotsBy(scope: string, n: number, cap: number | null): Promise<boolean> {
    const capped = this.dialect.cast('@cap', 'integer');
    const more = this.dialect.cast('@n', 'integer');
    return (await this.sql.get(
      `INSERT INTO ${SLOTS} (scope, active) SELECT @scope, ${more} WHERE ${capped} IS NULL OR ${more} <= ${capped}
       ON CONFLICT (scope) DO UPDATE SET active = ${SLOTS}.active + ${more} WHERE ${capped} IS NULL OR ${SLOTS}.active + ${more} <= ${capped}
       RETURNING active`, { scope, n, cap })) !== undefined;
  }

  /** Locked in the one order every statement locks these counters in: the deployment's first, then the agents' (migration 0028). */
  private async lowerSlots(scopes: string[]): Promise<void> {
    await this.sql.run(`WITH locked AS (SELECT scope FROM ${SLOTS} WHERE scope IN (${this.dialect.jsonElements('@scopes')})
         ORDER BY ${SLOT_LOCK_ORDER}${this.dialect.lock('update')})
       UPDATE ${SLOTS} SET active = active - 1 WHERE scope IN (SELECT scope FROM locked)`, { scopes });
  }

  async activeRuns(routineId: string, fingerprint: string) {
    // Heavy: its task is not DONE, CANCELLED or ARCHIVED (a person may close it while the session
    // still runs). Lightweight: its wakeup has not ended. API.md, "Active".
    return this.runs.many(
      `SELECT rr.* FROM tasks t JOIN office_routine_runs rr ON rr.linked_task_id = t.id
        WHERE t.workflow = 'routine' AND t.origin_id = @routine AND t.state NOT IN ('DONE', 'CANCELLED', 'ARCHIVED')
          AND rr.routine_id = @routine AND rr.dispatch_fingerprint = @fingerprint AND rr.status = 'task_created'
       UNION ALL
       SELECT rr.* FROM office_routine_runs rr JOIN agent_wakeup_requests w ON w.id = rr.linked_wakeup_id
        WHERE rr.routine_id = @routine AND rr.dispatch_fingerprint = @fingerprint AND rr.outcome IS NULL
          AND rr.status = 'dispatched' AND ${openWakeup('w.status')}
       ORDER BY started_at, id LIMIT 20`, { routine: routineId, fingerprint });
  }
  async activeRunsOf(keys: readonly { routineId: string; fingerprint: string }[]) {
    // The same two halves as activeRuns, for every (routine, fingerprint) of the list. CROSS JOIN
    // keeps the list as the outer loop (SQLite's rule), so each key is a few index seeks: left to
    // itself SQLite's planner scanned every routine run once per key. PostgreSQL plans a CROSS JOIN
    // with its conditions in WHERE as the inner joins they are.
    const runs = await this.runs.many(
      `WITH k AS (SELECT value ->> 'routineId' AS routine, value ->> 'fingerprint' AS fingerprint FROM ${this.dialect.jsonEach('@keys')})
       SELECT rr.* FROM k CROSS JOIN tasks t CROSS JOIN office_routine_runs rr
        WHERE t.workflow = 'routine' AND t.origin_id = k.routine AND t.state NOT IN ('DONE', 'CANCELLED', 'ARCHIVED')
          AND rr.linked_task_id = t.id AND rr.routine_id = k.routine AND rr.dispatch_fingerprint = k.fingerprint AND rr.status = 'task_created'
       UNION ALL
       SELECT rr.* FROM k CROSS JOIN office_routine_runs rr CROSS JOIN agent_wakeup_requests w
        WHERE rr.routine_id = k.routine AND rr.dispatch_fingerprint = k.fingerprint AND rr.outcome IS NULL AND rr.status = 'dispatched'
          AND w.id = rr.linked_wakeup_id AND ${openWakeup('w.status')}
       ORDER BY started_at, id`, { keys });
    const byRoutine = new Map<string, RoutineRun[]>();
    for (const run of runs) byRoutine.set(run.routine_id, [...(byRoutine.get(run.routine_id) ?? []), run]);
    return byRoutine;
  }

  async openRunsOf(routineId: string) {
    return this.runs.many(
      `SELECT * FROM office_routine_runs WHERE routine_id = ? AND outcome IS NULL AND status IN ('task_created', 'dispatched')
       ORDER BY started_at, id`, [routineId]);
  }
  async countActiveRuns(filter: { agent_id?: string }) {
    const scope = filter.agent_id ? agentScope(filter.agent_id) : DEPLOYMENT_SCOPE;
    return (await this.sql.get<{ active: number }>(`SELECT active FROM ${SLOTS} WHERE scope = ?`, [scope]))?.active ?? 0;
  }
  async runByTask(taskId: string) {
    return this.runs.one('SELECT * FROM office_routine_runs WHERE linked_task_id = ? ORDER BY started_at, id LIMIT 1', [taskId]);
  }
  async assignmentWakeupIdOf(taskId: string) {
    // The task's first assignment: the one its creation by the fire produced.
    return (await this.sql.get<{ id: string }>(
      `SELECT id FROM agent_wakeup_requests WHERE task_id = ? AND source = 'task_assigned'
       ORDER BY requested_at, id LIMIT 1`, [taskId]))?.id;
  }
}

/** Each trigger with its routine, in the triggers' order; a trigger whose routine was not read is left out. */
function withRoutines(triggers: RoutineTrigger[], routines: Map<string, Routine>) {
  return triggers.flatMap((trigger) => {
    const routine = routines.get(trigger.routine_id);
    return routine ? [{ trigger, routine }] : [];
  });
}
