/**
 * The routines and their triggers as people and the organisation write them: create (with the
 * coordinator's heartbeat), edit, pause, resume, hand to a new owner, archive; add, edit and remove
 * triggers. Every write is validated here (a live owner, a live assignee, a valid cron expression)
 * and tells the change listener after commit, so the trigger actors follow the rows.
 */
import type { z } from 'zod';
import { nextFireAfter, validateCron } from '../../domain/cron.js';
import { DEFAULT_CATCH_UP_MAX, DEFAULT_CONSECUTIVE_FAILURE_LIMIT, type Routine, type RoutineTrigger } from '../../domain/routines.js';
import type { CreateRoutineBody, PatchRoutineBody, PatchTriggerBody, TriggerBody } from '../../domain/schemas.js';
import { autoDeclare, type VariableDecl } from '../../domain/templates.js';
import type { Agent } from '../../domain/types.js';
import type { Tx } from '../../persistence/store.js';
import {
  BOOTSTRAP_ADMIN_ID, REVOKED_OWNER_PAUSE_REASON, ownerHandOver, ownerRefusal, type ActorFields, type ApiToken,
} from '../../domain/governance.js';
import { recordDecision } from '../activity.js';
import type { ServiceDeps } from '../deps.js';
import { conflict, invalid, notFound } from '../errors.js';
import { newId, newSecret } from '../ids.js';
import { requireAgentIn, requireWorkspace, type AgentRoutines } from '../org.js';
import type { RoutineChangeListener } from './changes.js';
import type { RoutineOutcomes } from './outcomes.js';

/** The spec's pre-installed routine for a new coordinator, exactly. */
export const COORDINATOR_HEARTBEAT = {
  name: 'Coordinator heartbeat',
  description: 'Wakes the coordinator every 5 minutes to check workspace activity, react to errors and budget signals, and decide what to do next.',
  cron_expression: '*/5 * * * *',
} as const;

export class RoutineCatalogue implements AgentRoutines {
  constructor(
    private readonly deps: ServiceDeps,
    /** Deleting an assignee ends the open runs of its routines. */
    private readonly outcomes: Pick<RoutineOutcomes, 'cancelOpenRuns'>,
    private readonly listener: RoutineChangeListener,
  ) {}

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
      const routine = await requireRoutine(tx, id);
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
    for (const routine of await tx.routines.list({ assignee: agentId, include_archived: true })) await this.outcomes.cancelOpenRuns(tx, routine, now);
    const reason = 'paused because its assignee agent was deleted; assign another agent, then set it active';
    // One statement: only the routines active when it runs pause, never one archived or paused meanwhile.
    for (const routine of await tx.routines.pauseActiveOf(agentId, reason, now)) {
      await recordDecision(tx, this.deps.log, {
        workspace_id: routine.workspace_id, code: 'routine_paused', routine_id: routine.id, agent_id: agentId, message: reason, ...by,
      }, now, 'warn');
      tx.afterCommit(() => this.listener.routineChanged(routine.id));
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
      const routine = await requireRoutine(tx, id);
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
      const routine = requireNotArchived(await requireRoutine(tx, routineId));
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
      requireNotArchived(await requireRoutine(tx, trigger.routine_id));
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
      requireNotArchived(await requireRoutine(tx, trigger.routine_id));
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
}

/** The routine with this id, archived or not, or a 404 naming it. */
export async function requireRoutine(tx: Tx, id: string): Promise<Routine> {
  const routine = await tx.routines.get(id);
  if (!routine) throw notFound('routine', id);
  return routine;
}

/** Why a fire of this routine cannot reach its assignee, or null when it can. */
export function assigneeProblemOf(routine: Routine, agent: Agent | undefined): string | null {
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

function requireNotArchived(routine: Routine): Routine {
  if (routine.status === 'archived') throw conflict(`routine '${routine.id}' is archived; its triggers cannot change`);
  return routine;
}
