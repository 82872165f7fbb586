/**
 * Where a recorded fire goes. The caps come first: the run takes its slot under the deployment's
 * and its agent's caps, or is skipped. Then the concurrency policy, judged against the routine's
 * active runs: skip, fold into an active run's wakeup, or go on. Last, a heavy routine creates its
 * task and a lightweight one enqueues a taskless `routine` wakeup. The decision is logged; the
 * run's outcome is settled later, when that work ends (outcomes.ts).
 */
import type { ReasonCode } from '../../domain/activityCodes.js';
import { cronKey, webhookDeliveryKey } from '../../domain/idempotency.js';
import { missedTicksLine } from '../../domain/prompt.js';
import { provenanceOf } from '../../domain/provenance.js';
import type { MissedTicks, Routine, RoutineRun } from '../../domain/routines.js';
import { renderTemplate } from '../../domain/templates.js';
import type { Agent, Wakeup } from '../../domain/types.js';
import type { RunRoute, Tx } from '../../persistence/store.js';
import { recordDecision } from '../activity.js';
import type { ServiceDeps } from '../deps.js';
import type { TaskService } from '../tasks.js';
import type { EnqueueRequest, WakeupService } from '../wakeups.js';
import { assigneeProblemOf } from './catalogue.js';
import { HEAVY_ROUTINE_WORKFLOW, fireActorOf, type RoutineOutcomes } from './outcomes.js';

export type FireSource = 'cron' | 'webhook' | 'manual';

/** One fire, as firing.ts records it and this file routes it. */
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

/** What a batch of cron fires found out for one of them, so that its dispatch need not ask again. */
export interface Prefetched {
  /** Its cap slot is taken (which also proved its assignee live). */
  slotTaken: boolean;
  /** Its routine's active runs, when the batch read them. */
  active?: RoutineRun[] | undefined;
}

export class RoutineRouting {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly wakeups: WakeupService,
    private readonly tasks: TaskService,
    private readonly outcomes: Pick<RoutineOutcomes, 'failRun'>,
  ) {}

  /** A recorded run goes to its agent, or fails when it cannot reach it; the decision is logged. */
  async dispatchRecorded(
    tx: Tx, routine: Routine, run: RoutineRun, request: FireRequest, now: number, prefetched: Prefetched = { slotTaken: false },
  ): Promise<RoutineRun> {
    // A fire that cannot reach its agent is a failed run, counted like one, never an error that
    // rolls the tick back (a trigger would retry it for ever). A slot granted already proved the
    // assignee live, in this transaction.
    const agent = prefetched.slotTaken ? null : await tx.agents.get(routine.assignee_agent_instance_id);
    const problem = prefetched.slotTaken ? null : assigneeProblemOf(routine, agent ?? undefined);
    if (problem) return this.outcomes.failRun(tx, routine, run, `cannot dispatch: ${problem}`, now);
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

  /**
   * The caps come first (a fire at a cap is skipped whatever else holds): the run takes its slot,
   * and gives it back at once when it ends skipped or coalesced instead of reaching its agent.
   */
  private async dispatch(
    tx: Tx, routine: Routine, agent: Agent | null, run: RoutineRun, request: FireRequest, now: number, prefetched: Prefetched,
  ): Promise<RoutineRun & Pick<RunRoute, 'status'>> {
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
    const skip = async (reason: ReasonCode) => {
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
      }, { type: 'system', id: routine.id, provenance: provenanceOf(run) }, { workflow: HEAVY_ROUTINE_WORKFLOW, origin: 'routine', origin_id: routine.id });
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
  private takeSlot(tx: Tx, run: RoutineRun, agent: Agent): Promise<boolean> {
    return tx.routines.takeRunSlot(run.id, agent.id, {
      deployment: this.deps.config.maxConcurrentRoutineRuns,
      agent: agent.max_concurrent_routine_runs || null,
    });
  }
}

/** Notes carried from skipped ticks add up: the count sums, the earliest `since` stays. */
function combineMissed(carried: MissedTicks | null, fresh: MissedTicks | null): MissedTicks | null {
  const notes = [carried, fresh].filter((note): note is MissedTicks => note !== null && note.count > 0);
  if (notes.length === 0) return null;
  return { count: notes.reduce((sum, note) => sum + note.count, 0), since: Math.min(...notes.map((note) => note.since)) };
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
