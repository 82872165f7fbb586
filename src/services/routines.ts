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
  DEFAULT_CATCH_UP_MAX, DEFAULT_CONSECUTIVE_FAILURE_LIMIT, type Routine, type RoutineRun, type RoutineTrigger,
} from '../domain/routines.js';
import type { CreateRoutineBody, PatchRoutineBody, PatchTriggerBody, TriggerBody } from '../domain/schemas.js';
import { missedTicksLine } from '../domain/prompt.js';
import { autoDeclare, renderTemplate, resolveVariables, type VariableDecl } from '../domain/templates.js';
import type { Agent, Wakeup } from '../domain/types.js';
import type { Tx } from '../persistence/store.js';
import { recordDecision } from './activity.js';
import type { ServiceDeps } from './deps.js';
import { ServiceError, conflict, invalid, notFound } from './errors.js';
import { newId, newSecret } from './ids.js';
import { requireAgentIn, requireWorkspace, type AgentRoutines } from './org.js';
import type { TaskService } from './tasks.js';
import { appendWake, type WakeupService } from './wakeups.js';

export type FireSource = 'cron' | 'webhook' | 'manual';

export interface FireRequest {
  source: FireSource;
  triggerId: string | null;
  variables: Record<string, unknown>;
  scheduledFor?: number | null;
  deliveryId?: string | null;
  missedTicks?: { count: number; since: number } | null;
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
  ) {}

  // CRUD ---------------------------------------------------------------------------------------

  async create(body: z.output<typeof CreateRoutineBody>): Promise<{ routine: Routine; triggers: RoutineTrigger[] }> {
    const created = await this.deps.store.transaction(async (tx) => {
      const workspace = await requireWorkspace(tx, body.workspace_id);
      await requireAgentIn(tx, workspace.id, body.assignee_agent_instance_id, 'assignee_agent_instance_id');
      const now = this.deps.clock.now();
      const template = body.task_template ?? null;
      const routine: Routine = {
        id: newId('rtn'),
        workspace_id: workspace.id,
        name: body.name,
        description: body.description ?? '',
        assignee_agent_instance_id: body.assignee_agent_instance_id,
        owner_id: body.owner_id ?? 'workspace',
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
        created_at: now,
        updated_at: now,
      };
      await tx.routines.insert(routine);
      const triggers: RoutineTrigger[] = [];
      for (const [i, trigger] of (body.triggers ?? []).entries()) {
        triggers.push(await this.insertTrigger(tx, routine, workspace.timezone, trigger, `triggers.${i}`, now));
      }
      return { routine, triggers };
    });
    this.listener.routineChanged(created.routine.id);
    return created;
  }

  async update(id: string, body: z.output<typeof PatchRoutineBody>): Promise<Routine> {
    const routine = await this.deps.store.transaction(async (tx) => {
      const routine = await this.requireRoutine(tx, id);
      if (routine.status === 'archived') throw conflict(`routine '${id}' is archived; archived is terminal`);
      if (body.assignee_agent_instance_id) await requireAgentIn(tx, routine.workspace_id, body.assignee_agent_instance_id, 'assignee_agent_instance_id');
      const template = body.task_template === undefined ? routine.task_template : body.task_template;
      const declared = body.variables ?? (routine.variables as VariableDecl[]);
      const resuming = body.status === 'active' && routine.status === 'paused';
      await tx.routines.update(id, {
        ...body,
        ...(body.catch_up_max !== undefined ? { catch_up_max: body.catch_up_max || DEFAULT_CATCH_UP_MAX } : {}),
        task_template: template,
        variables: autoDeclare(declared, templateTexts(template)),
        ...(resuming ? { paused_reason: null, consecutive_failures: 0 } : {}),
        ...(body.status === 'paused' ? { paused_reason: 'paused by a person' } : {}),
        updated_at: this.deps.clock.now(),
      });
      if (resuming) await this.restartSchedules(tx, id, this.deps.clock.now());
      return (await tx.routines.get(id))!;
    });
    this.listener.routineChanged(id);
    return routine;
  }

  /** The assignee is gone: its routines pause with a reason rather than fail on every tick. */
  async pauseRoutinesOf(tx: Tx, agentId: string, now: number): Promise<void> {
    for (const routine of await tx.routines.list({ assignee: agentId })) {
      if (routine.status !== 'active') continue;
      const reason = 'paused because its assignee agent was deleted; assign another agent, then set it active';
      await tx.routines.update(routine.id, { status: 'paused', paused_reason: reason, updated_at: now });
      await recordDecision(tx, this.deps.log, {
        workspace_id: routine.workspace_id, code: 'routine_paused', routine_id: routine.id, agent_id: agentId, message: reason,
      }, now, 'warn');
      tx.afterCommit(() => this.listener.routineChanged(routine.id));
    }
  }

  /** A paused routine missed nothing on purpose: its schedules resume from the next tick after now. */
  private async restartSchedules(tx: Tx, routineId: string, now: number) {
    for (const trigger of await tx.routines.triggersOf(routineId)) {
      if (trigger.kind !== 'schedule' || !trigger.enabled) continue;
      await tx.routines.updateTrigger(trigger.id, { next_run_at: nextTick(trigger.cron_expression!, trigger.timezone ?? 'UTC', now), updated_at: now });
    }
  }

  async remove(id: string): Promise<void> {
    await this.deps.store.transaction(async (tx) => {
      await this.requireRoutine(tx, id);
      await tx.routines.delete(id);
    });
    this.listener.routineChanged(id);
  }

  async addTrigger(routineId: string, body: z.output<typeof TriggerBody>): Promise<RoutineTrigger> {
    const trigger = await this.deps.store.transaction(async (tx) => {
      const routine = await this.requireRoutine(tx, routineId);
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
      const now = this.deps.clock.now();
      const patch: Partial<RoutineTrigger> = { ...body, updated_at: now };
      if (trigger.kind === 'schedule' && (body.cron_expression || body.timezone || body.enabled === true)) {
        const expression = body.cron_expression ?? trigger.cron_expression!;
        const timezone = body.timezone ?? trigger.timezone ?? 'UTC';
        checkCron(expression, timezone, 'cron_expression');
        patch.next_run_at = nextTick(expression, timezone, now);
      }
      await tx.routines.updateTrigger(id, patch);
      return (await tx.routines.getTrigger(id))!;
    });
    this.listener.routineChanged(trigger.routine_id);
    return trigger;
  }

  async removeTrigger(id: string): Promise<void> {
    const trigger = await this.deps.store.transaction(async (tx) => {
      const trigger = await tx.routines.getTrigger(id);
      if (!trigger) throw notFound('routine trigger', id);
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

  /** The spec's heartbeat, installed in its own transaction: a failure flags the agent instead of undoing it. */
  async installHeartbeat(agent: Agent): Promise<void> {
    try {
      await this.create({
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
    } catch (error) {
      this.deps.log.warn({ err: error, agent_id: agent.id }, 'could not install the coordinator heartbeat routine');
      await this.deps.store.transaction(async (tx) => {
        const current = await tx.agents.get(agent.id);
        await tx.agents.update(agent.id, { warnings: [...(current?.warnings ?? []), 'heartbeat_routine_not_installed'] });
        await tx.activity.insert({
          workspace_id: agent.workspace_id, code: 'routine_install_failed', agent_id: agent.id,
          message: `could not install the coordinator heartbeat: ${(error as Error).message}`,
        }, this.deps.clock.now());
      });
    }
  }

  // Firing -------------------------------------------------------------------------------------

  /** Manual fire ("Run now") from a person. */
  fireManually(routineId: string, variables: Record<string, unknown>): Promise<FireResult> {
    return this.deps.store.transaction(async (tx) => {
      const routine = await this.requireRoutine(tx, routineId);
      const manual = (await tx.routines.triggersOf(routineId)).find((t) => t.kind === 'manual');
      return this.fireIn(tx, routine, { source: 'manual', triggerId: manual?.id ?? null, variables });
    });
  }

  async fireIn(tx: Tx, routine: Routine, request: FireRequest): Promise<FireResult> {
    const now = this.deps.clock.now();
    if (routine.status !== 'active') throw conflict(`routine '${routine.id}' is ${routine.status}; it fires only when active`);
    if (request.deliveryId && request.triggerId) {
      const earlier = await tx.routines.runByDelivery(request.triggerId, request.deliveryId);
      if (earlier) return { routineRun: earlier, created: false };
    }
    const workspace = (await tx.workspaces.get(routine.workspace_id))!;
    // A replayed tick is dated by its schedule, not by the replay: {{date}} is the day it was due.
    const firedFor = new Date(request.scheduledFor ?? now);
    const resolved = resolveVariables(routine.variables as VariableDecl[], request.variables, firedFor, workspace.timezone);
    if (!resolved.ok && request.source === 'cron') {
      // Nobody is there to answer a 400: the tick is recorded as failed, with the reason.
      return this.recordFailedFire(tx, routine, request, resolved.errors.map((e) => e.message).join('; '), now);
    }
    if (!resolved.ok) {
      const details = resolved.errors.map((e) => ({ path: `variables.${e.name}`, message: e.message }));
      throw new ServiceError('validation_error', details.map((d) => `${d.path}: ${d.message}`).join('; '), details);
    }
    const run: RoutineRun = {
      id: newId('rr'), routine_id: routine.id, trigger_id: request.triggerId, source: request.source, status: 'received',
      skip_reason: null, trigger_payload: resolved.values, linked_task_id: null, linked_wakeup_id: null,
      coalesced_into_run_id: null, dispatch_fingerprint: dispatchFingerprint(routine), scheduled_for: request.scheduledFor ?? null,
      delivery_id: request.deliveryId ?? null, outcome: null, delivery_status: 'none', error: null,
      unattended: request.source !== 'manual', on_behalf_of: routine.owner_id, started_at: now, completed_at: null,
    };
    // The UNIQUE keys make a repeated tick or delivery a no-op, whatever raced to get here.
    if (!(await tx.routines.insertRun(run))) {
      const earlier = request.deliveryId && request.triggerId ? await tx.routines.runByDelivery(request.triggerId, request.deliveryId) : undefined;
      return { routineRun: earlier ?? run, created: false };
    }
    const decided = await this.dispatch(tx, routine, run, request, now);
    await recordDecision(tx, this.deps.log, {
      workspace_id: routine.workspace_id, code: `routine_run_${decided.status}`, routine_id: routine.id,
      agent_id: routine.assignee_agent_instance_id, task_id: decided.linked_task_id, wakeup_id: decided.linked_wakeup_id,
      actor_type: 'routine', actor_id: routine.owner_id, unattended: run.unattended,
      message: `routine '${routine.name}' fired (${request.source}): ${decided.status}${decided.skip_reason ? ` (${decided.skip_reason})` : ''}`,
      details: { routine_run_id: run.id, scheduled_for: request.scheduledFor ?? null, on_behalf_of: routine.owner_id },
    }, now);
    return { routineRun: decided, created: true };
  }

  private async recordFailedFire(tx: Tx, routine: Routine, request: FireRequest, error: string, now: number): Promise<FireResult> {
    const run: RoutineRun = {
      id: newId('rr'), routine_id: routine.id, trigger_id: request.triggerId, source: request.source, status: 'failed',
      skip_reason: null, trigger_payload: {}, linked_task_id: null, linked_wakeup_id: null, coalesced_into_run_id: null,
      dispatch_fingerprint: dispatchFingerprint(routine), scheduled_for: request.scheduledFor ?? null, delivery_id: null,
      outcome: 'failed', delivery_status: 'none', error, unattended: true, on_behalf_of: routine.owner_id, started_at: now, completed_at: now,
    };
    const created = await tx.routines.insertRun(run);
    if (created) {
      await recordDecision(tx, this.deps.log, {
        workspace_id: routine.workspace_id, code: 'routine_run_failed', routine_id: routine.id, actor_type: 'routine',
        actor_id: routine.owner_id, unattended: true, message: `routine '${routine.name}' could not fire: ${error}`,
      }, now, 'warn');
      await this.countFailures(tx, routine, 'failed', now);
    }
    return { routineRun: run, created };
  }

  private async dispatch(tx: Tx, routine: Routine, run: RoutineRun, request: FireRequest, now: number): Promise<RoutineRun> {
    const settle = async (patch: Partial<RoutineRun>) => {
      await tx.routines.updateRun(run.id, patch);
      return { ...run, ...patch };
    };
    const cap = await this.capReached(tx, routine);
    if (cap) return settle({ status: 'skipped', skip_reason: cap, completed_at: now });

    const active = routine.concurrency_policy === 'always_enqueue' ? [] : await tx.routines.activeRuns(routine.id, run.dispatch_fingerprint);
    if (active.length > 0 && routine.concurrency_policy === 'skip_if_active') {
      return settle({ status: 'skipped', skip_reason: 'active_run', coalesced_into_run_id: null, completed_at: now });
    }
    if (active.length > 0) {
      const target = await this.coalesceTarget(tx, routine, active);
      if (target) {
        await this.foldIntoActive(tx, target, run, request, now);
        return settle({ status: 'coalesced', coalesced_into_run_id: target.id, completed_at: now });
      }
    }
    if (routine.task_template) {
      const task = await this.tasks.createTaskIn(tx, {
        workspace_id: routine.workspace_id,
        title: renderTemplate(routine.task_template.title, run.trigger_payload),
        description: withMissedNote(renderTemplate(routine.task_template.description ?? '', run.trigger_payload), request.missedTicks),
        assignee_agent_instance_id: routine.assignee_agent_instance_id,
      }, { type: 'system', id: routine.id }, { workflow: 'routine', origin: 'routine', origin_id: routine.id });
      return settle({ status: 'task_created', linked_task_id: task.id });
    }
    const outcome = await this.wakeups.enqueue(tx, {
      agent_id: routine.assignee_agent_instance_id,
      source: 'routine',
      reason: `routine '${routine.name}' (${request.source})`,
      payload: routinePayload(routine, run, request),
      idempotency_key: this.keyFor(routine, request),
      routine_run_id: run.id,
    }, now);
    if (outcome.kind === 'coalesced' || outcome.kind === 'merged_into_run') {
      // Folded into a wakeup that is already on its way: this fire's work is that wakeup's work.
      return settle({ status: 'coalesced', linked_wakeup_id: outcome.into.id, coalesced_into_run_id: outcome.into.routine_run_id, completed_at: now });
    }
    return settle({ status: 'dispatched', linked_wakeup_id: outcome.wakeup.id });
  }

  /**
   * Which active run a coalesced fire joins. A heavy run is its task, so the fire simply folds into
   * it. A lightweight fire joins an active run whose wakeup has not started; a session already
   * running could not see it, so with only running sessions active the fire is dispatched and waits.
   */
  private async coalesceTarget(tx: Tx, routine: Routine, active: RoutineRun[]): Promise<RoutineRun | undefined> {
    if (routine.task_template) return active[0];
    for (const candidate of active) {
      const wakeup = candidate.linked_wakeup_id ? await tx.wakeups.get(candidate.linked_wakeup_id) : undefined;
      if (wakeup && (wakeup.status === 'queued' || wakeup.status === 'scheduled_retry')) return candidate;
    }
    return undefined;
  }

  /** A coalesced fire still reaches the agent: its payload joins the waiting wakeup's context. */
  private async foldIntoActive(tx: Tx, active: RoutineRun, run: RoutineRun, request: FireRequest, now: number) {
    if (!active.linked_wakeup_id) return;
    const wakeup = await tx.wakeups.get(active.linked_wakeup_id);
    if (!wakeup || (wakeup.status !== 'queued' && wakeup.status !== 'scheduled_retry')) return;
    const routine = (await tx.routines.get(active.routine_id))!;
    await tx.wakeups.update(wakeup.id, {
      coalesced_count: wakeup.coalesced_count + 1,
      context_snapshot: appendWake(wakeup.context_snapshot, {
        wakeup_id: wakeup.id, source: 'routine', reason: `routine '${routine.name}' (${request.source}), coalesced`,
        payload: routinePayload(routine, run, request), requested_at: new Date(now).toISOString(),
      }),
    });
  }

  private keyFor(routine: Routine, request: FireRequest): string | null {
    if (request.source === 'cron' && request.triggerId && request.scheduledFor != null) return cronKey(routine.id, request.triggerId, request.scheduledFor);
    if (request.source === 'webhook' && request.triggerId && request.deliveryId) return webhookDeliveryKey(request.triggerId, request.deliveryId);
    return null;
  }

  /** Caps refuse rather than queue without bound: unattended work is the easiest way to overspend. */
  private async capReached(tx: Tx, routine: Routine): Promise<string | null> {
    if ((await tx.routines.countActiveRuns({})) >= this.deps.config.maxConcurrentRoutineRuns) return 'cap_reached';
    const agent = await tx.agents.get(routine.assignee_agent_instance_id);
    if (agent?.max_concurrent_routine_runs && (await tx.routines.countActiveRuns({ agent_id: agent.id })) >= agent.max_concurrent_routine_runs) {
      return 'cap_reached';
    }
    return null;
  }

  // Outcomes -----------------------------------------------------------------------------------

  /**
   * Called when a wakeup ends. A lightweight run is linked by wakeup; a heavy run by its task,
   * which auto-completes on success (the routine workflow's single step).
   */
  async recordOutcome(tx: Tx, wakeup: Wakeup, outcome: 'succeeded' | 'failed' | 'interrupted', now: number, sessionRan: boolean): Promise<void> {
    const run = wakeup.routine_run_id
      ? await tx.routines.getRun(wakeup.routine_run_id)
      : wakeup.task_id ? await tx.routines.runByTask(wakeup.task_id) : undefined;
    if (!run || run.outcome !== null || (run.status !== 'dispatched' && run.status !== 'task_created')) return;
    if (run.status === 'task_created' && wakeup.source === 'task_assigned' && outcome === 'succeeded' && sessionRan) {
      const task = await tx.tasks.get(run.linked_task_id!);
      if (task && task.state !== 'DONE') await this.tasks.moveTaskIn(tx, task.id, 'DONE', { type: 'system', id: run.routine_id }, null, true);
    }
    await tx.routines.updateRun(run.id, { outcome, completed_at: now });
    const routine = await tx.routines.get(run.routine_id);
    if (!routine) return;
    // "Failed runs in a row" means runs: a fire that never reached a session does not count.
    if (sessionRan || outcome === 'succeeded') await this.countFailures(tx, routine, outcome, now);
    if (routine.delivery) tx.afterCommit(() => void this.deliver(routine, run.id, outcome));
  }

  /** Failure stops rather than retries forever: after the limit the routine pauses itself. */
  private async countFailures(tx: Tx, routine: Routine, outcome: string, now: number) {
    const failures = outcome === 'succeeded' ? 0 : routine.consecutive_failures + 1;
    const pause = failures >= routine.consecutive_failure_limit && routine.status === 'active';
    const reason = `paused after ${failures} consecutive failed runs; fix the cause, then set it active again`;
    await tx.routines.update(routine.id, { consecutive_failures: failures, ...(pause ? { status: 'paused', paused_reason: reason } : {}), updated_at: now });
    if (pause) {
      await recordDecision(tx, this.deps.log, {
        workspace_id: routine.workspace_id, code: 'routine_auto_paused', routine_id: routine.id,
        agent_id: routine.assignee_agent_instance_id, message: reason, details: { consecutive_failures: failures },
      }, now, 'warn');
      tx.afterCommit(() => this.listener.routineChanged(routine.id));
    }
  }

  /** Delivery is recorded apart from the outcome: a failed post never turns success into failure. */
  private async deliver(routine: Routine, routineRunId: string, outcome: string): Promise<void> {
    let status: 'delivered' | 'failed' = 'failed';
    try {
      const response = await fetch(routine.delivery!.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ routine_id: routine.id, routine_run_id: routineRunId, outcome }),
        signal: AbortSignal.timeout(10_000),
      });
      status = response.ok ? 'delivered' : 'failed';
    } catch (error) {
      this.deps.log.warn({ err: error, routine_id: routine.id }, 'routine result delivery failed');
    }
    await this.deps.store.transaction((tx) => tx.routines.updateRun(routineRunId, { delivery_status: status }));
  }

  private async requireRoutine(tx: Tx, id: string): Promise<Routine> {
    const routine = await tx.routines.get(id);
    if (!routine) throw notFound('routine', id);
    return routine;
  }
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
