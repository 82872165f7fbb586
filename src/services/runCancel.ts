/**
 * Stopping a run in flight (API.md, "Governance": POST /api/office/runs/:id/cancel). The cancel is
 * recorded first, as a fenced close of the run (runs.close with status `cancelled`): from then on the
 * session's own result finds the run no longer running and is only kept as its late result, so a
 * result arriving after the cancel never makes it succeeded. After the commit the session is stopped
 * wherever it runs: here, or on the replica holding the agent (the stop is relayed to it).
 */
import type { Logger } from 'pino';
import { BOOTSTRAP_ADMIN_ID, actorFieldsOf, type ActorFields, type Principal } from '../domain/governance.js';
import type { ReasonCode } from '../domain/activityCodes.js';
import { OWNER_REVOKED_REASON, RUN_CANCELLED_REASON, cancelledError, mayCancelRun } from '../domain/runCancel.js';
import type { Routine } from '../domain/routines.js';
import type { Run, Wakeup } from '../domain/types.js';
import type { Clock } from '../domain/clock.js';
import type { RunObserver } from '../domain/runObserver.js';
import type { Fence, Store, Tx } from '../persistence/store.js';
import { recordDecision } from './activity.js';
import { conflict, forbidden, notFound } from './errors.js';
import type { RoutineOutcomes } from './routines/outcomes.js';
import type { WakeupService } from './wakeups.js';

export interface RunCancelDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  wakeups: WakeupService;
  /** A cancelled run's wakeup ends the routine run it carries. */
  routineOutcomes: Pick<RoutineOutcomes, 'recordOutcome'>;
  /** After commit: stop the run's session where it runs (this process, or the replica holding its agent). */
  stopSession: (run: Pick<Run, 'id' | 'agent_id'>) => void;
  /** Told of each cancelled run once the cancel commits (the run duration histogram). */
  observer: Pick<RunObserver, 'runEnded'>;
}

export class RunCancelService {
  constructor(private readonly deps: RunCancelDeps) {}

  /** Cancels a running run: 404 unknown, 403 not the caller's to stop, 409 already ended. Returns the run as cancelled. */
  async cancel(runId: string, principal: Principal, reason: string | null): Promise<Run> {
    return this.deps.store.transaction(async (tx) => {
      const run = await tx.runs.get(runId);
      if (!run) throw notFound('run', runId);
      const permission = mayCancelRun(principal, run, await this.routineOf(tx, run));
      if (!permission.allowed) throw forbidden(permission.reason);
      if (!isOpen(run)) throw alreadyEnded(run);
      const by = whoCancels(principal);
      const stopped = await this.stopIn(tx, run, { by, actor: actorFieldsOf(principal), reason, cancelReason: RUN_CANCELLED_REASON });
      if (!stopped) throw alreadyEnded((await tx.runs.get(run.id))!);
      return stopped;
    });
  }

  /**
   * Stops every running run done on behalf of `ownerId`, whose token `by` revoked, inside the
   * revocation's transaction: each ends `cancelled`, its wakeup `cancelled` (owner_revoked), and its
   * session is stopped after commit. A run that ended meanwhile is left as it ended.
   */
  async stopRunsOnBehalfOf(tx: Tx, ownerId: string, by: ActorFields): Promise<Run[]> {
    // At most the store's list limit at once: a token with more runs than that running is not a case this serves.
    const running = [
      ...await tx.runs.list({ on_behalf_of: ownerId, status: 'queued', limit: 1000 }),
      ...await tx.runs.list({ on_behalf_of: ownerId, status: 'running', limit: 1000 }),
    ];
    const stopped: Run[] = [];
    for (const run of running) {
      const ended = await this.stopIn(tx, run, {
        by: `token ${by.actor_id}`, actor: by, reason: `it ran on behalf of ${ownerId}, whose token was revoked`, cancelReason: OWNER_REVOKED_REASON,
      });
      if (ended) stopped.push(ended);
    }
    return stopped;
  }

  /** The cancel itself, on a run read as running; null when it had ended by the time it was closed. */
  private async stopIn(tx: Tx, run: Run, why: { by: string; actor: ActorFields; reason: string | null; cancelReason: ReasonCode }): Promise<Run | null> {
    const now = this.deps.clock.now();
    const ended = { status: 'cancelled' as const, result_json: run.result_json, error: cancelledError(why.by, why.reason), cost_usd: null, finished_at: now };
    // The agent's holder's fence, whoever that is: a person's cancel is not the owner's act, but a
    // close under a fence that moved on (the agent changing hands) would race the new owner's recovery.
    const fence = await holderFence(tx, run.agent_id);
    const closed = fence ? await tx.runs.close(run.id, ended, null, fence) : null;
    if (!closed?.closed) {
      const current = await tx.runs.get(run.id);
      if (current && !isOpen(current)) return null;
      // Thrown: the transaction rolls back, so the refused close leaves nothing behind.
      throw conflict(`run '${run.id}' cannot be cancelled while its agent '${run.agent_id}' changes hands between replicas; try again in a few seconds`);
    }
    this.deps.wakeups.offerToCheckoutWaiters(tx, closed.checkoutWaiters);
    tx.emit('run.finished', { run_id: run.id, wakeup_id: run.wakeup_id, agent_id: run.agent_id, task_id: run.task_id, status: 'cancelled', cost_usd: null });
    await this.endWakeup(tx, run, why, now);
    tx.afterCommit(() => {
      this.deps.stopSession(run);
      this.deps.observer.runEnded({ ...run, ...ended });
    });
    return { ...run, ...ended };
  }

  /**
   * The run's wakeup ends `cancelled` (run_cancelled, or owner_revoked): no retry, no escalation, and
   * its routine run's outcome is `cancelled`, which a routine does not count as a failed run.
   */
  private async endWakeup(tx: Tx, run: Run, why: { by: string; actor: ActorFields; reason: string | null; cancelReason: ReasonCode }, now: number) {
    // Only while the wakeup is still this run's and claimed: one that ended meanwhile (its failure
    // handled, a retry scheduled) keeps the end it had, and its routine run is not settled twice.
    const cancelled = await tx.wakeups.endClaimed(run.wakeup_id, { status: 'cancelled', cancel_reason: why.cancelReason, finished_at: now }, run.id);
    if (cancelled) await this.deps.routineOutcomes.recordOutcome(tx, cancelled, 'cancelled', now, false);
    // For the record only; nothing is decided on it.
    const before = cancelled ? 'claimed' : (await tx.wakeups.get(run.wakeup_id))?.status ?? null;
    await recordDecision(tx, this.deps.log, {
      workspace_id: run.workspace_id, code: 'run_cancelled', agent_id: run.agent_id, task_id: run.task_id, wakeup_id: run.wakeup_id,
      run_id: run.id, routine_id: run.routine_id, ...why.actor, unattended: run.unattended, on_behalf_of: run.on_behalf_of,
      message: `run cancelled by ${why.by}${why.reason ? `: ${why.reason}` : ''}; its session is stopped and its wakeup ends cancelled (${why.cancelReason}), not retried`,
      details: { reason: why.reason, by: why.by, cancel_reason: why.cancelReason, wakeup_status_before: before },
    }, now, 'warn');
  }

  /**
   * The routine that caused the run: through its wakeup's routine run, else the routine its wakeup
   * named, else the routine whose task it works on (a later wakeup of a heavy routine's task).
   */
  private async routineOf(tx: Tx, run: Run): Promise<Routine | null> {
    const wakeup: Wakeup | undefined = await tx.wakeups.get(run.wakeup_id);
    const routineRun = wakeup?.routine_run_id ? await tx.routines.getRun(wakeup.routine_run_id)
      : run.routine_id === null && run.task_id ? await tx.routines.runByTask(run.task_id) : undefined;
    const routineId = routineRun?.routine_id ?? run.routine_id;
    return routineId ? (await tx.routines.get(routineId)) ?? null : null;
  }
}

/** Who stopped a run, as its error and the activity say it: the admin (the bootstrap token, or no token at all), a named token, an agent. */
function whoCancels(principal: Principal): string {
  if (principal.kind !== 'user') return `agent ${principal.agentId}`;
  return principal.tokenId === BOOTSTRAP_ADMIN_ID ? 'the admin' : `token ${principal.tokenId}`;
}

/** A run not ended yet: running, or queued (claimed, its session about to start, which the cancel then keeps from starting). */
const isOpen = (run: Run) => run.status === 'running' || run.status === 'queued';

function alreadyEnded(run: Run) {
  return conflict(`run '${run.id}' already ended ${run.status}; only a running (or starting) run can be cancelled`);
}

async function holderFence(tx: Tx, agentId: string): Promise<Fence | undefined> {
  const lease = await tx.leases.leaseOf(agentId);
  return lease ? { owner_id: lease.owner_id, epoch: lease.epoch } : undefined;
}
