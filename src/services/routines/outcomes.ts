/**
 * How a routine run ends, once its fire is recorded. A run that reached its agent is settled when
 * its own wakeup ends: every path that ends a wakeup calls recordOutcome. A fire that could not
 * reach its agent fails at once, and the open runs of a deleted assignee end cancelled. Each end is
 * settled once, schedules the routine's result delivery, and counts toward its limit of failed runs
 * in a row, at which the routine pauses itself.
 *
 * A service of its own because the wakeup service calls it, and the other routine services depend
 * on the wakeup service: this one depends on no other service (the transaction, the result
 * deliveries and the change listener), so the wakeup service can take it at construction.
 */
import { provenanceOf, type Provenance } from '../../domain/provenance.js';
import type { Routine, RoutineRun, RoutineRunOutcome } from '../../domain/routines.js';
import { TERMINAL_TASK_STATES, type Wakeup } from '../../domain/types.js';
import type { Tx } from '../../persistence/store.js';
import { recordDecision } from '../activity.js';
import type { DeliveryService } from '../delivery.js';
import type { ServiceDeps } from '../deps.js';
import { ServiceError } from '../errors.js';
import { raiseInboxItem } from '../inbox.js';
import { moveTaskWithin } from '../tasks.js';
import type { RoutineChangeListener } from './changes.js';

/** The workflow of a heavy routine's task: the fire that creates the task writes it, and its outcome reads it. */
export const HEAVY_ROUTINE_WORKFLOW = 'routine';

/** Why a routine paused itself; `{n}` is the number of failed runs in a row. */
const AUTO_PAUSE_REASON = 'paused after {n} consecutive failed runs; fix the cause, then set it active again';

/**
 * Who an entry about a fire names: a manual fire is the act of the person who fired it (its run is on
 * their behalf), a cron or webhook fire its routine's.
 */
export function fireActorOf(routine: Pick<Routine, 'owner_id'>, run: Pick<RoutineRun, 'source' | 'on_behalf_of'>) {
  return run.source === 'manual' && run.on_behalf_of !== null
    ? { actor_type: 'user' as const, actor_id: run.on_behalf_of }
    : { actor_type: 'routine' as const, actor_id: routine.owner_id };
}

export class RoutineOutcomes {
  constructor(
    private readonly deps: ServiceDeps,
    /** Result deliveries: recorded with the outcome they report, made after commit, retried until they end. */
    private readonly deliveries: Pick<DeliveryService, 'scheduleIn'>,
    private readonly listener: RoutineChangeListener,
  ) {}

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
   * The assignee is gone: every routine run of this routine that is still open ends `cancelled`,
   * except one whose own wakeup is claimed (its running session ends it on its own).
   */
  async cancelOpenRuns(tx: Tx, routine: Routine, now: number): Promise<void> {
    for (const run of await tx.routines.openRunsOf(routine.id)) {
      const ownId = await this.ownWakeupIdOf(tx, run);
      if (ownId && (await tx.wakeups.get(ownId))?.status === 'claimed') continue;
      await this.settleRun(tx, routine, run, 'cancelled', now, false);
    }
  }

  /**
   * A recorded fire that cannot reach its agent (or a tick that could not fire) ends `failed` with
   * the reason, and counts like a failed run toward the routine's limit.
   */
  async failRun(tx: Tx, routine: Routine, run: RoutineRun, error: string, now: number): Promise<RoutineRun> {
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
   * The routine workflow's single step: the task is done when a routine session on it succeeds,
   * unless a fire coalesced into it still waits to run (that one completes it in turn).
   */
  private async completeRoutineTask(tx: Tx, ended: Wakeup, routineId: string) {
    const task = await tx.tasks.get(ended.task_id!);
    if (!task || task.workflow !== HEAVY_ROUTINE_WORKFLOW || TERMINAL_TASK_STATES.includes(task.state)) return;
    const fireWaiting = (await tx.wakeups.openForTask(task.id)).some((w) => w.id !== ended.id && w.source === 'routine');
    if (fireWaiting) return;
    try {
      await moveTaskWithin(tx, this.deps, task.id, 'DONE', { type: 'system', id: routineId, provenance: provenanceOf(ended) }, null, true);
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
}
