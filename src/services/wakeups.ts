import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { HELD_FOR_COALESCING, parseWakeupPayload, taskIdOf, type WakeupSource } from '../domain/wakeupSources.js';
import type { RoutineRunOutcome } from '../domain/routines.js';
import type { Agent, Wakeup } from '../domain/types.js';
import type { Tx } from '../persistence/store.js';
import { recordDecision } from './activity.js';
import type { WakeupNotifier } from './deps.js';
import { notFound } from './errors.js';
import { newId } from './ids.js';

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
}

export type EnqueueOutcome =
  | { kind: 'queued'; wakeup: Wakeup }
  | { kind: 'duplicate'; wakeup: Wakeup }
  /** Merged into a queued wakeup of the same source inside the coalescing window. */
  | { kind: 'coalesced'; wakeup: Wakeup; into: Wakeup }
  /** Merged into a run that has not started yet (claim-time merge). */
  | { kind: 'merged_into_run'; wakeup: Wakeup; into: Wakeup };

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

/** Settles the routine run a wakeup carries when the wakeup ends (the routine service provides it). */
export type RoutineRunSettler = (tx: Tx, wakeup: Wakeup, outcome: RoutineRunOutcome, now: number, sessionRan: boolean) => Promise<void>;

/**
 * Persists wakeup requests: idempotency, the coalescing window and the claim-time merge, all in
 * the caller's transaction. The agent actor hears about a queued wakeup only after commit.
 */
export class WakeupService {
  constructor(
    private readonly config: Config,
    private readonly log: Logger,
    private readonly notifier: WakeupNotifier,
    /** Every path that ends a wakeup settles the routine run it carries through this (routines.recordOutcome). */
    readonly settleRoutineRun: RoutineRunSettler,
  ) {}

  async enqueue(tx: Tx, request: EnqueueRequest, now: number): Promise<EnqueueOutcome> {
    const payload = parseWakeupPayload(request.source, request.payload);
    const agent = await tx.agents.get(request.agent_id);
    if (!agent || agent.deleted_at !== null) throw notFound('agent', request.agent_id);
    return this.enqueueFor(tx, agent, request, payload, now);
  }

  /** `enqueue` once the agent is known to be live and the payload valid. */
  private async enqueueFor(tx: Tx, agent: Agent, request: EnqueueRequest, payload: Record<string, unknown>, now: number): Promise<EnqueueOutcome> {
    const key = request.idempotency_key ?? null;
    if (key !== null) {
      const existing = await tx.wakeups.findByKey(key);
      if (existing && now - existing.requested_at < this.config.idempotencyWindowMs) {
        return { kind: 'duplicate', wakeup: existing };
      }
      if (existing) await tx.wakeups.retireKey(existing.id);
    }

    const wakeup = this.newWakeup(agent.workspace_id, request, payload, key, now);
    const merged = await this.mergeIfPossible(tx, wakeup, now);
    if (merged) return merged;

    await tx.wakeups.insert(wakeup);
    tx.afterCommit(() => this.notifier.wakeupQueued(wakeup.agent_id, wakeup.id, wakeup.available_at));
    this.log.debug({ wakeup_id: wakeup.id, agent_id: wakeup.agent_id, source: wakeup.source }, 'wakeup queued');
    return { kind: 'queued', wakeup };
  }

  /**
   * The enqueue of an event subscriber. A deleted (or unknown) agent is not an error here: the
   * event's other wakeups must still be written, so its request is skipped with a reason instead of
   * failing the subscriber's whole transaction (and blocking the event in the outbox). Callers that
   * answer a person (the wake route) keep the 404 of `enqueue`.
   */
  async enqueueForEvent(tx: Tx, request: EnqueueRequest, now: number): Promise<EnqueueOutcome | SkippedEnqueue> {
    const payload = parseWakeupPayload(request.source, request.payload);
    const agent = await tx.agents.get(request.agent_id);
    if (agent && agent.deleted_at === null) return this.enqueueFor(tx, agent, request, payload, now);
    const taskId = taskIdOf(payload);
    const message = `skipped: agent ${request.agent_id} ${agent ? 'was deleted' : 'does not exist'}; no ${request.source} wakeup is written`;
    const details = { reason: 'agent_deleted', source: request.source, idempotency_key: request.idempotency_key ?? null };
    if (agent) {
      await recordDecision(tx, this.log, {
        workspace_id: agent.workspace_id, code: 'wakeup_skipped_agent_deleted', agent_id: agent.id, task_id: taskId, message, details,
      }, now);
    } else {
      tx.afterCommit(() => this.log.info({ code: 'wakeup_skipped_agent_deleted', agent_id: request.agent_id, task_id: taskId, ...details }, message));
    }
    return { kind: 'skipped', reason: 'agent_deleted' };
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
      tx.afterCommit(() => this.notifier.wakeupQueued(folded.agent_id, folded.id, folded.available_at));
    }
  }

  /**
   * Frees the task if `wakeupId` holds it, and offers it to the wakeups parked behind that checkout
   * (pinned: checkout conflicts wait): their agent actors hear of them again after commit, so the
   * wait needs no polling. Every release of a checkout goes through here.
   */
  async releaseCheckout(tx: Tx, taskId: string, wakeupId: string): Promise<void> {
    for (const waiter of (await tx.tasks.releaseCheckout(taskId, wakeupId)) ?? []) {
      tx.afterCommit(() => this.notifier.wakeupQueued(waiter.agent_id, waiter.id, waiter.available_at));
    }
  }

  /** Cancels every queued or waiting wakeup of an agent (it was deleted), releasing their checkouts. */
  async cancelOpenFor(tx: Tx, agent: Agent, reason: string, now: number): Promise<void> {
    for (const wakeup of await tx.wakeups.listOpen(agent.id)) {
      if (wakeup.status === 'claimed') continue; // running now: it finishes on its own
      await tx.wakeups.update(wakeup.id, { status: 'cancelled', cancel_reason: reason, finished_at: now });
      if (wakeup.task_id) await this.releaseCheckout(tx, wakeup.task_id, wakeup.id);
      await this.settleRoutineRun(tx, wakeup, 'cancelled', now, false);
      await recordDecision(tx, this.log, {
        workspace_id: wakeup.workspace_id, code: 'wakeup_cancelled', agent_id: agent.id, task_id: wakeup.task_id,
        wakeup_id: wakeup.id, message: `cancelled: ${reason}`, details: { reason },
      }, now);
    }
  }

  /**
   * Folds a new request into `target`, a wakeup that has not started (queued, or waiting for its
   * retry), by the same rule as the coalescing window: one run sees both. Returns the stored request.
   */
  foldRequestInto(tx: Tx, request: EnqueueRequest, target: Wakeup, now: number): Promise<Wakeup> {
    const payload = parseWakeupPayload(request.source, request.payload);
    const wakeup = this.newWakeup(target.workspace_id, request, payload, request.idempotency_key ?? null, now);
    return this.foldInto(tx, wakeup, target, target.status === 'scheduled_retry' ? target.run_id : null, now);
  }

  private newWakeup(
    workspaceId: string,
    request: EnqueueRequest,
    payload: Record<string, unknown>,
    key: string | null,
    now: number,
  ): Wakeup {
    const id = newId('wk');
    const reason = request.reason ?? request.source;
    const hold = HELD_FOR_COALESCING.has(request.source) ? this.config.coalesceWindowMs : 0;
    return {
      id,
      workspace_id: workspaceId,
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
    };
  }

  private async mergeIfPossible(tx: Tx, wakeup: Wakeup, now: number): Promise<EnqueueOutcome | null> {
    // A deferred wakeup keeps its own time; folding it into an earlier one would run it early.
    if (wakeup.available_at > now + this.config.coalesceWindowMs) return null;

    const window = this.config.coalesceWindowMs;
    const windowTarget = window > 0 ? await tx.wakeups.findCoalesceTarget(wakeup.agent_id, wakeup.source, now - window) : undefined;
    if (windowTarget && sameTaskScope(windowTarget, wakeup)) {
      return { kind: 'coalesced', wakeup: await this.foldInto(tx, wakeup, windowTarget, null, now), into: windowTarget };
    }

    // A run waiting for its retry may wait hours and may still be cancelled: only work on the same
    // task (or taskless work on a taskless run) rides along with it.
    const unstarted = await tx.wakeups.findUnstartedRun(wakeup.agent_id);
    if (unstarted && unstarted.task_id === wakeup.task_id) {
      return { kind: 'merged_into_run', wakeup: await this.foldInto(tx, wakeup, unstarted, unstarted.run_id, now), into: unstarted };
    }
    return null;
  }

  /** Stores the request as `coalesced` into the target and returns the row exactly as stored. */
  private async foldInto(tx: Tx, wakeup: Wakeup, target: Wakeup, runId: string | null, now: number): Promise<Wakeup> {
    const entry = (wakeup.context_snapshot as WakeContext).wakes[0]!;
    const context = appendWake(target.context_snapshot, entry);
    const stored: Wakeup = { ...wakeup, status: 'coalesced', coalesced_into_id: target.id, run_id: runId, finished_at: now };
    await tx.wakeups.insert(stored);
    await tx.wakeups.update(target.id, { coalesced_count: target.coalesced_count + 1, context_snapshot: context });
    if (runId) {
      const run = await tx.runs.get(runId);
      if (run && run.status === 'queued') await tx.runs.update(runId, { context_snapshot: appendWake(run.context_snapshot, entry) });
    }
    await recordDecision(tx, this.log, {
      workspace_id: wakeup.workspace_id,
      code: 'wakeup_coalesced',
      agent_id: wakeup.agent_id,
      task_id: wakeup.task_id,
      wakeup_id: wakeup.id,
      run_id: runId,
      message: !runId
        ? `merged into queued wakeup ${target.id} (same source inside the coalescing window)`
        : target.status === 'scheduled_retry'
          ? `merged into wakeup ${target.id}, which waits to retry after run ${runId} failed; it runs with that retry`
          : `merged into run ${runId}, which has not started yet`,
      details: { into_wakeup_id: target.id, source: wakeup.source, coalesced_count: target.coalesced_count + 1 },
    }, now);
    return stored;
  }
}

/**
 * A run about task A cannot check out or answer for task B, so a request about another task keeps
 * its own place in line. Aggregate sources are the exception: five parents completing together are
 * one thing for a coordinator to look at, which is the point of the coalescing window.
 */
function sameTaskScope(target: Wakeup, incoming: Wakeup): boolean {
  return HELD_FOR_COALESCING.has(incoming.source) || incoming.task_id === null || incoming.task_id === target.task_id;
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

export function appendWake(context: Record<string, unknown>, entry: WakeContext['wakes'][number]): WakeContext {
  const wakes = Array.isArray(context.wakes) ? (context.wakes as WakeContext['wakes']) : [];
  return { ...context, wakes: [...wakes, entry] };
}
