import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ReasonCode } from '../domain/activityCodes.js';
import { HELD_FOR_COALESCING, parseWakeupPayload, taskIdOf, type WakeupSource } from '../domain/wakeupSources.js';
import type { ActorFields } from '../domain/governance.js';
import { ATTENDED, CAP_REACHED, needsCapSlot, type Provenance } from '../domain/provenance.js';
import type { Agent, Wakeup } from '../domain/types.js';
import type { CheckoutWaiter, FoldRule, Tx } from '../persistence/store.js';
import type { WakeupTracing } from '../telemetry/tracing.js';
import { recordDecision } from './activity.js';
import type { WakeupNotifier } from './deps.js';
import { notFound } from './errors.js';
import { newId } from './ids.js';
import type { RoutineOutcomes } from './routines/outcomes.js';

export interface EnqueueRequest {
  agent_id: string;
  source: WakeupSource;
  reason?: string;
  payload: unknown;
  idempotency_key?: string | null;
  /** Not before this time (a delayed self-wake, a deferral to the next day). */
  not_before?: number;
  routine_run_id?: string | null;
  recovered?: boolean;
  /** What caused the request (a routine fire, or unattended work's follow-on); absent: attended. */
  provenance?: Provenance;
}

export type EnqueueOutcome =
  | { kind: 'queued'; wakeup: Wakeup }
  | { kind: 'duplicate'; wakeup: Wakeup }
  /** Merged into a queued wakeup of the same source inside the coalescing window. */
  | { kind: 'coalesced'; wakeup: Wakeup; into: Wakeup }
  /** Merged into a run that has not started yet (claim-time merge). */
  | { kind: 'merged_into_run'; wakeup: Wakeup; into: Wakeup }
  /**
   * Follow-on work of an unattended run at a routine-run cap: stored `skipped` with skip_reason
   * `cap_reached` and logged, never queued (caps refuse rather than truncate in silence).
   */
  | { kind: 'refused'; wakeup: Wakeup };

/** An event's request for an agent that no longer exists: nothing is written but the reason. */
export interface SkippedEnqueue {
  kind: 'skipped';
  reason: 'agent_deleted';
}

/** One entry per request folded into a wakeup: merged, never overwritten. */
export interface WakeContext {
  wakes: { wakeup_id: string; source: string; reason: string; payload: Record<string, unknown>; requested_at: string }[];
  [key: string]: unknown;
}

/** The routine-run caps a slot is taken under: the deployment's, and the agent's own (null: none). */
type RoutineRunCaps = { deployment: number; agent: number | null };

/**
 * Persists wakeup requests: idempotency, the coalescing window and the claim-time merge, all in
 * the caller's transaction. The agent actor hears about a queued wakeup only after commit.
 */
export class WakeupService {
  constructor(
    private readonly config: Config,
    private readonly log: Logger,
    private readonly notifier: WakeupNotifier,
    /** The wakeups it cancels end the routine runs they carry. */
    private readonly routineOutcomes: Pick<RoutineOutcomes, 'recordOutcome'>,
    /** Each request's enqueue span, the root of its wakeup's trace. */
    private readonly tracing: Pick<WakeupTracing, 'enqueue'>,
  ) {}

  async enqueue(tx: Tx, request: EnqueueRequest, now: number): Promise<EnqueueOutcome> {
    const outcome = await this.store(tx, request, now);
    if (outcome.kind === 'agent_gone') throw notFound('agent', request.agent_id);
    return outcome;
  }

  /**
   * The enqueue of an event subscriber. A deleted (or unknown) agent is not an error here: the
   * event's other wakeups must still be written, so its request is skipped with a reason instead of
   * failing the subscriber's whole transaction (and blocking the event in the outbox). Callers that
   * answer a person (the wake route) keep the 404 of `enqueue`.
   */
  async enqueueForEvent(tx: Tx, request: EnqueueRequest, now: number): Promise<EnqueueOutcome | SkippedEnqueue> {
    const outcome = await this.store(tx, request, now);
    if (outcome.kind !== 'agent_gone') return outcome;
    const agent = await tx.agents.get(request.agent_id);
    const taskId = taskIdOf(parseWakeupPayload(request.source, request.payload));
    const message = `skipped: agent ${request.agent_id} ${agent ? 'was deleted' : 'does not exist'}; no ${request.source} wakeup is written`;
    const details = { reason: 'agent_deleted', source: request.source, idempotency_key: request.idempotency_key ?? null };
    if (agent) {
      await recordDecision(tx, this.log, {
        workspace_id: agent.workspace_id, code: 'wakeup_skipped_agent_deleted', agent_id: agent.id, task_id: taskId, message, details,
        ...(request.provenance ?? ATTENDED),
      }, now);
    } else {
      const audit = request.provenance ?? ATTENDED;
      tx.afterCommit(() => this.log.info({ code: 'wakeup_skipped_agent_deleted', agent_id: request.agent_id, task_id: taskId, ...details, ...audit }, message));
    }
    return { kind: 'skipped', reason: 'agent_deleted' };
  }

  /**
   * Idempotency, the coalescing window, the claim-time merge and the routine-run slot, decided by
   * one store operation. The rule of what may fold is stated here; the store applies it atomically.
   *
   * Caps that compose: unattended follow-on work (a subtask's assignment, a comment or a move that
   * wakes another agent, an escalation, a self-wake) takes a slot under the deployment's cap and the
   * woken agent's max_concurrent_routine_runs, as a fire does, and holds it until the wakeup ends;
   * at either cap the store keeps it refused, and here it is recorded as such.
   */
  private async store(tx: Tx, request: EnqueueRequest, now: number): Promise<EnqueueOutcome | { kind: 'agent_gone' }> {
    const payload = parseWakeupPayload(request.source, request.payload);
    const span = this.tracing.enqueue(request);
    const wakeup = this.newWakeup(request, payload, request.idempotency_key ?? null, now, span.traceContext);
    const result = await tx.wakeups.enqueueOrFold(wakeup, this.foldRuleFor(wakeup, now), now - this.config.idempotencyWindowMs,
      { deploymentCap: this.config.maxConcurrentRoutineRuns });
    span.decided(enqueueDecisionOf(result), (end) => tx.afterCommit(end));
    switch (result.kind) {
      case 'queued':
        tx.afterCommit(() => this.notifier.wakeupQueued(wakeup.agent_id, wakeup.id, wakeup.available_at));
        this.log.debug({ wakeup_id: wakeup.id, agent_id: wakeup.agent_id, source: wakeup.source }, 'wakeup queued');
        return result;
      case 'refused':
        await this.recordRefusal(tx, result.wakeup, result.caps, now);
        return { kind: 'refused', wakeup: result.wakeup };
      case 'folded':
        await this.recordFold(tx, result.wakeup, result.into, now);
        return { kind: result.via === 'window' ? 'coalesced' : 'merged_into_run', wakeup: result.wakeup, into: result.into };
      default:
        return result;
    }
  }

  /**
   * The slot of a wakeup that goes back to the queue on its own (requeueFolded), as at its enqueue:
   * null when it holds one now, else the caps that were full.
   */
  private async takeCapSlot(tx: Tx, wakeup: Wakeup): Promise<RoutineRunCaps | null> {
    const agent = await tx.agents.get(wakeup.agent_id);
    const caps = { deployment: this.config.maxConcurrentRoutineRuns, agent: agent?.max_concurrent_routine_runs || null };
    return (await tx.routines.takeWakeupSlot(wakeup.id, wakeup.agent_id, caps)) ? null : caps;
  }

  /** At a cap the wakeup is stored skipped, with the reason and an activity entry: refused, never silently dropped. */
  private async recordRefusal(tx: Tx, wakeup: Wakeup, caps: RoutineRunCaps, now: number): Promise<void> {
    await recordDecision(tx, this.log, {
      workspace_id: wakeup.workspace_id, code: 'wakeup_cap_reached', agent_id: wakeup.agent_id, task_id: wakeup.task_id,
      wakeup_id: wakeup.id, unattended: wakeup.unattended, on_behalf_of: wakeup.on_behalf_of,
      message: `refused at a routine-run cap (deployment ${caps.deployment}, agent ${caps.agent ?? 'none'}): `
        + `unattended follow-on work (${wakeup.source}) counts against the caps like a routine fire`,
      details: { reason: CAP_REACHED, source: wakeup.source, caps },
    }, now, 'warn');
  }

  /**
   * What a new request may fold into. A deferred wakeup keeps its own time: folding it into an
   * earlier one would run it early. A run waiting for its retry may wait hours and may still be
   * cancelled, so only work on the same task (or taskless work on a taskless run) rides along with a
   * run; inside the window, aggregate sources and taskless requests fold whatever the task.
   */
  private foldRuleFor(wakeup: Wakeup, now: number): FoldRule | null {
    const window = this.config.coalesceWindowMs;
    if (wakeup.available_at > now + window) return null;
    return { windowSince: window > 0 ? now - window : null, anyTask: HELD_FOR_COALESCING.has(wakeup.source) || wakeup.task_id === null };
  }

  /**
   * A wakeup that ends without a run takes no one with it: requests folded into it that its last
   * session did not carry go back to the queue on their own. What a session carried is read from its
   * context, not from times: a request can fold into a retry in the millisecond its failed run started.
   */
  async requeueFolded(tx: Tx, target: Wakeup, now: number): Promise<void> {
    const lastRun = target.run_id ? await tx.runs.get(target.run_id) : undefined;
    const carried = lastRun && SESSION_STARTED.has(lastRun.status) ? wakeIdsOf(lastRun.context_snapshot) : [];
    for (const folded of await tx.wakeups.unfold(target.id, carried, now)) {
      // Back on its own, unattended follow-on work needs its own slot under the caps, as at its enqueue.
      const full = needsCapSlot(folded) ? await this.takeCapSlot(tx, folded) : null;
      if (full) {
        // Queued a moment ago by the unfold in this transaction: nothing else can have moved it since.
        await this.recordRefusal(tx, (await tx.wakeups.refuse(folded.id, CAP_REACHED, now))!, full, now);
        continue;
      }
      tx.afterCommit(() => this.notifier.wakeupQueued(folded.agent_id, folded.id, folded.available_at));
    }
  }

  /**
   * Frees the task if `wakeupId` holds it, and offers it to the wakeups parked behind that checkout
   * (pinned: checkout conflicts wait): their agent actors hear of them again after commit, so the
   * wait needs no polling. Every release of a checkout goes through here.
   */
  async releaseCheckout(tx: Tx, taskId: string, wakeupId: string): Promise<void> {
    this.offerToCheckoutWaiters(tx, await tx.tasks.releaseCheckout(taskId, wakeupId));
  }

  /** The wakeups parked behind a checkout that was just released: their agent actors hear of them again after commit. */
  offerToCheckoutWaiters(tx: Tx, waiters: readonly CheckoutWaiter[] | null): void {
    for (const waiter of waiters ?? []) {
      tx.afterCommit(() => this.notifier.wakeupQueued(waiter.agent_id, waiter.id, waiter.available_at));
    }
  }

  /** Cancels every queued or waiting wakeup of an agent (it was deleted), releasing their checkouts. `by`: the person who deleted it. */
  async cancelOpenFor(tx: Tx, agent: Agent, reason: ReasonCode, now: number, by?: ActorFields): Promise<void> {
    // One statement: a wakeup claimed meanwhile (its run about to start) is not cancelled under it; it finishes on its own.
    for (const wakeup of await tx.wakeups.cancelUnclaimedOf(agent.id, reason, now)) {
      if (wakeup.task_id) await this.releaseCheckout(tx, wakeup.task_id, wakeup.id);
      await this.routineOutcomes.recordOutcome(tx, wakeup, 'cancelled', now, false);
      await recordDecision(tx, this.log, {
        workspace_id: wakeup.workspace_id, code: 'wakeup_cancelled', agent_id: agent.id, task_id: wakeup.task_id,
        wakeup_id: wakeup.id, unattended: wakeup.unattended, on_behalf_of: wakeup.on_behalf_of, ...by,
        message: `cancelled: ${reason}`, details: { reason },
      }, now);
    }
  }

  /**
   * Cancels the wakeups done on `ownerId`'s behalf that have not been claimed (queued, or waiting for
   * a retry), in one statement: its token was revoked. Each releases its checkout, puts back what was
   * folded into it, ends its routine run, and gets an activity entry; its agent actor forgets it.
   */
  async cancelOnBehalfOf(tx: Tx, ownerId: string, reason: ReasonCode, now: number, by: ActorFields): Promise<Wakeup[]> {
    const cancelled = await tx.wakeups.cancelOnBehalfOf(ownerId, reason, now);
    for (const wakeup of cancelled) {
      if (wakeup.task_id) await this.releaseCheckout(tx, wakeup.task_id, wakeup.id);
      await this.requeueFolded(tx, wakeup, now);
      await this.routineOutcomes.recordOutcome(tx, wakeup, 'cancelled', now, false);
      await recordDecision(tx, this.log, {
        workspace_id: wakeup.workspace_id, code: 'wakeup_cancelled', agent_id: wakeup.agent_id, task_id: wakeup.task_id,
        wakeup_id: wakeup.id, unattended: wakeup.unattended, on_behalf_of: wakeup.on_behalf_of, ...by,
        message: `cancelled: ${reason}: it was done on behalf of ${ownerId}, whose token was revoked`, details: { reason, revoked_token_id: ownerId },
      }, now, 'warn');
      tx.afterCommit(() => this.notifier.wakeupWithdrawn(wakeup.agent_id, wakeup.id));
    }
    return cancelled;
  }

  /**
   * Folds a new request into `target`, a wakeup that has not started (queued, or waiting for its
   * retry), by the same rule as the coalescing window: one run sees both. Returns the stored
   * request, or null when the target started or ended meanwhile.
   */
  async foldRequestInto(tx: Tx, request: EnqueueRequest, target: Wakeup, now: number): Promise<Wakeup | null> {
    const payload = parseWakeupPayload(request.source, request.payload);
    const span = this.tracing.enqueue(request);
    const wakeup = this.newWakeup(request, payload, request.idempotency_key ?? null, now, span.traceContext);
    const folded = await tx.wakeups.foldInto(wakeup, target.id, target.status === 'scheduled_retry' ? target.run_id : null);
    span.decided(folded ? { kind: 'folded', ...folded } : { kind: 'not_folded' }, (end) => tx.afterCommit(end));
    if (!folded) return null;
    await this.recordFold(tx, folded.wakeup, folded.into, now);
    return folded.wakeup;
  }

  /** `traceContext`: its enqueue span's, while tracing is on (absent, the row is written without the column). */
  private newWakeup(request: EnqueueRequest, payload: Record<string, unknown>, key: string | null, now: number, traceContext: string | undefined): Wakeup {
    const id = newId('wk');
    const reason = request.reason ?? request.source;
    const hold = HELD_FOR_COALESCING.has(request.source) ? this.config.coalesceWindowMs : 0;
    const provenance = request.provenance ?? ATTENDED;
    return {
      id,
      // The store fills in the agent's workspace as it checks that the agent is live.
      workspace_id: '',
      agent_id: request.agent_id,
      source: request.source,
      reason,
      payload,
      task_id: taskIdOf(payload),
      status: 'queued',
      cancel_reason: null,
      skip_reason: null,
      coalesced_count: 1,
      coalesced_into_id: null,
      idempotency_key: key,
      retry_count: 0,
      scheduled_retry_at: null,
      available_at: Math.max(now + hold, request.not_before ?? 0),
      context_snapshot: { wakes: [wakeEntry(id, request.source, reason, payload, now)] } satisfies WakeContext,
      run_id: null,
      routine_run_id: request.routine_run_id ?? null,
      waiting_on_checkout: null,
      recovered: request.recovered ?? false,
      error: null,
      requested_at: now,
      claimed_at: null,
      finished_at: null,
      unattended: provenance.unattended,
      on_behalf_of: provenance.on_behalf_of,
      ...(traceContext ? { trace_context: traceContext } : {}),
    };
  }

  private recordFold(tx: Tx, wakeup: Wakeup, into: Wakeup, now: number) {
    const runId = wakeup.run_id;
    return recordDecision(tx, this.log, {
      workspace_id: wakeup.workspace_id,
      code: 'wakeup_coalesced',
      agent_id: wakeup.agent_id,
      task_id: wakeup.task_id,
      wakeup_id: wakeup.id,
      run_id: runId,
      unattended: wakeup.unattended,
      on_behalf_of: wakeup.on_behalf_of,
      message: !runId
        ? `merged into queued wakeup ${into.id} (same source inside the coalescing window)`
        : into.status === 'scheduled_retry'
          ? `merged into wakeup ${into.id}, which waits to retry after run ${runId} failed; it runs with that retry`
          : `merged into run ${runId}, which has not started yet`,
      details: { into_wakeup_id: into.id, source: wakeup.source, coalesced_count: into.coalesced_count },
    }, now);
  }
}

/** What the enqueue span records of the store's decision: the row, and the wakeup it folded into or duplicates. */
function enqueueDecisionOf(result: Awaited<ReturnType<Tx['wakeups']['enqueueOrFold']>>) {
  switch (result.kind) {
    case 'folded': return { kind: result.via === 'window' ? 'coalesced' : 'merged_into_run', wakeup: result.wakeup, into: result.into };
    case 'duplicate': return { kind: 'duplicate', into: result.wakeup };
    case 'agent_gone': return { kind: 'agent_gone' };
    default: return { kind: result.kind, wakeup: result.wakeup };
  }
}

/** Run statuses of a session that really started, so it saw the wakes in its context. */
const SESSION_STARTED: ReadonlySet<string> = new Set(['running', 'succeeded', 'failed', 'interrupted']);

function wakeIdsOf(context: Record<string, unknown>): string[] {
  const wakes = Array.isArray(context.wakes) ? (context.wakes as WakeContext['wakes']) : [];
  return wakes.map((wake) => wake.wakeup_id);
}

function wakeEntry(wakeupId: string, source: string, reason: string, payload: Record<string, unknown>, at: number) {
  return { wakeup_id: wakeupId, source, reason, payload, requested_at: new Date(at).toISOString() };
}
