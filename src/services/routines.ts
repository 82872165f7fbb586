/**
 * Routines: CRUD, and firing from cron, webhook or a person. A fire resolves variables, applies
 * the caps and the concurrency policy, then creates a task (heavy) or a taskless `routine` wakeup
 * (lightweight), and records a routine run whose outcome is filled in when the work ends.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { nextFireAfter, validateCron } from '../domain/cron.js';
import { cronKey, webhookDeliveryKey } from '../domain/idempotency.js';
import {
  DEFAULT_CATCH_UP_MAX, DEFAULT_CONSECUTIVE_FAILURE_LIMIT, type MissedTicks, type Routine, type RoutineRun, type RoutineRunOutcome,
  type RoutineTrigger,
} from '../domain/routines.js';
import type { CreateRoutineBody, PatchRoutineBody, PatchTriggerBody, TriggerBody } from '../domain/schemas.js';
import { missedTicksLine } from '../domain/prompt.js';
import { provenanceOf, type Provenance } from '../domain/provenance.js';
import { autoDeclare, renderTemplate, resolveVariables, type VariableDecl } from '../domain/templates.js';
import { TERMINAL_TASK_STATES, type Agent, type Wakeup, type Workspace } from '../domain/types.js';
import type { RunRoute, Tx } from '../persistence/store.js';
import {
  BOOTSTRAP_ADMIN_ID, REVOKED_OWNER_PAUSE_REASON, ownerHandOver, ownerRefusal, type ActorFields, type ApiToken,
} from '../domain/governance.js';
import { recordDecision } from './activity.js';
import { raiseInboxItem } from './inbox.js';
import type { ServiceDeps } from './deps.js';
import { ServiceError, conflict, invalid, notFound } from './errors.js';
import { newId, newSecret } from './ids.js';
import { requireAgentIn, requireWorkspace, type AgentRoutines } from './org.js';
import type { DeliveryService } from './delivery.js';
import type { TaskService } from './tasks.js';
import type { EnqueueRequest, WakeupService } from './wakeups.js';

export type FireSource = 'cron' | 'webhook' | 'manual';

export interface FireRequest {
  source: FireSource;
  triggerId: string | null;
  variables: Record<string, unknown>;
  scheduledFor?: number | null;
  deliveryId?: string | null;
  missedTicks?: MissedTicks | null;
  /** A manual fire: the token id of whoever fired it, on whose behalf it runs (API.md, "Audit"). */
  firedBy?: string | null;
}

export interface FireResult {
  routineRun: RoutineRun;
  /** False when the fire was a repeat (same delivery id, or a tick already fired). */
  created: boolean;
}

/** What the trigger actors are told when a routine or trigger changes. */
export interface RoutineChangeListener {
  routineChanged(routineId: string): void;
}

/** The spec's pre-installed routine for a new coordinator, exactly. */
export const COORDINATOR_HEARTBEAT = {
  name: 'Coordinator heartbeat',
  description: 'Wakes the coordinator every 5 minutes to check workspace activity, react to errors and budget signals, and decide what to do next.',
  cron_expression: '*/5 * * * *',
} as const;

export const HEAVY_ROUTINE_WORKFLOW = 'routine';

/** Why a routine paused itself; `{n}` is the number of failed runs in a row. */
const AUTO_PAUSE_REASON = 'paused after {n} consecutive failed runs; fix the cause, then set it active again';

/**
 * Who an entry about a fire names: a manual fire is the act of the person who fired it (its run is on
 * their behalf), a cron or webhook fire its routine's.
 */
function fireActorOf(routine: Pick<Routine, 'owner_id'>, run: Pick<RoutineRun, 'source' | 'on_behalf_of'>) {
  return run.source === 'manual' && run.on_behalf_of !== null
    ? { actor_type: 'user' as const, actor_id: run.on_behalf_of }
    : { actor_type: 'routine' as const, actor_id: routine.owner_id };
}

/** Stable per-routine offset in [0, jitter_sec): the same routine always lands at the same second. */
export function jitterMsOf(routine: Pick<Routine, 'id' | 'jitter_sec'>): number {
  if (routine.jitter_sec <= 0) return 0;
  const hash = createHash('sha256').update(routine.id).digest().readUInt32BE(0);
  return hash % (routine.jitter_sec * 1000);
}

/**
 * "Active" is judged per fingerprint: the routine's unrendered template and its assignee. The
 * rendered text would differ every day ({{date}}) and never match the run that is still active.
 */
export function dispatchFingerprint(routine: Pick<Routine, 'id' | 'task_template' | 'assignee_agent_instance_id'>): string {
  return createHash('sha256')
    .update(JSON.stringify([routine.id, routine.task_template, routine.assignee_agent_instance_id]))
    .digest('hex')
    .slice(0, 32);
}

export class RoutineService implements AgentRoutines {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly wakeups: WakeupService,
    private readonly tasks: TaskService,
    private readonly listener: RoutineChangeListener,
    /** Result deliveries: recorded with the outcome they report, made after commit, retried until they end. */
    private readonly deliveries: DeliveryService,
  ) {}

  // CRUD ---------------------------------------------------------------------------------------

  create(body: z.output<typeof CreateRoutineBody>): Promise<{ routine: Routine; triggers: RoutineTrigger[] }> {
    return this.deps.store.transaction((tx) => this.createIn(tx, body));
  }

  async createIn(tx: Tx, body: z.output<typeof CreateRoutineBody>): Promise<{ routine: Routine; triggers: RoutineTrigger[] }> {
    const workspace = await requireWorkspace(tx, body.workspace_id);
    await requireAgentIn(tx, workspace.id, body.assignee_agent_instance_id, 'assignee_agent_instance_id');
    // The routes set the owner from the credential; a routine installed with none is the admin's.
    const ownerId = body.owner_id ?? BOOTSTRAP_ADMIN_ID;
    await this.requireLiveOwner(tx, ownerId);
    const now = this.deps.clock.now();
    const template = body.task_template ?? null;
    const routine: Routine = {
      id: newId('rtn'),
      workspace_id: workspace.id,
      name: body.name,
      description: body.description ?? '',
      assignee_agent_instance_id: body.assignee_agent_instance_id,
      owner_id: ownerId,
      status: body.status ?? 'active',
      paused_reason: null,
      concurrency_policy: body.concurrency_policy ?? 'coalesce_if_active',
      catch_up_policy: body.catch_up_policy ?? 'enqueue_missed_with_cap',
      catch_up_max: body.catch_up_max || DEFAULT_CATCH_UP_MAX,
      task_template: template,
      variables: autoDeclare(body.variables ?? [], templateTexts(template)),
      priority: body.priority ?? 0,
      jitter_sec: body.jitter_sec ?? 0,
      delivery: body.delivery ?? null,
      consecutive_failures: 0,
      consecutive_failure_limit: body.consecutive_failure_limit ?? DEFAULT_CONSECUTIVE_FAILURE_LIMIT,
      carried_missed_ticks: null,
      created_at: now,
      updated_at: now,
    };
    await tx.routines.insert(routine);
    const triggers: RoutineTrigger[] = [];
    for (const [i, trigger] of (body.triggers ?? []).entries()) {
      triggers.push(await this.insertTrigger(tx, routine, workspace.timezone, trigger, `triggers.${i}`, now));
    }
    tx.afterCommit(() => this.listener.routineChanged(routine.id));
    return { routine, triggers };
  }

  /** `by`: the person changing it, whom the entries it writes name. */
  async update(id: string, patch: z.output<typeof PatchRoutineBody>, by?: ActorFields): Promise<Routine> {
    const routine = await this.deps.store.transaction(async (tx) => {
      const routine = await this.requireRoutine(tx, id);
      if (routine.status === 'archived') throw conflict(`routine '${id}' is archived; archived is terminal`);
      const body = await this.withOwnerHandOver(tx, routine, patch, by);
      if (body.assignee_agent_instance_id) await requireAgentIn(tx, routine.workspace_id, body.assignee_agent_instance_id, 'assignee_agent_instance_id');
      else if (body.status === 'active') await this.requireLiveAssignee(tx, routine);
      const template = body.task_template === undefined ? routine.task_template : body.task_template;
      const declared = body.variables ?? (routine.variables as VariableDecl[]);
      const now = this.deps.clock.now();
      const { status, ...fields } = body;
      // Archived is the guard: an archive that committed since the read refuses the edit.
      let edited = await tx.routines.edit(id, {
        ...fields,
        ...(body.catch_up_max !== undefined ? { catch_up_max: body.catch_up_max || DEFAULT_CATCH_UP_MAX } : {}),
        task_template: template,
        variables: autoDeclare(declared, templateTexts(template)),
        updated_at: now,
      });
      if (!edited) throw conflict(`routine '${id}' is archived; archived is terminal`);
      // Each status is a transition from the status it leaves, decided by the row, not by the read above.
      if (status === 'active') {
        const resumed = await tx.routines.resume(id, now);
        if (resumed) await this.restartSchedules(tx, id, now);
        edited = resumed ?? edited;
      } else if (status === 'paused') {
        edited = (await tx.routines.pause(id, 'paused by a person', now)) ?? edited;
      } else if (status === 'archived') {
        edited = (await this.archiveIn(tx, edited, now, by)) ?? edited;
      }
      return edited;
    });
    this.listener.routineChanged(id);
    return routine;
  }

  /**
   * A PATCH that gives a routine paused by its owner's revocation a new owner resumes it; one that
   * sets active a routine whose owner is revoked, or hands it to a revoked token, is a 409.
   */
  private async withOwnerHandOver(
    tx: Tx, routine: Routine, body: z.output<typeof PatchRoutineBody>, by: ActorFields | undefined,
  ): Promise<z.output<typeof PatchRoutineBody>> {
    if (body.owner_id !== undefined && body.owner_id !== routine.owner_id) await this.requireLiveOwner(tx, body.owner_id);
    const isRevoked = async (ownerId: string | undefined) => ownerId !== undefined && (await tx.tokens.get(ownerId))?.revoked_at != null;
    const outcome = ownerHandOver(routine, body, { current: await isRevoked(routine.owner_id), requested: await isRevoked(body.owner_id) });
    if ('refused' in outcome) throw conflict(outcome.refused);
    if (body.owner_id !== undefined && body.owner_id !== routine.owner_id) {
      await recordDecision(tx, this.deps.log, {
        workspace_id: routine.workspace_id, code: 'routine_owner_changed', routine_id: routine.id, agent_id: routine.assignee_agent_instance_id, ...by,
        message: `routine '${routine.name}' now runs on behalf of ${body.owner_id} instead of ${routine.owner_id}${outcome.resume ? '; it resumes, since it was paused only because its owner\'s token was revoked' : ''}`,
        details: { previous_owner_id: routine.owner_id, owner_id: body.owner_id },
      }, this.deps.clock.now());
    }
    return outcome.resume ? { ...body, status: 'active' } : body;
  }

  /**
   * The owner's token was revoked: its active routines pause with a reason that says so, until an
   * admin gives them a new owner. One activity entry each, and their triggers stop after commit.
   */
  async pauseRoutinesOfRevokedToken(tx: Tx, token: ApiToken, revokedBy: string | null, now: number): Promise<void> {
    for (const routine of await tx.tokens.pauseRoutinesOwnedBy(token.id, REVOKED_OWNER_PAUSE_REASON, now)) {
      await recordDecision(tx, this.deps.log, {
        workspace_id: routine.workspace_id, code: 'routine_paused', routine_id: routine.id, agent_id: routine.assignee_agent_instance_id,
        actor_type: 'user', actor_id: revokedBy,
        message: `routine '${routine.name}' paused: its owner's token ${token.id} ('${token.name}') was revoked; an admin resumes it by giving it a new owner (PATCH owner_id)`,
        details: { revoked_token_id: token.id },
      }, now, 'warn');
      tx.afterCommit(() => this.listener.routineChanged(routine.id));
    }
  }

  /** A routine's owner is a live token or the admin (governance.ts), whichever path sets it. */
  private async requireLiveOwner(tx: Tx, ownerId: string): Promise<void> {
    const refusal = ownerRefusal(ownerId, ownerId === BOOTSTRAP_ADMIN_ID ? undefined : await tx.tokens.get(ownerId));
    if (refusal) throw conflict(refusal);
  }

  /** A routine is set active only onto an assignee that can be woken: otherwise every fire would fail. */
  private async requireLiveAssignee(tx: Tx, routine: Routine): Promise<void> {
    const problem = await this.assigneeProblem(tx, routine);
    if (problem) throw conflict(`routine '${routine.id}' cannot be active: ${problem}`);
  }

  /** Why a fire of this routine cannot reach its assignee, or null when it can. */
  private async assigneeProblem(tx: Tx, routine: Routine): Promise<string | null> {
    return assigneeProblemOf(routine, await tx.agents.get(routine.assignee_agent_instance_id));
  }

  /**
   * The assignee is gone: its routines pause with a reason rather than fail on every tick, and
   * every routine run of its that is still open ends `cancelled` (a running session ends on its own).
   */
  async pauseRoutinesOf(tx: Tx, agentId: string, now: number, by?: ActorFields): Promise<void> {
    for (const routine of await tx.routines.list({ assignee: agentId, include_archived: true })) await this.cancelOpenRuns(tx, routine, now);
    const reason = 'paused because its assignee agent was deleted; assign another agent, then set it active';
    // One statement: only the routines active when it runs pause, never one archived or paused meanwhile.
    for (const routine of await tx.routines.pauseActiveOf(agentId, reason, now)) {
      await recordDecision(tx, this.deps.log, {
        workspace_id: routine.workspace_id, code: 'routine_paused', routine_id: routine.id, agent_id: agentId, message: reason, ...by,
      }, now, 'warn');
      tx.afterCommit(() => this.listener.routineChanged(routine.id));
    }
  }

  private async cancelOpenRuns(tx: Tx, routine: Routine, now: number): Promise<void> {
    for (const run of await tx.routines.openRunsOf(routine.id)) {
      const ownId = await this.ownWakeupIdOf(tx, run);
      if (ownId && (await tx.wakeups.get(ownId))?.status === 'claimed') continue;
      await this.settleRun(tx, routine, run, 'cancelled', now, false);
    }
  }

  /** A paused routine missed nothing on purpose: its schedules resume from the next tick after now. */
  private async restartSchedules(tx: Tx, routineId: string, now: number) {
    for (const trigger of await tx.routines.triggersOf(routineId)) {
      if (trigger.kind !== 'schedule' || !trigger.enabled) continue;
      await tx.routines.editTrigger(trigger.id, { next_run_at: nextTick(trigger.cron_expression!, trigger.timezone ?? 'UTC', now), updated_at: now });
    }
  }

  /**
   * Deleting archives: the run history is kept for inspection (spec), the routine leaves the lists,
   * and its triggers are disabled so that nothing fires it again. Archiving twice changes nothing.
   */
  async remove(id: string, by?: ActorFields): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      const routine = await this.requireRoutine(tx, id);
      if (routine.status !== 'archived') await this.archiveIn(tx, routine, this.deps.clock.now(), by);
    });
    this.listener.routineChanged(id);
  }

  /** DELETE and PATCH {status:"archived"} end the same way. */
  private async archiveIn(tx: Tx, routine: Routine, now: number, by?: ActorFields): Promise<Routine | undefined> {
    // Of two archives at once, one archives and records it; the other finds it archived.
    const archived = await tx.routines.archive(routine.id, now);
    if (!archived) return undefined;
    await recordDecision(tx, this.deps.log, {
      workspace_id: routine.workspace_id, code: 'routine_archived', routine_id: routine.id, agent_id: routine.assignee_agent_instance_id, ...by,
      message: `routine '${routine.name}' archived: its triggers are disabled and its run history is kept`,
    }, now);
    return archived;
  }

  async addTrigger(routineId: string, body: z.output<typeof TriggerBody>): Promise<RoutineTrigger> {
    const trigger = await this.deps.store.transaction(async (tx) => {
      const routine = requireNotArchived(await this.requireRoutine(tx, routineId));
      const workspace = (await tx.workspaces.get(routine.workspace_id))!;
      return this.insertTrigger(tx, routine, workspace.timezone, body, '', this.deps.clock.now());
    });
    this.listener.routineChanged(routineId);
    return trigger;
  }

  async updateTrigger(id: string, body: z.output<typeof PatchTriggerBody>): Promise<RoutineTrigger> {
    const trigger = await this.deps.store.transaction(async (tx) => {
      const trigger = await tx.routines.getTrigger(id);
      if (!trigger) throw notFound('routine trigger', id);
      requireNotArchived(await this.requireRoutine(tx, trigger.routine_id));
      const now = this.deps.clock.now();
      const patch: Partial<RoutineTrigger> = { ...body, updated_at: now };
      if (trigger.kind === 'schedule' && (body.cron_expression || body.timezone || body.enabled === true)) {
        const expression = body.cron_expression ?? trigger.cron_expression!;
        const timezone = body.timezone ?? trigger.timezone ?? 'UTC';
        checkCron(expression, timezone, 'cron_expression');
        patch.next_run_at = nextTick(expression, timezone, now);
      }
      const edited = await tx.routines.editTrigger(id, patch);
      if (!edited) throw conflict(`routine '${trigger.routine_id}' is archived; archived is terminal`);
      return edited;
    });
    this.listener.routineChanged(trigger.routine_id);
    return trigger;
  }

  async removeTrigger(id: string): Promise<void> {
    const trigger = await this.deps.store.transaction(async (tx) => {
      const trigger = await tx.routines.getTrigger(id);
      if (!trigger) throw notFound('routine trigger', id);
      requireNotArchived(await this.requireRoutine(tx, trigger.routine_id));
      await tx.routines.deleteTrigger(id);
      return trigger;
    });
    this.listener.routineChanged(trigger.routine_id);
  }

  private async insertTrigger(tx: Tx, routine: Routine, defaultZone: string, body: z.output<typeof TriggerBody>, path: string, now: number) {
    const prefix = path ? `${path}.` : '';
    const base = {
      id: newId('trg'), routine_id: routine.id, kind: body.kind, cron_expression: null, timezone: null, next_run_at: null,
      last_fired_at: null, public_id: null, signing_mode: null, secret: null, enabled: body.enabled ?? true, created_at: now, updated_at: now,
    } satisfies RoutineTrigger;
    let trigger: RoutineTrigger = base;
    if (body.kind === 'schedule') {
      const timezone = body.timezone ?? defaultZone ?? 'UTC';
      checkCron(body.cron_expression, timezone, `${prefix}cron_expression`);
      trigger = { ...base, cron_expression: body.cron_expression, timezone, next_run_at: nextTick(body.cron_expression, timezone, now) };
    } else if (body.kind === 'webhook') {
      trigger = { ...base, public_id: newSecret(12), signing_mode: body.signing_mode, secret: body.secret ?? (body.signing_mode === 'none' ? null : newSecret()) };
    }
    await tx.routines.insertTrigger(trigger);
    return trigger;
  }

  /**
   * The spec's heartbeat, installed in the transaction that creates the coordinator: a crash can
   * leave neither a coordinator without its heartbeat nor a heartbeat without its coordinator.
   */
  async installHeartbeat(tx: Tx, agent: Agent, ownerId: string = BOOTSTRAP_ADMIN_ID): Promise<void> {
    await this.createIn(tx, {
      owner_id: ownerId,
      workspace_id: agent.workspace_id,
      name: COORDINATOR_HEARTBEAT.name,
      description: COORDINATOR_HEARTBEAT.description,
      assignee_agent_instance_id: agent.id,
      status: 'active',
      concurrency_policy: 'coalesce_if_active',
      catch_up_policy: 'enqueue_missed_with_cap',
      catch_up_max: DEFAULT_CATCH_UP_MAX,
      task_template: null,
      variables: [],
      triggers: [{ kind: 'schedule', cron_expression: COORDINATOR_HEARTBEAT.cron_expression, enabled: true }],
    });
  }

  // Firing -------------------------------------------------------------------------------------

  /** Manual fire ("Run now") from a person: attended, on behalf of `firedBy` (the routine's owner when not given). */
  fireManually(routineId: string, variables: Record<string, unknown>, firedBy?: string | null): Promise<FireResult> {
    return this.deps.store.transaction(async (tx) => {
      const routine = await this.requireRoutine(tx, routineId);
      const manual = (await tx.routines.triggersOf(routineId)).find((t) => t.kind === 'manual');
      return this.fireIn(tx, routine, { source: 'manual', triggerId: manual?.id ?? null, variables, firedBy: firedBy ?? null });
    });
  }

  /**
   * The webhook fire, after its signature was verified. A repeated delivery id answers with the
   * first delivery's routine run whatever the routine's or the trigger's state now (API.md,
   * "Webhook order"); only a new delivery needs an active routine and an enabled trigger.
   */
  fireWebhook(trigger: RoutineTrigger, variables: Record<string, unknown>, deliveryId: string | null): Promise<FireResult> {
    return this.deps.store.transaction(async (tx) => {
      const earlier = await this.earlierDelivery(tx, trigger.id, deliveryId, this.deps.clock.now());
      if (earlier) return { routineRun: earlier, created: false };
      const routine = await this.requireRoutine(tx, trigger.routine_id);
      const current = await tx.routines.getTrigger(trigger.id);
      if (!current?.enabled) throw conflict(`webhook trigger '${trigger.public_id}' is disabled; enable it to accept new deliveries`);
      return this.fireIn(tx, routine, { source: 'webhook', triggerId: trigger.id, variables, deliveryId });
    });
  }

  /**
   * The routine run of an earlier delivery with this id, inside the idempotency window. A delivery
   * older than the window is retired, so the same id fires again (as wakeup idempotency keys do).
   */
  private async earlierDelivery(tx: Tx, triggerId: string, deliveryId: string | null, now: number) {
    if (!deliveryId) return undefined;
    await tx.routines.retireDeliveryBefore(triggerId, deliveryId, now - this.deps.config.idempotencyWindowMs);
    return tx.routines.runByDelivery(triggerId, deliveryId);
  }

  /**
   * Fires an active routine. A webhook's repeated delivery id was answered before this (fireWebhook).
   * `recorded`: the run a batch of cron ticks claimed and recorded already (fireCronTicks), which
   * only needs dispatching, with what the batch found out for it.
   */
  async fireIn(tx: Tx, stale: Routine, request: FireRequest, recorded?: { run: RoutineRun } & Prefetched): Promise<FireResult> {
    const now = this.deps.clock.now();
    if (recorded) return { routineRun: await this.dispatchRecorded(tx, stale, recorded.run, request, now, recorded), created: true };
    // Read again: an earlier fire in this transaction (a catch-up tick) may have changed it.
    const routine = await this.requireRoutine(tx, stale.id);
    if (routine.status !== 'active') throw conflict(`routine '${routine.id}' is ${routine.status}; it fires only when active`);
    const workspace = (await tx.workspaces.get(routine.workspace_id))!;
    const resolved = this.resolveFor(routine, workspace, request, now);
    if (!resolved.ok && request.source === 'cron') {
      // Nobody is there to answer a 400: the tick is recorded as failed, with the reason.
      return this.recordFailedFire(tx, routine, request, resolvedError(resolved));
    }
    if (!resolved.ok) {
      const details = resolved.errors.map((e) => ({ path: `variables.${e.name}`, message: e.message }));
      throw new ServiceError('validation_error', details.map((d) => `${d.path}: ${d.message}`).join('; '), details);
    }
    const run = this.newRun(routine, request, resolved.values, now);
    // The UNIQUE keys make a repeated tick or delivery a no-op, whatever raced to get here.
    if (!(await tx.routines.insertRun(run))) {
      const raced = request.deliveryId && request.triggerId ? await tx.routines.runByDelivery(request.triggerId, request.deliveryId) : undefined;
      return { routineRun: raced ?? run, created: false };
    }
    return { routineRun: await this.dispatchRecorded(tx, routine, run, request, now), created: true };
  }

  /**
   * Fires a batch of cron ticks whose triggers the caller saw due: claims every tick and records
   * its routine run in one store operation, then dispatches each run recorded, in this transaction.
   * A claim lost to another caller fires nothing. Catch-up ticks after the first (rare: only after
   * downtime) fire one by one as before, and stop when a failure has paused the routine.
   * With `refused` (the error of a first attempt), every tick is recorded as a failed run instead.
   * Returns the ids of the triggers whose tick this caller claimed.
   */
  async fireCronTicks(tx: Tx, ticks: readonly CronTicks[], refused: string | null): Promise<Set<string>> {
    const now = this.deps.clock.now();
    const workspaces = new Map<string, Promise<Workspace | undefined>>();
    const workspaceOf = (id: string) => workspaces.get(id) ?? workspaces.set(id, tx.workspaces.get(id)).get(id)!;
    const prepared = await Promise.all(ticks.map(async (tick) => {
      const request = cronRequest(tick, 0);
      const resolved = refused === null
        ? this.resolveFor(tick.routine, (await workspaceOf(tick.routine.workspace_id))!, request, now) : null;
      const values = resolved?.ok ? resolved.values : {};
      return { tick, request, resolved, run: this.newRun(tick.routine, request, values, now) };
    }));
    const won = await tx.routines.claimTicks(prepared.map(({ tick, run }) => ({
      triggerId: tick.trigger.id, expectedNextRunAt: tick.expectedNextRunAt, nextRunAt: tick.nextRunAt, run,
    })), now);
    const byTrigger = new Map(prepared.map((p) => [p.tick.trigger.id, p]));
    const errorOf = ({ resolved }: (typeof prepared)[number]) => refused ?? (resolved && !resolved.ok ? resolvedError(resolved) : null);
    const toDispatch = won.filter((w) => w.recorded && errorOf(byTrigger.get(w.triggerId)!) === null).map((w) => byTrigger.get(w.triggerId)!);
    const slots = await this.takeSlots(tx, toDispatch.map(({ tick, run }) => ({ runId: run.id, agentId: tick.routine.assignee_agent_instance_id })));
    const active = await this.activeRunsOfBatch(tx, toDispatch.map(({ tick, run }) => ({ routine: tick.routine, run })));
    for (const { triggerId, recorded } of won) {
      const fire = byTrigger.get(triggerId)!;
      const { tick, request, run } = fire;
      if (recorded) {
        const error = errorOf(fire);
        if (error !== null) await this.failRun(tx, tick.routine, run, error, now);
        else await this.fireIn(tx, tick.routine, request, { run, slotTaken: slots.has(run.id), active: active.get(tick.routine.id) });
      }
      for (let i = 1; i < tick.fire.length; i++) {
        // A catch-up tick may have paused the routine (its failure limit): the later ticks are not fired.
        if ((await tx.routines.get(tick.routine.id))?.status !== 'active') break;
        const later = cronRequest(tick, i);
        if (refused === null) await this.fireIn(tx, tick.routine, later);
        else await this.recordFailedFire(tx, tick.routine, later, refused);
      }
    }
    return new Set(won.map((w) => w.triggerId));
  }

  /** A replayed tick is dated by its schedule, not by the replay: {{date}} is the day it was due. */
  private resolveFor(routine: Routine, workspace: Workspace, request: FireRequest, now: number) {
    return resolveVariables(routine.variables as VariableDecl[], request.variables, new Date(request.scheduledFor ?? now), workspace.timezone);
  }

  /** A recorded run goes to its agent, or fails when it cannot reach it; the decision is logged. */
  private async dispatchRecorded(
    tx: Tx, routine: Routine, run: RoutineRun, request: FireRequest, now: number, prefetched: Prefetched = { slotTaken: false },
  ): Promise<RoutineRun> {
    // A fire that cannot reach its agent is a failed run, counted like one, never an error that
    // rolls the tick back (a trigger would retry it for ever). A slot granted already proved the
    // assignee live, in this transaction.
    const agent = prefetched.slotTaken ? null : await tx.agents.get(routine.assignee_agent_instance_id);
    const problem = prefetched.slotTaken ? null : assigneeProblemOf(routine, agent ?? undefined);
    if (problem) return this.failRun(tx, routine, run, `cannot dispatch: ${problem}`, now);
    const decided = await this.dispatch(tx, routine, agent ?? null, run, request, now, prefetched);
    await recordDecision(tx, this.deps.log, {
      workspace_id: routine.workspace_id, code: `routine_run_${decided.status}`, routine_id: routine.id,
      agent_id: routine.assignee_agent_instance_id, task_id: decided.linked_task_id, wakeup_id: decided.linked_wakeup_id,
      ...fireActorOf(routine, run), ...provenanceOf(run),
      message: `routine '${routine.name}' fired (${request.source}): ${decided.status}${decided.skip_reason ? ` (${decided.skip_reason})` : ''}`,
      details: { routine_run_id: run.id, scheduled_for: request.scheduledFor ?? null, on_behalf_of: routine.owner_id },
    }, now);
    return decided;
  }

  private newRun(routine: Routine, request: FireRequest, payload: Record<string, unknown>, now: number): RoutineRun {
    return {
      id: newId('rr'), routine_id: routine.id, trigger_id: request.triggerId, source: request.source, status: 'received',
      skip_reason: null, trigger_payload: payload, linked_task_id: null, linked_wakeup_id: null,
      coalesced_into_run_id: null, dispatch_fingerprint: dispatchFingerprint(routine), scheduled_for: request.scheduledFor ?? null,
      delivery_id: request.deliveryId ?? null, outcome: null, delivery_status: 'none', error: null,
      unattended: request.source !== 'manual',
      on_behalf_of: request.source === 'manual' ? request.firedBy ?? routine.owner_id : routine.owner_id,
      started_at: now, completed_at: null,
    };
  }

  /**
   * A cron tick that could not fire (its variables do not resolve, or the fire itself failed): its
   * routine run goes received -> failed with the error and counts toward the failure limit. Public
   * for the trigger actors, whose tick must move on even when the fire was refused.
   */
  async recordFailedFire(tx: Tx, routine: Routine, request: FireRequest, error: string): Promise<FireResult> {
    const now = this.deps.clock.now();
    const run = this.newRun(routine, { ...request, deliveryId: null }, {}, now);
    if (!(await tx.routines.insertRun(run))) return { routineRun: run, created: false };
    return { routineRun: await this.failRun(tx, routine, run, error, now), created: true };
  }

  private async failRun(tx: Tx, routine: Routine, run: RoutineRun, error: string, now: number): Promise<RoutineRun> {
    const failed: RoutineRun = { ...run, status: 'failed', outcome: 'failed', error, completed_at: now };
    await tx.routines.settleRun(run.id, { status: failed.status, outcome: failed.outcome, error, completed_at: now });
    await recordDecision(tx, this.deps.log, {
      workspace_id: routine.workspace_id, code: 'routine_run_failed', routine_id: routine.id,
      agent_id: routine.assignee_agent_instance_id, ...fireActorOf(routine, run), ...provenanceOf(run),
      message: `routine '${routine.name}' could not fire (${run.source}): ${error}`,
      details: { routine_run_id: run.id, scheduled_for: run.scheduled_for, on_behalf_of: run.on_behalf_of },
    }, now, 'warn');
    await this.countFailures(tx, routine, 'failed', now, provenanceOf(run));
    return failed;
  }

  /**
   * The caps come first (a fire at a cap is skipped whatever else holds): the run takes its slot,
   * and gives it back at once when it ends skipped or coalesced instead of reaching its agent.
   */
  private async dispatch(
    tx: Tx, routine: Routine, agent: Agent | null, run: RoutineRun, request: FireRequest, now: number, prefetched: Prefetched,
  ): Promise<RoutineRun> {
    // The run was inserted `received` in this transaction: no other path can have routed it.
    const settle = async (patch: RunRoute) => {
      await tx.routines.routeRun(run.id, patch);
      return { ...run, ...patch };
    };
    const endWithoutAgent = async (patch: RunRoute) => {
      await tx.routines.releaseRunSlot(run.id);
      return settle(patch);
    };
    // A missed-ticks note goes with the next fire that reaches the agent, not with a skipped one:
    // a skipped fire adds its note to the routine's carried one, in the row.
    const skip = async (reason: string) => {
      if (request.missedTicks?.count) await tx.routines.carryMissedTicks(routine.id, request.missedTicks);
      return endWithoutAgent({ status: 'skipped', skip_reason: reason, completed_at: now });
    };
    if (!prefetched.slotTaken && !(await this.takeSlot(tx, run, agent!))) return skip('cap_reached');

    const active = routine.concurrency_policy === 'always_enqueue' ? []
      : prefetched.active ?? await tx.routines.activeRuns(routine.id, run.dispatch_fingerprint);
    if (active.length > 0 && routine.concurrency_policy === 'skip_if_active') return skip('active_run');

    // The routine as read says whether a note is carried (none: no statement); taking it is atomic.
    const carried = routine.carried_missed_ticks ? await tx.routines.takeCarriedMissedTicks(routine.id) : null;
    const missed = combineMissed(carried, request.missedTicks ?? null);
    const fire = this.fireRequest(routine, run, { ...request, missedTicks: missed });
    if (active.length > 0) {
      const folded = await this.foldIntoActive(tx, routine, active, fire, now);
      if (folded) {
        return endWithoutAgent({ status: 'coalesced', coalesced_into_run_id: folded.into.id, linked_wakeup_id: folded.wakeup.id, completed_at: now });
      }
    }
    if (routine.task_template) {
      const task = await this.tasks.createTaskIn(tx, {
        workspace_id: routine.workspace_id,
        title: renderTemplate(routine.task_template.title, run.trigger_payload),
        description: withMissedNote(renderTemplate(routine.task_template.description ?? '', run.trigger_payload), missed),
        assignee_agent_instance_id: routine.assignee_agent_instance_id,
      }, { type: 'system', id: routine.id, provenance: provenanceOf(run) }, { workflow: 'routine', origin: 'routine', origin_id: routine.id });
      return settle({ status: 'task_created', linked_task_id: task.id });
    }
    const outcome = await this.wakeups.enqueue(tx, fire, now);
    if (outcome.kind === 'coalesced' || outcome.kind === 'merged_into_run') {
      // Folded into a wakeup that is already on its way: this fire's work is that wakeup's work.
      return endWithoutAgent({ status: 'coalesced', linked_wakeup_id: outcome.into.id, coalesced_into_run_id: outcome.into.routine_run_id, completed_at: now });
    }
    return settle({ status: 'dispatched', linked_wakeup_id: outcome.wakeup.id });
  }

  /** The `routine` wakeup request a fire makes, keyed so that a tick or a delivery enqueues once. */
  private fireRequest(routine: Routine, run: RoutineRun, request: FireRequest): EnqueueRequest {
    return {
      agent_id: routine.assignee_agent_instance_id,
      source: 'routine',
      reason: `routine '${routine.name}' (${request.source})`,
      payload: routinePayload(routine, run, request),
      idempotency_key: this.keyFor(routine, request),
      routine_run_id: run.id,
      provenance: provenanceOf(run),
    };
  }

  /**
   * A coalesced fire still reaches the agent. It folds into an active run's wakeup that has not
   * started yet, as the coalescing window folds a request (one rule, in WakeupService). A heavy
   * run is its task: with no wakeup of the task waiting (its session runs now), the fire becomes
   * the task's next wakeup. A lightweight fire with only running sessions active joins nothing: a
   * session already running could not see it, so it is dispatched and waits.
   */
  private async foldIntoActive(tx: Tx, routine: Routine, active: RoutineRun[], fire: EnqueueRequest, now: number): Promise<{ into: RoutineRun; wakeup: Wakeup } | null> {
    const aboutTaskOf = (run: RoutineRun): EnqueueRequest =>
      run.linked_task_id ? { ...fire, payload: { ...(fire.payload as object), task_id: run.linked_task_id } } : fire;
    for (const candidate of active) {
      const waiting = await this.waitingWakeupOf(tx, routine, candidate);
      if (!waiting) continue;
      // Null when the wakeup started or ended since it was read: the next candidate is tried.
      if (!(await this.wakeups.foldRequestInto(tx, aboutTaskOf(candidate), waiting, now))) continue;
      return { into: candidate, wakeup: waiting };
    }
    const heavy = routine.task_template ? active[0] : undefined;
    if (!heavy) return null;
    const outcome = await this.wakeups.enqueue(tx, aboutTaskOf(heavy), now);
    return { into: heavy, wakeup: outcome.kind === 'coalesced' || outcome.kind === 'merged_into_run' ? outcome.into : outcome.wakeup };
  }

  /** The wakeup of an active run that has not started: queued, or waiting for its retry. */
  private async waitingWakeupOf(tx: Tx, routine: Routine, run: RoutineRun): Promise<Wakeup | undefined> {
    const candidates = run.linked_task_id
      ? (await tx.wakeups.openForTask(run.linked_task_id)).filter((w) => w.agent_id === routine.assignee_agent_instance_id)
      : run.linked_wakeup_id ? [await tx.wakeups.get(run.linked_wakeup_id)] : [];
    return candidates.find((w): w is Wakeup => w !== undefined && (w.status === 'queued' || w.status === 'scheduled_retry'));
  }

  private keyFor(routine: Routine, request: FireRequest): string | null {
    if (request.source === 'cron' && request.triggerId && request.scheduledFor != null) return cronKey(routine.id, request.triggerId, request.scheduledFor);
    if (request.source === 'webhook' && request.triggerId && request.deliveryId) return webhookDeliveryKey(request.triggerId, request.deliveryId);
    return null;
  }

  /**
   * Caps refuse rather than queue without bound: unattended work is the easiest way to overspend.
   * The slot is taken atomically under both caps (counter rows raised only below their cap).
   */
  /**
   * The slots of a batch of fires, taken together where both caps have room for all of them (a few
   * statements for the batch); the fires left out take theirs one by one in dispatch, in order.
   */
  private takeSlots(tx: Tx, runs: { runId: string; agentId: string }[]): Promise<Set<string>> {
    return runs.length === 0 ? Promise.resolve(new Set()) : tx.routines.takeRunSlots(runs, this.deps.config.maxConcurrentRoutineRuns);
  }

  /**
   * The active runs (API.md, "Active") of each routine that fires once in the batch, in one read. A
   * routine firing more than once is left out: its earlier fire in this batch may make it active.
   */
  private async activeRunsOfBatch(tx: Tx, fires: { routine: Routine; run: RoutineRun }[]): Promise<Map<string, RoutineRun[]>> {
    const times = new Map<string, number>();
    for (const { routine } of fires) times.set(routine.id, (times.get(routine.id) ?? 0) + 1);
    const once = fires.filter(({ routine }) => times.get(routine.id) === 1 && routine.concurrency_policy !== 'always_enqueue');
    if (once.length === 0) return new Map();
    const found = await tx.routines.activeRunsOf(once.map(({ routine, run }) => ({ routineId: routine.id, fingerprint: run.dispatch_fingerprint })));
    return new Map(once.map(({ routine }) => [routine.id, found.get(routine.id) ?? []]));
  }

  private takeSlot(tx: Tx, run: RoutineRun, agent: Agent): Promise<boolean> {
    return tx.routines.takeRunSlot(run.id, agent.id, {
      deployment: this.deps.config.maxConcurrentRoutineRuns,
      agent: agent.max_concurrent_routine_runs || null,
    });
  }

  // Outcomes -----------------------------------------------------------------------------------

  /**
   * Called on every path that ends a wakeup. A routine run's outcome comes from its own wakeup only:
   * the wakeup a lightweight fire enqueued, or the assignment wakeup of a heavy run's task (not a
   * comment, a review or a self-wake that happens to end first on that task).
   */
  async recordOutcome(tx: Tx, wakeup: Wakeup, outcome: RoutineRunOutcome, now: number, sessionRan: boolean): Promise<void> {
    // A routine task's assignment wakeups carry its routine run from their enqueue: no other wakeup reads a routine run here.
    const run = wakeup.routine_run_id ? await tx.routines.getRun(wakeup.routine_run_id) : undefined;
    if (!run) return;
    const succeededHere = outcome === 'succeeded' && sessionRan;
    if (run.status === 'coalesced' && run.coalesced_into_run_id && wakeup.task_id) {
      // A fire folded into a heavy run's task as its next wakeup: its success may finish the task.
      if (succeededHere) await this.completeRoutineTask(tx, wakeup, run.routine_id);
      return;
    }
    if (run.outcome !== null || (run.status !== 'dispatched' && run.status !== 'task_created')) return;
    if (run.status === 'task_created' && (await this.ownWakeupIdOf(tx, run)) !== wakeup.id) return;
    if (run.status === 'task_created' && succeededHere) await this.completeRoutineTask(tx, wakeup, run.routine_id);
    const routine = await tx.routines.get(run.routine_id);
    if (routine) await this.settleRun(tx, routine, run, outcome, now, sessionRan);
  }

  /** The id of the wakeup whose end settles the run: the one the fire enqueued, or its task's assignment. */
  private async ownWakeupIdOf(tx: Tx, run: RoutineRun): Promise<string | undefined> {
    if (run.status === 'dispatched') return run.linked_wakeup_id ?? undefined;
    return run.linked_task_id ? tx.routines.assignmentWakeupIdOf(run.linked_task_id) : undefined;
  }

  private async settleRun(tx: Tx, routine: Routine, run: RoutineRun, outcome: RoutineRunOutcome, now: number, sessionRan: boolean) {
    // Settled once: a second path ending the same run (it lost the race) changes nothing.
    if (!(await tx.routines.settleRun(run.id, { outcome, completed_at: now }))) return;
    // "Failed runs in a row" means runs: a fire that never reached a session does not count.
    if (sessionRan || outcome === 'succeeded') await this.countFailures(tx, routine, outcome, now, provenanceOf(run));
    await this.deliveries.scheduleIn(tx, routine, run, outcome, now);
  }

  /**
   * The routine workflow's single step: the task is done when a routine session on it succeeds,
   * unless a fire coalesced into it still waits to run (that one completes it in turn).
   */
  private async completeRoutineTask(tx: Tx, ended: Wakeup, routineId: string) {
    const task = await tx.tasks.get(ended.task_id!);
    if (!task || task.workflow !== 'routine' || TERMINAL_TASK_STATES.includes(task.state)) return;
    const fireWaiting = (await tx.wakeups.openForTask(task.id)).some((w) => w.id !== ended.id && w.source === 'routine');
    if (fireWaiting) return;
    try {
      await this.tasks.moveTaskIn(tx, task.id, 'DONE', { type: 'system', id: routineId, provenance: provenanceOf(ended) }, null, true);
    } catch (error) {
      // Moved meanwhile (a person closed or reopened it): their move stands, and this outcome is still recorded.
      if (!(error instanceof ServiceError && error.code === 'conflict')) throw error;
    }
  }

  /**
   * Failure stops rather than retries forever: after the limit the routine pauses itself. The count
   * is kept in the routine's row by one statement, so outcomes ending together each count.
   */
  private async countFailures(tx: Tx, routine: Routine, outcome: string, now: number, provenance: Provenance) {
    const counted = await tx.routines.countOutcome(routine.id, outcome === 'succeeded', now, AUTO_PAUSE_REASON);
    if (!counted?.paused) return;
    await raiseInboxItem(tx, {
      workspace_id: routine.workspace_id, kind: 'routine.paused', title: `Routine '${routine.name}' paused itself`,
      body: `${counted.paused_reason}. Resume it (PATCH status "active") once the cause is fixed.`,
      agent_id: routine.assignee_agent_instance_id, task_id: null, ref_id: routine.id,
    }, now);
    await recordDecision(tx, this.deps.log, {
      workspace_id: routine.workspace_id, code: 'routine_auto_paused', routine_id: routine.id, ...provenance,
      agent_id: routine.assignee_agent_instance_id, message: counted.paused_reason!, details: { consecutive_failures: counted.consecutive_failures },
    }, now, 'warn');
    tx.afterCommit(() => this.listener.routineChanged(routine.id));
  }

  private async requireRoutine(tx: Tx, id: string): Promise<Routine> {
    const routine = await tx.routines.get(id);
    if (!routine) throw notFound('routine', id);
    return routine;
  }
}

/** What a batch of cron fires found out for one of them, so that its dispatch need not ask again. */
interface Prefetched {
  /** Its cap slot is taken (which also proved its assignee live). */
  slotTaken: boolean;
  /** Its routine's active runs, when the batch read them. */
  active?: RoutineRun[] | undefined;
}

/** The due ticks of one schedule trigger, as its actor saw them: the claim's compare-and-set value and the plan. */
export interface CronTicks {
  trigger: RoutineTrigger;
  routine: Routine;
  expectedNextRunAt: number;
  /** Where next_run_at moves when this claim wins. */
  nextRunAt: number | null;
  /** The ticks to fire, oldest first: the due one, then any catch-up ticks. */
  fire: readonly number[];
  /** Ticks dropped beyond the catch-up cap, reported on the last fire. */
  missed: MissedTicks | null;
}

function cronRequest(ticks: CronTicks, index: number): FireRequest {
  const last = index === ticks.fire.length - 1;
  return { source: 'cron', triggerId: ticks.trigger.id, variables: {}, scheduledFor: ticks.fire[index]!, missedTicks: last ? ticks.missed : null };
}

function resolvedError(resolved: { errors: { message: string }[] }): string {
  return resolved.errors.map((e) => e.message).join('; ');
}

/** Why a fire of this routine cannot reach its assignee, or null when it can. */
function assigneeProblemOf(routine: Routine, agent: Agent | undefined): string | null {
  if (agent && agent.deleted_at === null) return null;
  return `its assignee agent '${routine.assignee_agent_instance_id}' ${agent ? 'was deleted' : 'does not exist'}; `
    + 'set assignee_agent_instance_id to a live agent of the workspace';
}

function templateTexts(template: Routine['task_template']): string[] {
  return template ? [template.title, template.description ?? ''] : [];
}

function checkCron(expression: string, timezone: string, path: string) {
  const check = validateCron(expression, timezone);
  if (!check.ok) throw invalid(path, check.message);
}

function nextTick(expression: string, timezone: string, after: number): number | null {
  return nextFireAfter(expression, timezone, new Date(after))?.getTime() ?? null;
}

/** Notes carried from skipped ticks add up: the count sums, the earliest `since` stays. */
function combineMissed(carried: MissedTicks | null, fresh: MissedTicks | null): MissedTicks | null {
  const notes = [carried, fresh].filter((note): note is MissedTicks => note !== null && note.count > 0);
  if (notes.length === 0) return null;
  return { count: notes.reduce((sum, note) => sum + note.count, 0), since: Math.min(...notes.map((note) => note.since)) };
}

function requireNotArchived(routine: Routine): Routine {
  if (routine.status === 'archived') throw conflict(`routine '${routine.id}' is archived; its triggers cannot change`);
  return routine;
}

function withMissedNote(description: string, missed: FireRequest['missedTicks']): string {
  if (!missed || missed.count === 0) return description;
  const note = missedTicksLine({ count: missed.count, since: new Date(missed.since).toISOString() });
  return description ? `${description}\n\n${note}` : note;
}

function routinePayload(routine: Routine, run: RoutineRun, request: FireRequest) {
  return {
    routine_id: routine.id,
    routine_run_id: run.id,
    variables: run.trigger_payload,
    ...(request.scheduledFor != null ? { scheduled_for: new Date(request.scheduledFor).toISOString() } : {}),
    ...(request.missedTicks && request.missedTicks.count > 0
      ? { missed_ticks: request.missedTicks.count, missed_since: new Date(request.missedTicks.since).toISOString() }
      : {}),
  };
}
