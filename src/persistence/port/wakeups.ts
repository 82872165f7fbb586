/**
 * Wakeup requests (the port's rules: persistence/store.ts).
 *
 * Isolation: the decisions of a wakeup's life are each one statement. `enqueueOrFold` inserts or
 * folds into an open request with the same key or window under a UNIQUE index, so two enqueues with
 * one key leave one row, and decides a routine-run slot on the counters as the statement reads them
 * (locked before it on PostgreSQL); the claims are UPDATE … WHERE status = 'queued' RETURNING,
 * fenced by the agent's lease (Fence), so one claimer wins and a process that lost the agent claims
 * nothing; the endings (`endClaimed`, `cancelIfOpen`, …) name the status they expect. A refused
 * step answers undefined or no rows; its caller decides on that, never on an earlier read.
 */
import type { PagePosition } from '../../domain/pagination.js';
import type { ReasonCode } from '../../domain/activityCodes.js';
import type { Agent, Budget, Comment, Task, Wakeup, WakeupStatus } from '../../domain/types.js';
import type { ExhaustedQuota } from '../../domain/quotas.js';
import type { SessionTotals } from '../../domain/agentPrograms.js';
import type { Fence } from './ownership.js';

export interface WakeupFilter {
  agent_id?: string | undefined;
  status?: WakeupStatus | undefined;
  source?: string | undefined;
  task_id?: string | undefined;
  workspace_id?: string | undefined;
  limit?: number | undefined;
  /** Rows strictly after this position in the list's order: the page a cursor names (domain/pagination.ts). */
  after?: PagePosition | undefined;
}

/**
 * Where a new request may fold instead of queueing (the rule is WakeupService's; the store applies
 * it atomically). Absent: the request never folds (a deferred wakeup keeps its own time).
 */
export interface FoldRule {
  /** A queued wakeup of the same agent and source requested at or after this folds it (the coalescing window). */
  windowSince: number | null;
  /** Whether a window target about another task (or none) may take it: aggregate sources and taskless requests. */
  anyTask: boolean;
}

/** The deployment's routine-run cap, under which the enqueue takes a request's slot (WakeupRepo.enqueueOrFold). */
export interface EnqueueSlot {
  deploymentCap: number;
}

export type EnqueueResult =
  | { kind: 'queued'; wakeup: Wakeup }
  /** Stored `skipped` (CAP_REACHED) by the enqueue's statement: it needed a routine-run slot and these caps were full. */
  | { kind: 'refused'; wakeup: Wakeup; caps: { deployment: number; agent: number | null } }
  /** The idempotency key is taken by a request inside its window: that request. */
  | { kind: 'duplicate'; wakeup: Wakeup }
  /** Stored as `coalesced` into `into` (read after the fold: its count and context include this request). */
  | { kind: 'folded'; wakeup: Wakeup; into: Wakeup; via: 'window' | 'unstarted_run' }
  /** The agent does not exist or was deleted: nothing was written. */
  | { kind: 'agent_gone' };

/** A claimed wakeup with what its dispatch decides on, read in the claim's own statement. */
export interface ClaimedWakeup {
  wakeup: Wakeup;
  /** Undefined when the agent row is gone. */
  agent: Agent | undefined;
  /** The wakeup's task; undefined when it has none or the task is gone. */
  task: Task | undefined;
  /** Every budget over the agent, its workspace and the task's project, with the spend of its current period. */
  budgets: { budget: Budget; spent: number }[];
  /** How many runs this wakeup has had already. */
  attempts: number;
  /**
   * When the last ended run of this (agent, task) started, if it recorded an agent program's
   * session to resume: the resume delta's start. Null: the run gets the full prompt.
   */
  resumeSince: number | null;
  /** The session that last run recorded (any executor's), with the running totals it reported. */
  previousSession: { id: string; kind: string; totals: SessionTotals | null } | null;
  /** The quotas exhausted at the claim (release_at ahead): the dispatch holds an agent whose executor has one's key. */
  exhaustedQuotas: ExhaustedQuota[];
  /** The task's last 50 comments, oldest first: the full prompt shows them all, a resume delta those since resumeSince. */
  comments: Comment[];
}

/** Why a claimed wakeup goes back to the queue, and until when. */
export type WakeupRequeue = Partial<Pick<Wakeup, 'available_at' | 'waiting_on_checkout'>> & { skip_reason?: ReasonCode | null };

/** How a claimed wakeup ends; a reason written is one of the catalogue's (activityCodes.ts). */
export type WakeupEnding = Pick<Wakeup, 'finished_at'> & { status: 'finished' | 'skipped' | 'failed' | 'cancelled' }
  & Partial<Pick<Wakeup, 'error' | 'run_id'>> & { cancel_reason?: ReasonCode | null; skip_reason?: ReasonCode | null };

export interface WakeupRepo {
  /**
   * Enqueue-or-fold in one statement on the common path: the agent must be live, the idempotency key
   * free (or past `keyWindowStart`, then retired), and the fold target is chosen in the same
   * statement (a queued wakeup inside the window, else a run of the same task that has not started).
   * A fold also bumps the target's count and appends to its context (and to its queued run's) in
   * SQL. Concurrent callers with one key: exactly one is stored, the others see `duplicate`.
   * With `slot`, a request that needs a routine-run slot (needsCapSlot) and does not fold takes one
   * in the same operation: the statement reads the deployment's counter (full at
   * `slot.deploymentCap`) and its agent's (full at the agent's max_concurrent_routine_runs), and
   * stores the request `refused` when either is full; else both counters go up and the wakeup holds
   * the slot until it ends. No slot is ever taken without `slot`.
   */
  enqueueOrFold(wakeup: Wakeup, fold: FoldRule | null, keyWindowStart: number, slot?: EnqueueSlot | null): Promise<EnqueueResult>;
  /**
   * Stores `wakeup` as folded into `targetId` (and into its run `runId`, while that has not started):
   * the row, the target's count and its context in one short transaction. Null, with nothing
   * written, when the target is no longer queued or waiting for its retry.
   */
  foldInto(wakeup: Wakeup, targetId: string, runId: string | null): Promise<{ wakeup: Wakeup; into: Wakeup } | null>;
  insert(wakeup: Wakeup): Promise<void>;
  get(id: string): Promise<Wakeup | undefined>;
  findByKey(key: string): Promise<Wakeup | undefined>;
  /** Frees a key whose window has passed, so it can be used again. */
  retireKey(id: string): Promise<void>;
  /**
   * The atomic claim: one UPDATE from queued (or a due retry) to claimed, fenced: only while `fence`
   * still holds the lease of the wakeup's agent (same owner, same epoch, not expired at `at`).
   * Undefined when the wakeup is not claimable or the fence is stale.
   */
  claim(id: string, at: number, fence: Fence): Promise<Wakeup | undefined>;
  /**
   * `claim`, returning in the same statement the agent, the task, the budget standings (spend since
   * `periodStarts` of each period) and the resume delta that the dispatch decides on.
   */
  claimForDispatch(id: string, at: number, fence: Fence, periodStarts: { daily: number; monthly: number }): Promise<ClaimedWakeup | undefined>;
  // The transitions of one wakeup: each one statement guarded in its WHERE by the status it leaves,
  // answering the wakeup as it left it, or undefined (nothing written) when it was not in that status.
  /** Queued to skipped with `skipReason`: a request refused right after it was stored (at a cap). */
  refuse(id: string, skipReason: ReasonCode, at: number): Promise<Wakeup | undefined>;
  /** Claimed back to queued, with why it waits (a daily cap, a quota, a checkout): it was claimed and not launched. */
  unclaim(id: string, back: WakeupRequeue): Promise<Wakeup | undefined>;
  /** Claimed to scheduled_retry: its run failed, and it is tried again at `retry_at`. */
  scheduleRetry(id: string, retry: { retry_count: number; retry_at: number; error: string }): Promise<Wakeup | undefined>;
  /** Claimed to an end (finished, skipped, failed, cancelled); with `runId`, only while that run is the wakeup's. */
  endClaimed(id: string, ending: WakeupEnding, runId?: string): Promise<Wakeup | undefined>;
  /**
   * Puts back in the queue the claimed wakeups of the agents `owner` holds that have no running run
   * (their process died between the claim and the launch), only of `agentIds` when given (the
   * agents just taken over: this owner's other agents have claims in flight); returns them.
   */
  requeueClaimed(owner: string, agentIds?: readonly string[]): Promise<Wakeup[]>;
  /** Open wakeups (queued, claimed, scheduled_retry), oldest first, for booting the actors. */
  listOpen(agentId?: string): Promise<Wakeup[]>;
  /**
   * Ends `cancelled` (with `reason`), in one statement, the wakeups of `agentId` on `taskId` that wait
   * for a retry; returns them as they are now, oldest first. A retry claimed meanwhile is not among them.
   */
  cancelRetriesOf(taskId: string, agentId: string, reason: ReasonCode, at: number): Promise<Wakeup[]>;
  /**
   * Ends `cancelled` (with `reason`), in one statement, every wakeup of `agentId` not claimed (queued,
   * or waiting for its retry); returns them as they are now, oldest first. A claimed one ends on its own.
   */
  cancelUnclaimedOf(agentId: string, reason: ReasonCode, at: number): Promise<Wakeup[]>;
  /**
   * Ends `cancelled` (with `reason`), in one statement, every wakeup done on `ownerId`'s behalf that
   * has not been claimed yet (queued, or waiting for its retry); returns them as they are now.
   */
  cancelOnBehalfOf(ownerId: string, reason: ReasonCode, at: number): Promise<Wakeup[]>;
  /** Puts requests folded into `targetId` back in the queue, except those `carried` (by id); returns them. */
  unfold(targetId: string, carried: readonly string[], now: number): Promise<Wakeup[]>;
  /** Brings wakeups deferred by a daily cap forward to now (the cap was raised or lifted). */
  releaseDeferred(agentId: string, now: number): Promise<Wakeup[]>;
  openForTask(taskId: string): Promise<Wakeup[]>;
}
