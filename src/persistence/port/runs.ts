/**
 * Runs, with the summaries and transcripts they leave (the port's rules: persistence/store.ts).
 *
 * Isolation: `runs.start` and `runs.close` are each one fenced statement that expects the run's
 * status (queued, then running), so a late or stale finish never becomes the outcome: it is kept on
 * the run as a late result. A run's spend is recorded once (`UNIQUE cost_ledger(run_id)`) however the
 * run ends. Transcript appends are capped in the statement, never by a read of the size first.
 * The daily caps are decided by `runs.holdDailyCaps`, one statement on the agent's usage row of the
 * day, which the schema keeps and the decision holds until its transaction ends.
 */
import type { PagePosition } from '../../domain/pagination.js';
import type { DailyCap, DailyCaps } from '../../domain/dailyCaps.js';
import type { ContinuationSummary, Run } from '../../domain/types.js';
import type { TranscriptEvent } from '../../domain/transcript.js';
import type { Fence } from './ownership.js';
import type { CheckoutWaiter } from './tasks.js';

export interface RunFilter {
  workspace_id?: string | undefined;
  agent_id?: string | undefined;
  /** Runs done on this token's behalf (API.md, "Audit"). */
  on_behalf_of?: string | undefined;
  task_id?: string | undefined;
  wakeup_id?: string | undefined;
  status?: string | undefined;
  limit?: number | undefined;
  /** Rows strictly after this position in the list's order: the page a cursor names (domain/pagination.ts). */
  after?: PagePosition | undefined;
}

/** How a run ended; the session's usage, cost note, session id and totals, and a prompt it was given instead, when it reported them. */
export type RunEnding = Pick<Run, 'status' | 'result_json' | 'error' | 'cost_usd' | 'finished_at'>
  & Partial<Pick<Run, 'usage' | 'cost_note' | 'cli_session_id' | 'cli_session_totals' | 'assembled_prompt'>>;

export interface ClosedRun {
  /**
   * False when the fence refused the close (the owner lost the agent, or the run is no longer
   * running): nothing of the run's outcome was recorded, only its late result (late_result_json).
   */
  closed: boolean;
  /** Whether the run changed its task; null when not asked. */
  madeProgress: boolean | null;
  /** The wakeups parked behind the checkout this run's end released, oldest first; null when it held none. */
  checkoutWaiters: CheckoutWaiter[] | null;
}

export interface RunRepo {
  insert(run: Run, tokenHash: string | null): Promise<void>;
  /**
   * Starts a run: inserts it only while its task is not checked out by another wakeup, and the
   * schema, in the same statement, takes the task's checkout for the run's wakeup, records the run
   * on the wakeup and marks the agent working. False, with nothing written, when the task is held.
   */
  start(run: Run, tokenHash: string | null): Promise<boolean>;
  get(id: string): Promise<Run | undefined>;
  list(filter: RunFilter): Promise<Run[]>;
  /** Records the identity of the run's session (what the next boot checks); false when it has one already. */
  recordSession(id: string, session: Pick<Run, 'session_pid' | 'session_pgid' | 'session_start_time'>): Promise<boolean>;
  /**
   * A run its owner's process left behind, still in status `from` (queued: its session never
   * started), ends `cancelled` with `error`, in one guarded statement; false when it had moved on.
   */
  abandon(id: string, from: 'queued' | 'running', error: string, at: number): Promise<boolean>;
  /** Marks that the run changed its task after all (an action it asked for did). */
  markProgress(id: string): Promise<void>;
  /**
   * A queued run's session is about to start: it becomes running, from now. False when it is no
   * longer queued (a person cancelled it, or a new owner settled it): then no session may start.
   */
  markStarted(id: string, at: number): Promise<boolean>;
  /**
   * The cost a session reported after its run ended without it (cancelled, or interrupted by a new
   * owner): recorded on the run only while it has none, so a run's spend is counted once.
   */
  recordLateSpend(id: string, spend: Pick<Run, 'cost_usd' | 'usage'>): Promise<boolean>;
  /** Of these runs, the ones a person cancelled: what a replica holding their sessions must stop. */
  cancelledAmong(ids: readonly string[]): Promise<string[]>;
  /**
   * Ends a queued or running run in one statement: records its end and forgets its run token; the schema frees
   * what the run held (its agent's slot and cooldown, its task's checkout). With `progress`, it also
   * records whether the run changed its task (its state or fields, a new comment, a new subtask since
   * `since`): the loop detector's question. Fenced: only while the run is `queued` or `running` and `fence`
   * holds its agent's lease at `ended.finished_at`; otherwise the ending is kept on the run as its
   * late result, and the run stays as it is (`closed: false`). A queued run (its session never
   * started) closes the same way.
   * With `finishesWakeup`, a run that closes also ends that wakeup `finished` (a succeeded session's
   * wakeup), in the same statement on PostgreSQL: one round trip fewer on every success.
   */
  close(id: string, ended: RunEnding, progress: { taskId: string; since: number } | null, fence: Fence, finishesWakeup?: string | null): Promise<ClosedRun>;
  attemptsOf(wakeupId: string): Promise<number>;
  /** The last run for this (agent, task) pair that ended, for the resume delta. */
  lastFinishedFor(agentId: string, taskId: string): Promise<Run | undefined>;
  /** Runs left queued or running, of the agents this owner holds (of those among `agentIds`, when given): what a dead owner left behind. */
  listUnfinished(owner: string, agentIds?: readonly string[]): Promise<Run[]>;
  countStartedSince(agentId: string, since: number): Promise<number>;
  /** The latest ended runs of an (agent, task) pair, newest first: the loop detector's window. */
  recentForTask(agentId: string, taskId: string, limit: number): Promise<Run[]>;
  costSince(agentId: string, since: number): Promise<number>;
  /**
   * The daily caps' decision for a dispatch of `agentId` on the UTC day that starts at `day`, in one
   * statement on the agent's usage row of that day: the cap its counts have reached, or null. The
   * schema keeps the row (migration 0029; 0030 on PostgreSQL): a run counts from its insert (queued,
   * running, or ended after its session started) unless it ends without its session having started,
   * and a cost counts from its ledger entry.
   * The row stays taken until the transaction ends: a second dispatch of the agent decides only
   * once this one's run is counted (or was never inserted).
   */
  holdDailyCaps(agentId: string, day: number, caps: DailyCaps): Promise<DailyCap | null>;
  /** holdDailyCaps' answer from the row as committed, taking nothing: a plain read (the recovery sweep's filter). */
  dailyCapReached(agentId: string, day: number, caps: DailyCaps): Promise<DailyCap | null>;
}

export interface SummaryRepo {
  get(agentId: string, scope: string): Promise<ContinuationSummary | undefined>;
  upsert(summary: ContinuationSummary): Promise<void>;
}

/** One transcript event as stored (API.md, "Transcript"). */
export interface TranscriptEntry extends TranscriptEvent {
  seq: number;
  at: number;
  /** What it counts toward OFFICE_TRANSCRIPT_MAX_BYTES (not returned by list). */
  bytes?: number;
}

/** What sessions printed, kept with their runs. */
export interface TranscriptRepo {
  /**
   * Appends events and keeps the run's last `maxBytes` of them, marking the run truncated when it
   * drops any, or when the caller dropped some before they were written (`droppedBefore`).
   */
  append(runId: string, entries: readonly TranscriptEntry[], maxBytes: number, droppedBefore?: boolean): Promise<void>;
}
