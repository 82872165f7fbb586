/**
 * The Store port. Every method is asynchronous so that a PostgreSQL implementation can sit
 * behind the same interface; SQLite answers from the same connection without blocking on I/O.
 *
 * Work happens inside `transaction` (writes) or `read`; both hand out a Tx whose repositories
 * see one consistent view. Events emitted on a Tx are delivered only after it commits.
 *
 * Isolation guarantees, which every implementation must keep and the store contract suite
 * (test/store/contract.ts) checks with concurrent callers:
 * - A transaction is atomic: its writes, its in-transaction subscribers' writes and its outbox rows
 *   commit together or not at all.
 * - The operations that decide (enqueueOrFold, foldInto, claim, claimForDispatch, runs.start,
 *   runs.close, tasks.insert, tasks.checkout and releaseCheckout, routines.claimTick(s), the cap
 *   slots, outbox takes, lease takes, markAlertSent) are each one statement, or one short
 *   transaction, whose outcome depends only on the rows as they are when it runs, never on an
 *   earlier read by the caller: guards live in their WHERE, counters in their rows, uniqueness in
 *   constraints (INSERT … ON CONFLICT, UPDATE … WHERE <expected state> RETURNING). Two callers
 *   racing on one row (two claims, two enqueues with one key, two fires of one tick) leave exactly
 *   one winner, whatever process each runs in.
 * - Every other state change is a named transition (agents.pause, tasks.move, wakeups.endClaimed,
 *   routines.archive, …): one UPDATE whose WHERE names the state it expects, RETURNING the row as it
 *   left it. A refused transition answers undefined (or false, or no rows) and writes nothing; its
 *   caller decides on that answer, never on a read made before. The only writes by id without
 *   a state to expect are a person's edits of plain fields (`edit`: names, descriptions, executors),
 *   which nothing decides on, and which leave state to the transitions.
 * - Claims are fenced: they succeed only while the caller's owner holds the agent's lease at its
 *   epoch (see Fence), so a process that lost an agent cannot start work for it.
 * - Plain reads (get, list) see committed rows and may be stale by the time the caller acts on
 *   them; nothing that must not happen twice is decided on one.
 * - SQLite runs transactions one at a time on one connection (serializable); PostgreSQL runs them
 *   at READ COMMITTED, which the rules above make sufficient.
 */
import type {
  ActivityEntry,
  Agent,
  Approval,
  Budget,
  Comment,
  ContinuationSummary,
  InboxItem,
  NewActivity,
  Project,
  Run,
  Task,
  TaskState,
  Wakeup,
  WakeupStatus,
  Workspace,
} from '../domain/types.js';
import type { DomainEvent, EventOf, EventType } from '../domain/events.js';
import type { MissedTicks, Routine, RoutineRun, RoutineTrigger } from '../domain/routines.js';
import type { PendingDelivery } from '../domain/delivery.js';
import type { Bucket, CostInBucket, RunSpan, TimeRange, WakeupOutcomeCount } from '../domain/stats.js';
import type { Session } from '../domain/sessions.js';
import type { ApiToken } from '../domain/governance.js';
import type { ExhaustedQuota, Quota } from '../domain/quotas.js';
import type { SessionTotals } from '../domain/agentPrograms.js';
import type { TranscriptEvent } from '../domain/transcript.js';

export interface Store {
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  read<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * A unit of ONE statement committed on its own, with no BEGIN/COMMIT around it: the replica
   * heartbeat, which is all an idle replica runs. Absent where every statement runs inside a
   * transaction anyway (SQLite, which never heartbeats); callers fall back to `transaction`.
   */
  autocommit?<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /** Statements executed since open: the idle-SQL figure and a /metrics counter. */
  statementsExecuted(): number;
  /** Write units of work (`transaction` calls) run since open, whether or not they shared a commit: the per-wakeup budget. */
  transactionsExecuted(): number;
  /** Whether writes reach the database; readiness and /metrics follow it (no SQL: safe to poll). */
  storageHealth(): StorageHealth;
  close(): Promise<void>;
}

export interface StorageHealth {
  /** False from a write that failed for storage reasons (see StorageUnavailableError) until one succeeds again. */
  writable: boolean;
  /** Why writes fail, while they do; the message a 503 carries. */
  failure: string | null;
  /** Size of the write-ahead log in bytes; null where the store keeps none. */
  walBytes: number | null;
}

export interface Tx {
  readonly workspaces: WorkspaceRepo;
  readonly projects: ProjectRepo;
  readonly agents: AgentRepo;
  readonly tasks: TaskRepo;
  readonly comments: CommentRepo;
  readonly approvals: ApprovalRepo;
  readonly budgets: BudgetRepo;
  readonly activity: ActivityRepo;
  readonly inbox: InboxRepo;
  readonly wakeups: WakeupRepo;
  readonly runs: RunRepo;
  readonly summaries: SummaryRepo;
  readonly sessions: SessionRepo;
  readonly routines: RoutineRepo;
  readonly snapshots: SnapshotRepo;
  readonly outbox: OutboxRepo;
  readonly leases: LeaseRepo;
  readonly replicas: ReplicaRepo;
  readonly deliveries: DeliveryRepo;
  readonly stats: StatsRepo;
  readonly tokens: TokenRepo;
  readonly quotas: QuotaRepo;
  readonly transcripts: TranscriptRepo;
  /**
   * Records the event with this write: its in-transaction subscribers run inside this transaction,
   * before it commits; the others see it only after commit (from the outbox row it leaves).
   */
  emit<K extends EventType>(type: K, payload: EventOf<K>['payload']): void;
  /** Runs after commit, never after a rollback. */
  afterCommit(callback: () => void): void;
}

/** A reset to record on a quota (QuotaRepo.exhaust). */
export interface QuotaExhaustion {
  key: string;
  kind: string;
  exhausted_until: number;
  release_at: number;
  reason: string;
  run_id: string;
  /** Agents sharing the key now: the spread's divisor. */
  sharing: number;
  at: number;
}

/** Shared quotas (API.md, "Agent CLIs"; domain/quotas.ts), which every replica honours. */
export interface QuotaRepo {
  /** Records that the quota is exhausted until a reset; a later reset already recorded stands. */
  exhaust(exhaustion: QuotaExhaustion): Promise<void>;
  /**
   * Takes the next release slot of a quota that is still exhausted at `at` (release_at ahead), in
   * one statement; undefined when it is not (released, or never exhausted).
   */
  holdSlot(key: string, at: number): Promise<{ slot: number; release_at: number; sharing: number; exhausted_until: number; kind: string } | undefined>;
  /**
   * Whether this exhaustion is news: true once per exhaustion (its first call while the quota is
   * exhausted, or the first after an earlier release passed), in one guarded statement.
   */
  announce(key: string, at: number): Promise<boolean>;
  /** Records that a limit is near (not a failure). */
  warn(key: string, kind: string, warning: string, at: number): Promise<void>;
  get(key: string): Promise<Quota | undefined>;
  /** Every quota, or those still exhausted at `exhaustedAt` (release_at ahead), the soonest first. */
  list(filter: { exhaustedAt?: number }): Promise<Quota[]>;
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
  list(runId: string): Promise<TranscriptEntry[]>;
}

/** Named API tokens (API.md, "Governance"). Only the secret's hash is stored. */
export interface TokenRepo {
  insert(token: ApiToken): Promise<void>;
  get(id: string): Promise<ApiToken | undefined>;
  /** The token whose secret hashes to `hash`, revoked or not: the caller tells a revoked one apart. */
  byHash(hash: string): Promise<ApiToken | undefined>;
  /** Every token, revoked ones too, oldest first. */
  list(): Promise<ApiToken[]>;
  /** Marks the token revoked, in one statement; false when it does not exist or was revoked already. */
  revoke(id: string, at: number): Promise<boolean>;
  /**
   * Pauses, in one statement, the active routines `ownerId` owns, with `reason`; returns them as
   * they are now. Paused or archived routines are left as they are.
   */
  pauseRoutinesOwnedBy(ownerId: string, reason: string, at: number): Promise<Routine[]>;
}

export interface WorkspaceRepo {
  insert(workspace: Workspace): Promise<void>;
  /** A deleted workspace too (its runs and tasks still name it); callers that act on it check deleted_at. */
  get(id: string): Promise<Workspace | undefined>;
  /** A person's edit of a live workspace's fields, in one statement; the workspace as it is now, undefined when there is none or it was deleted. */
  edit(id: string, fields: Partial<Omit<Workspace, 'id' | 'created_at'>>): Promise<Workspace | undefined>;
  /** The live workspaces. */
  list(): Promise<Workspace[]>;
  /**
   * Marks the workspace deleted while it is live and holds no live agent, in one guarded statement;
   * false when either does not hold. On PostgreSQL the workspace row is locked first, so an agent
   * being created in it meanwhile (AgentRepo.insert) is seen by the guard, or sees the deletion.
   */
  markDeleted(id: string, at: number): Promise<boolean>;
}

export interface ProjectRepo {
  insert(project: Project): Promise<void>;
  get(id: string): Promise<Project | undefined>;
  list(workspaceId: string | undefined): Promise<Project[]>;
  /** A person's edit of its fields, in one statement; the project as it is now, undefined when there is none. */
  edit(id: string, fields: Partial<Omit<Project, 'id' | 'created_at' | 'workspace_id'>>): Promise<Project | undefined>;
}

export interface AgentRepo {
  /** Inserts the agent while its workspace is live (one statement); false when the workspace is deleted or missing. */
  insert(agent: Agent): Promise<boolean>;
  get(id: string): Promise<Agent | undefined>;
  list(filter: { workspace_id?: string | undefined }): Promise<Agent[]>;
  /** Every live agent this owner holds the lease of, for booting the actors. */
  listLive(owner: string): Promise<Agent[]>;
  // The transitions of an agent: each one statement whose guard (the state it expects, and that the
  // agent was not deleted) is in its WHERE, returning the agent as it left it; undefined when the
  // guard did not hold, with nothing written.
  /** A person's edit of the fields that are no state. */
  edit(id: string, fields: AgentFields): Promise<Agent | undefined>;
  /** Any status but paused to paused, with `reason`. */
  pause(id: string, reason: string, at: number): Promise<Agent | undefined>;
  /** Paused or stopped to idle, its pause reason cleared. */
  resume(id: string, at: number): Promise<Agent | undefined>;
  /** Any status but stopped to stopped. */
  stop(id: string, at: number): Promise<Agent | undefined>;
  /** The soft delete: a live agent becomes deleted (and stopped). */
  markDeleted(id: string, at: number): Promise<Agent | undefined>;
  /**
   * Agents of `owner` (those of `agentIds`, when given) still marked working after recovery closed
   * their runs become idle, in one statement; returns how many.
   */
  idleLeftWorking(owner: string, agentIds: readonly string[] | null): Promise<number>;
  coordinatorOf(workspaceId: string): Promise<Agent | undefined>;
}

/** What a person edits on an agent: its state changes only through the agent's transitions. */
export type AgentFields = Partial<Omit<Agent, 'id' | 'created_at' | 'workspace_id' | 'status' | 'paused_reason' | 'deleted_at' | 'last_wakeup_finished_at'>>;

/** A queued wakeup parked behind a task's checkout: what its agent actor must hear when the task is freed. */
export type CheckoutWaiter = Pick<Wakeup, 'id' | 'agent_id' | 'available_at'>;

export interface TaskFilter {
  workspace_id?: string | undefined;
  assignee?: string | undefined;
  state?: TaskState | undefined;
  parent_id?: string | undefined;
  include_routine?: boolean | undefined;
  limit?: number | undefined;
}

/** What a person edits on a task: its state and assignee change only through the task's transitions. */
export type TaskFields = Partial<Omit<Task, 'id' | 'created_at' | 'workspace_id' | 'blocked_by' | 'reviewers' | 'state' | 'assignee_agent_instance_id'
  | 'assigned_at' | 'completed_at' | 'archived_at' | 'checkout_agent_id' | 'checkout_wakeup_id' | 'checkout_at'>>;

export interface TaskRepo {
  /**
   * Inserts the task, with its links, only if its workspace exists and its assignee (live), project
   * and parent belong to that workspace, checked in the same statement. False, with nothing written, otherwise.
   */
  insert(task: Task): Promise<boolean>;
  get(id: string): Promise<Task | undefined>;
  list(filter: TaskFilter): Promise<Task[]>;
  // The transitions of a task: one statement each, guarded in its WHERE by what the caller expects,
  // answering the task as it left it (with its links), or undefined with nothing written.
  /** A person's edit of the fields that are neither its state nor its assignee. */
  edit(id: string, fields: TaskFields): Promise<Task | undefined>;
  /** Compare-and-set of the assignee: from `from` to `to` (assigned at `at`, or unassigned). */
  reassign(id: string, from: string | null, to: string | null, at: number): Promise<Task | undefined>;
  /** Compare-and-set of the state: the kanban move from `from` to `to`, stamping its completion or archival. */
  move(id: string, from: TaskState, to: TaskState, at: number): Promise<Task | undefined>;
  setBlockers(id: string, blockerIds: string[]): Promise<void>;
  setReviewers(id: string, agentIds: string[]): Promise<void>;
  countActionable(agentId: string): Promise<number>;
  /** Clears the assignee of an agent's open tasks (not DONE, CANCELLED or ARCHIVED); returns the tasks it cleared. */
  unassignOpen(agentId: string, at: number): Promise<Pick<Task, 'id' | 'workspace_id' | 'title'>[]>;
  /** Compare-and-set on the checkout columns; false when another wakeup holds the task. */
  checkout(taskId: string, agentId: string, wakeupId: string, at: number): Promise<boolean>;
  /**
   * Frees the task if this wakeup holds it. Null when it did not; else the queued wakeups parked
   * behind that checkout (pinned: checkout conflicts wait), oldest first, read in the same statement.
   */
  releaseCheckout(taskId: string, wakeupId: string): Promise<CheckoutWaiter[] | null>;
  /** Tasks listing `blockerId` among their blockers. */
  dependentsOf(blockerId: string): Promise<Task[]>;
  /** Blockers of a task that have not resolved yet (not DONE or CANCELLED). */
  openBlockers(taskId: string): Promise<string[]>;
  children(parentId: string): Promise<Task[]>;
  /** Assigned TODO tasks the recovery sweep should dispatch (of one assignee, when given). */
  recoveryCandidates(createdSince: number, workspaceId: string, agentId?: string): Promise<Task[]>;
  countByStateIn(workspaceId: string, since: number): Promise<Partial<Record<TaskState, number>>>;
}

export interface CommentRepo {
  insert(comment: Comment): Promise<void>;
  get(id: string): Promise<Comment | undefined>;
  listByTask(taskId: string, since?: number): Promise<Comment[]>;
}

export interface ApprovalRepo {
  insert(approval: Approval): Promise<void>;
  /**
   * Inserts a pending approval unless its task has one already (a partial unique index, met with
   * ON CONFLICT DO NOTHING: of two callers at once, one inserts). `created: false` answers with the
   * pending approval that holds the task instead, and nothing is written.
   */
  insertPending(approval: Approval): Promise<{ approval: Approval; created: boolean }>;
  get(id: string): Promise<Approval | undefined>;
  /** Pending to `status`, in one guarded statement: the approval as it is now, undefined when it was not pending. */
  resolve(id: string, status: 'approved' | 'rejected', note: string | null, at: number): Promise<Approval | undefined>;
  pendingForTask(taskId: string): Promise<Approval | undefined>;
}

export interface BudgetRepo {
  insert(budget: Budget): Promise<void>;
  get(id: string): Promise<Budget | undefined>;
  /** Changes a budget's limit, period, action or threshold; the budget as changed, undefined when there is none. */
  edit(id: string, fields: Partial<Pick<Budget, 'limit_usd' | 'period' | 'action_on_exceed' | 'alert_threshold_pct'>>): Promise<Budget | undefined>;
  /** Deletes a budget and the record of its alerts; false when there was none. Its costs stay in the ledger. */
  delete(id: string): Promise<boolean>;
  list(workspaceId: string | undefined): Promise<Budget[]>;
  forScopes(scopes: { scope: Budget['scope']; scope_id: string }[]): Promise<Budget[]>;
  /** Sum of reported costs inside the scope since `since` (ms). */
  spend(scope: Budget['scope'], scopeId: string, since: number): Promise<number>;
  /** Records a run's reported cost; a run's cost is recorded once (UNIQUE run_id), a second record of it changes nothing. */
  recordCost(entry: { workspace_id: string; project_id: string | null; agent_id: string; run_id: string; cost_usd: number; created_at: number }): Promise<void>;
  /** True the first time a threshold is crossed in a period: the primary key is the guard. */
  markAlertSent(budgetId: string, periodKey: string, thresholdPct: number, at: number): Promise<boolean>;
}

export interface ActivityFilter {
  workspace_id?: string | undefined;
  code?: string | undefined;
  wakeup_id?: string | undefined;
  agent_id?: string | undefined;
  /** Only unattended entries (true) or only attended ones (false). */
  unattended?: boolean | undefined;
  limit?: number | undefined;
}

export interface ActivityRepo {
  insert(entry: NewActivity, at: number): Promise<void>;
  countSince(workspaceId: string, code: string, since: number): Promise<number>;
  list(filter: ActivityFilter): Promise<ActivityEntry[]>;
}

export interface InboxRepo {
  insert(item: InboxItem): Promise<void>;
  list(workspaceId: string | undefined, status?: InboxItem['status']): Promise<InboxItem[]>;
  resolveByRef(refId: string): Promise<void>;
  get(id: string): Promise<InboxItem | undefined>;
  /** Marks one open item resolved; false when it was not open (already resolved, or no such item). */
  resolve(id: string): Promise<boolean>;
}

export interface WakeupFilter {
  agent_id?: string | undefined;
  status?: WakeupStatus | undefined;
  source?: string | undefined;
  task_id?: string | undefined;
  workspace_id?: string | undefined;
  limit?: number | undefined;
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

export type EnqueueResult =
  | { kind: 'queued'; wakeup: Wakeup }
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
export type WakeupRequeue = Partial<Pick<Wakeup, 'available_at' | 'skip_reason' | 'waiting_on_checkout'>>;

/** How a claimed wakeup ends. */
export type WakeupEnding = Pick<Wakeup, 'finished_at'> & { status: 'finished' | 'skipped' | 'failed' | 'cancelled' }
  & Partial<Pick<Wakeup, 'cancel_reason' | 'skip_reason' | 'error' | 'run_id'>>;

export interface WakeupRepo {
  /**
   * Enqueue-or-fold in one statement on the common path: the agent must be live, the idempotency key
   * free (or past `keyWindowStart`, then retired), and the fold target is chosen in the same
   * statement (a queued wakeup inside the window, else a run of the same task that has not started).
   * A fold also bumps the target's count and appends to its context (and to its queued run's) in
   * SQL. Concurrent callers with one key: exactly one is stored, the others see `duplicate`.
   */
  enqueueOrFold(wakeup: Wakeup, fold: FoldRule | null, keyWindowStart: number): Promise<EnqueueResult>;
  /**
   * Stores `wakeup` as folded into `targetId` (and into its run `runId`, while that has not started):
   * the row, the target's count and its context in one short transaction. Null, with nothing
   * written, when the target is no longer queued or waiting for its retry.
   */
  foldInto(wakeup: Wakeup, targetId: string, runId: string | null): Promise<{ wakeup: Wakeup; into: Wakeup } | null>;
  insert(wakeup: Wakeup): Promise<void>;
  get(id: string): Promise<Wakeup | undefined>;
  list(filter: WakeupFilter): Promise<Wakeup[]>;
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
  refuse(id: string, skipReason: string, at: number): Promise<Wakeup | undefined>;
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
  cancelRetriesOf(taskId: string, agentId: string, reason: string, at: number): Promise<Wakeup[]>;
  /**
   * Ends `cancelled` (with `reason`), in one statement, every wakeup of `agentId` not claimed (queued,
   * or waiting for its retry); returns them as they are now, oldest first. A claimed one ends on its own.
   */
  cancelUnclaimedOf(agentId: string, reason: string, at: number): Promise<Wakeup[]>;
  /**
   * Ends `cancelled` (with `reason`), in one statement, every wakeup done on `ownerId`'s behalf that
   * has not been claimed yet (queued, or waiting for its retry); returns them as they are now.
   */
  cancelOnBehalfOf(ownerId: string, reason: string, at: number): Promise<Wakeup[]>;
  /** Puts requests folded into `targetId` back in the queue, except those `carried` (by id); returns them. */
  unfold(targetId: string, carried: readonly string[], now: number): Promise<Wakeup[]>;
  /** Brings wakeups deferred by a daily cap forward to now (the cap was raised or lifted). */
  releaseDeferred(agentId: string, now: number): Promise<Wakeup[]>;
  openForTask(taskId: string): Promise<Wakeup[]>;
  countByStatus(): Promise<Record<string, number>>;
}

export interface RunFilter {
  workspace_id?: string | undefined;
  agent_id?: string | undefined;
  /** Runs done on this token's behalf (API.md, "Audit"). */
  on_behalf_of?: string | undefined;
  task_id?: string | undefined;
  wakeup_id?: string | undefined;
  status?: string | undefined;
  limit?: number | undefined;
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
  byTokenHash(hash: string): Promise<Run | undefined>;
  attemptsOf(wakeupId: string): Promise<number>;
  /** The last run for this (agent, task) pair that ended, for the resume delta. */
  lastFinishedFor(agentId: string, taskId: string): Promise<Run | undefined>;
  /** Runs left queued or running, of the agents this owner holds (of those among `agentIds`, when given): what a dead owner left behind. */
  listUnfinished(owner: string, agentIds?: readonly string[]): Promise<Run[]>;
  countStartedSince(agentId: string, since: number): Promise<number>;
  /** The latest ended runs of an (agent, task) pair, newest first: the loop detector's window. */
  recentForTask(agentId: string, taskId: string, limit: number): Promise<Run[]>;
  costSince(agentId: string, since: number): Promise<number>;
  countByStatus(): Promise<Record<string, number>>;
}

export interface SummaryRepo {
  get(agentId: string, scope: string): Promise<ContinuationSummary | undefined>;
  upsert(summary: ContinuationSummary): Promise<void>;
  listForAgent(agentId: string): Promise<ContinuationSummary[]>;
}

/** One cron tick to claim (compare-and-set on next_run_at) and the routine run that records it. */
export interface TickClaim {
  triggerId: string;
  expectedNextRunAt: number;
  nextRunAt: number | null;
  run: RoutineRun;
}

/** What a person edits on a routine: its status changes only through the routine's transitions. */
export type RoutineFields = Partial<Omit<Routine, 'id' | 'created_at' | 'workspace_id' | 'status' | 'paused_reason' | 'consecutive_failures' | 'carried_missed_ticks'>>;

export type TriggerFields = Partial<Omit<RoutineTrigger, 'id' | 'routine_id' | 'kind' | 'created_at'>>;

/** Where a received routine run went. */
export type RunRoute = Partial<Pick<RoutineRun, 'skip_reason' | 'linked_task_id' | 'linked_wakeup_id' | 'coalesced_into_run_id' | 'completed_at'>>
  & { status: 'skipped' | 'coalesced' | 'task_created' | 'dispatched' };

export interface RoutineRepo {
  insert(routine: Routine): Promise<void>;
  get(id: string): Promise<Routine | undefined>;
  /** Archived routines only with `include_archived`: they leave the lists but stay readable by id. */
  list(filter: { workspace_id?: string | undefined; assignee?: string | undefined; include_archived?: boolean }): Promise<Routine[]>;
  // The transitions of a routine: one statement each, guarded in its WHERE by the status it leaves
  // (archived is terminal), answering the routine as it left it, or undefined with nothing written.
  /** A person's edit of the fields that are no state. */
  edit(id: string, fields: RoutineFields): Promise<Routine | undefined>;
  /** Active (or paused already) to paused, with `reason`. */
  pause(id: string, reason: string, at: number): Promise<Routine | undefined>;
  /** Paused to active, its pause reason and failure count cleared. */
  resume(id: string, at: number): Promise<Routine | undefined>;
  /** Any status but archived to archived, its triggers disabled in the same unit. */
  archive(id: string, at: number): Promise<Routine | undefined>;
  /** Pauses, in one statement, the active routines assigned to `agentId`, with `reason`; returns them as they are now. */
  pauseActiveOf(agentId: string, reason: string, at: number): Promise<Routine[]>;
  /**
   * Counts a run's outcome in the routine's row, in one statement: a success resets
   * consecutive_failures, a failure adds one and, reaching consecutive_failure_limit, pauses an
   * active routine with `pauseReason` (its `{n}` replaced by the count). `paused`: it paused here.
   */
  countOutcome(id: string, succeeded: boolean, at: number, pauseReason: string): Promise<{ consecutive_failures: number; paused: boolean; paused_reason: string | null } | undefined>;
  /** Adds a skipped fire's missed-ticks note to the routine's carried one (counts add up, the earliest `since` stays), in one statement. */
  carryMissedTicks(id: string, note: MissedTicks): Promise<void>;
  /** Takes the routine's carried missed-ticks note, leaving none: null when none was carried. */
  takeCarriedMissedTicks(id: string): Promise<MissedTicks | null>;
  insertTrigger(trigger: RoutineTrigger): Promise<void>;
  getTrigger(id: string): Promise<RoutineTrigger | undefined>;
  triggerByPublicId(publicId: string): Promise<RoutineTrigger | undefined>;
  triggersOf(routineId: string): Promise<RoutineTrigger[]>;
  /** Edits a trigger while its routine is not archived, in one statement; the trigger as it is now, else undefined. */
  editTrigger(id: string, fields: TriggerFields): Promise<RoutineTrigger | undefined>;
  deleteTrigger(id: string): Promise<void>;
  /** Enabled schedule triggers of active routines, for booting the trigger actors. */
  liveScheduleTriggers(): Promise<{ trigger: RoutineTrigger; routine: Routine }[]>;
  /** These schedule triggers with their routines (by trigger id; missing ones are left out): one read for a batch of due ticks. */
  scheduleTriggers(triggerIds: readonly string[]): Promise<{ trigger: RoutineTrigger; routine: Routine }[]>;
  /** Moves next_run_at only if it still holds the tick this caller saw: one fire per tick. */
  claimTick(triggerId: string, expectedNextRunAt: number, nextRunAt: number | null, firedAt: number): Promise<boolean>;
  /**
   * Claims a batch of cron ticks and records their routine runs: each claim moves its trigger's
   * next_run_at only if it still holds `expectedNextRunAt` (the compare-and-set), and the run of each
   * claim won is inserted unless its (trigger, scheduled_for) already has one. Two statements for the
   * whole batch; concurrent callers split the ticks between them, each tick claimed and recorded once.
   * Returns the claims this caller won, in input order, with whether their run was recorded.
   */
  claimTicks(claims: readonly TickClaim[], firedAt: number): Promise<{ triggerId: string; recorded: boolean }[]>;
  /** Inserts the run unless its tick or delivery id already has one (UNIQUE keys); true when inserted. */
  insertRun(run: RoutineRun): Promise<boolean>;
  getRun(id: string): Promise<RoutineRun | undefined>;
  runByDelivery(triggerId: string, deliveryId: string): Promise<RoutineRun | undefined>;
  /**
   * Frees this delivery id if its run started at or before `startedBefore` (its idempotency window
   * has passed), so the same id fires again: one guarded UPDATE.
   */
  retireDeliveryBefore(triggerId: string, deliveryId: string, startedBefore: number): Promise<void>;
  runsOf(routineId: string, limit: number): Promise<RoutineRun[]>;
  /**
   * Where a received run went (skipped, coalesced, a task, a wakeup) and its links, while it is still
   * `received`; false when another path routed it. Its outcome is written only by `settleRun`, which frees its slot.
   */
  routeRun(id: string, route: RunRoute): Promise<boolean>;
  /**
   * Writes the outcome of a run whose outcome is still null, which frees the cap slots it holds (in
   * the same statement, whoever writes an outcome). Undefined when the run had an outcome already
   * (another path settled it).
   */
  settleRun(id: string, patch: Pick<RoutineRun, 'outcome' | 'completed_at'> & Partial<Pick<RoutineRun, 'status' | 'error'>>): Promise<RoutineRun | undefined>;
  /**
   * Takes a slot for this run under both routine-run caps (API.md, "Routine-run caps"): the
   * deployment's and its agent's (null: no cap), each a counter row raised only while below its cap.
   * False, with nothing taken, when either is full. The slot is the run's until `settleRun` or `releaseRunSlot`.
   */
  takeRunSlot(runId: string, agentId: string, caps: { deployment: number; agent: number | null }): Promise<boolean>;
  /**
   * `takeRunSlot` for a batch of runs in a few statements: the deployment's counter is raised by the
   * whole batch only if it stays within `deploymentCap`, then each agent's by its share only if it
   * stays within that agent's max_concurrent_routine_runs (read in the same statement; a deleted
   * agent takes none). Returns the runs that hold a slot now; the others hold none (take theirs one
   * by one, in order, so that a cap still grants what room it has).
   */
  takeRunSlots(runs: readonly { runId: string; agentId: string }[], deploymentCap: number): Promise<Set<string>>;
  /** Gives back the slots a run holds (it ended coalesced or skipped after taking them); false when it held none. */
  releaseRunSlot(runId: string): Promise<boolean>;
  /**
   * `takeRunSlot` for a wakeup that unattended follow-on work made (a subtask's assignment, a wake of
   * another agent): the same counters, so fan-out from a routine counts against both caps. False,
   * with nothing taken, when either is full. The wakeup's end frees the slot in the statement that
   * ends it (migration 0020), whoever ends it.
   */
  takeWakeupSlot(wakeupId: string, agentId: string, caps: { deployment: number; agent: number | null }): Promise<boolean>;
  /** Active routine runs with this fingerprint (API.md, "Active"), oldest first. */
  activeRuns(routineId: string, fingerprint: string): Promise<RoutineRun[]>;
  /** `activeRuns` of several routines in one read, by routine id (a routine with none is left out). */
  activeRunsOf(keys: readonly { routineId: string; fingerprint: string }[]): Promise<Map<string, RoutineRun[]>>;
  /** Dispatched or task-creating runs whose outcome is still null, oldest first. */
  openRunsOf(routineId: string): Promise<RoutineRun[]>;
  /** Routine runs holding a cap slot, deployment-wide or of one agent: the counter row, not a count over runs. */
  countActiveRuns(filter: { agent_id?: string }): Promise<number>;
  runByTask(taskId: string): Promise<RoutineRun | undefined>;
  /** The first `task_assigned` wakeup of a task: a heavy routine run's own wakeup. */
  assignmentWakeupIdOf(taskId: string): Promise<string | undefined>;
}

/**
 * Who may act on an agent: the owner that holds its lease, at the epoch it took it with. Statements
 * that act for an owner (a claim, a finish) carry it as a condition, never as a separate read.
 */
export interface Fence {
  owner_id: string;
  epoch: number;
}

export interface AgentLease extends Fence {
  agent_id: string;
  /** Null: never expires (SQLite: the next boot takes it over). */
  expires_at: number | null;
}

/**
 * Agent ownership. Each operation is one statement, so it is atomic however many owners call it at
 * once: the epoch of an agent grows by one each time it changes hands (an INSERT … ON CONFLICT DO
 * UPDATE that reads and bumps it in the same row lock), and every lease returned is the row as that
 * statement left it. Reads of other repositories scoped by owner (listLive, listUnfinished,
 * snapshots.all) see the leases of the same transaction.
 */
export interface LeaseRepo {
  /**
   * Takes every live agent (and every deleted one that still has a queued or running run) for
   * `owner`, whoever held it, epoch + 1 each (1 for an agent never leased): the SQLite boot, where
   * the database lock proves every earlier owner dead. Returns the leases taken.
   */
  takeAll(owner: string, expiresAt: number | null): Promise<AgentLease[]>;
  /** Takes one agent for `owner` (epoch + 1, or 1): a new agent, in the transaction that creates it. */
  take(agentId: string, owner: string, expiresAt: number | null): Promise<AgentLease>;
  /** An agent's lease, whoever holds it. */
  leaseOf(agentId: string): Promise<AgentLease | undefined>;
  /** The leases `owner` holds, expired or not. */
  held(owner: string): Promise<AgentLease[]>;
  /** Ends `owner`'s leases at `at` (all of them, or those of `agentIds`), keeping their epochs; returns how many. */
  release(owner: string, at: number, agentIds?: readonly string[]): Promise<number>;
}

/** A scheduler process registered on the database, as GET /api/office/replicas shows it. */
export interface Replica {
  id: string;
  started_at: number;
  heartbeat_at: number;
  /** Null: lives as long as its process holds the database (SQLite). */
  expires_at: number | null;
  /** Agents whose unexpired lease it holds. */
  agents_owned: number;
}

/** What one heartbeat learnt: the leases it renewed, who is alive, and whether agents wait for an owner. */
export interface Heartbeat {
  /** The leases of this replica that were still its own and unexpired, now renewed. */
  renewed: { agent_id: string; epoch: number }[];
  /** Ids of the live replicas (this one included), sorted. */
  live: string[];
  /** Agents that need an owner and have no unexpired lease: a dead or leaving replica's. */
  orphans: number;
}

/**
 * Replica membership and the hand-over of agents between replicas (PostgreSQL; SQLite registers
 * its one process and never heartbeats). Expiries are times of the caller's clock.
 */
export interface ReplicaRepo {
  /**
   * Registers replica `id` (started now, alive until `expiresAt`). False, with nothing written,
   * when a live replica (unexpired) already has this id.
   */
  register(id: string, now: number, expiresAt: number | null): Promise<boolean>;
  /** Forgets every other replica: SQLite's boot, where the database lock proves them dead. */
  retireOthers(id: string): Promise<void>;
  /**
   * Renews the replica's heartbeat and every unexpired lease it holds to `expiresAt`, and reads who
   * is alive and how many agents wait for an owner: ONE statement on PostgreSQL (a data-modifying
   * CTE), so an idle replica runs nothing else.
   */
  heartbeat(id: string, now: number, expiresAt: number): Promise<Heartbeat>;
  /** Agents that need an owner (live ones, and deleted ones with an unfinished run) with no lease unexpired at `now`, by id. */
  orphans(now: number): Promise<string[]>;
  /**
   * Takes those of `agentIds` whose lease is absent or expired at `now` for `owner` (epoch + 1, or
   * 1), in one statement that checks the expiry again on the locked row: of two replicas taking one
   * agent, one wins. Returns the leases taken.
   */
  takeOver(owner: string, agentIds: readonly string[], now: number, expiresAt: number): Promise<AgentLease[]>;
  /** The live replicas at `now` (unexpired, or never expiring), by id, with the agents each holds. */
  list(now: number): Promise<Replica[]>;
  /** Who holds each of these agents at `now` (unexpired leases only). */
  holders(agentIds: readonly string[], now: number): Promise<Map<string, string>>;
  /** The replica leaves: its row expires at `at` (its leases are released by leases.release). */
  leave(id: string, at: number): Promise<void>;
}

export interface SnapshotRepo {
  save(entries: { actor_id: string; kind: string; snapshot: unknown }[], at: number): Promise<void>;
  get(actorId: string): Promise<unknown | undefined>;
  /**
   * The snapshots of one kind whose actor this owner holds: an agent's snapshot is owned with the
   * agent, a schedule trigger's with its routine's assignee.
   */
  all(kind: SnapshotKind, owner: string): Promise<Map<string, unknown>>;
  delete(actorId: string): Promise<void>;
}

/** The actors whose snapshots are stored, and the agent whose lease owns each. */
export type SnapshotKind = 'agent' | 'trigger';

/** A take of due deliveries (DeliveryRepo.take). */
export interface DeliveryTake {
  /** At most this many, the longest due first. */
  limit: number;
  now: number;
  /** The claim lasts until then: a taker that dies leaves it to whoever takes after it expires. */
  claimUntil: number;
  /** Also take deliveries another owner claimed, whatever their claim says: every other owner is dead (SQLite's boot). */
  takeOver: boolean;
}

/**
 * Routine result deliveries still to make (routine_deliveries; API.md: routine run `delivery_status`),
 * taken with expiring claims like the outbox: each lives until it is delivered or gives up, whatever
 * happens to the process that took it. Each operation is one statement, or two in its transaction.
 */
export interface DeliveryRepo {
  /**
   * Records a delivery to make (first attempt at `next_attempt_at`) and marks its routine run's
   * delivery_status `pending`. False, with nothing written, when the run has one already.
   */
  schedule(delivery: Pick<PendingDelivery, 'routine_run_id' | 'url' | 'body' | 'next_attempt_at' | 'created_at'>): Promise<boolean>;
  /** Claims for `owner` the deliveries due at `now` that no live claim holds, in one UPDATE … RETURNING: two takers never get the same one. */
  take(owner: string, batch: DeliveryTake): Promise<PendingDelivery[]>;
  /** A failed attempt, while `owner` holds the claim: counts it, lets the claim go and sets the next attempt. False when the claim was lost. */
  retryLater(routineRunId: string, owner: string, attempt: { attempts: number; next_attempt_at: number; last_error: string }): Promise<boolean>;
  /**
   * Ends a delivery `owner` holds: its row goes and its routine run's delivery_status becomes `status`,
   * in this transaction. False, with nothing written, when the claim was lost (another took it).
   */
  finish(routineRunId: string, owner: string, status: 'delivered' | 'failed'): Promise<boolean>;
  /** When the next delivery is due, or a claim on one expires; null when none waits. */
  nextDue(): Promise<number | null>;
  get(routineRunId: string): Promise<PendingDelivery | undefined>;
}

export interface OutboxTake {
  /** At most this many events, oldest first. */
  limit: number;
  now: number;
  /** The taken claim lasts until then; null: as long as its owner (SQLite). */
  claimUntil: number | null;
  /**
   * Also take events another owner claimed, whatever their claim says: every other owner is dead
   * (SQLite's boot, where the database lock proves it; the counterpart of `leases.takeAll`).
   */
  takeOver: boolean;
}

export interface OutboxRepo {
  /**
   * Takes a batch of undelivered events for `owner`, oldest first: unclaimed ones, ones whose claim
   * expired at `now` (or, with `takeOver`, claimed by another owner). One UPDATE … RETURNING, so two
   * concurrent takes never return the same event. Parked events are never taken. The events a
   * process writes are claimed by it from the start (see the store's `owner` option): it delivers
   * them itself after commit.
   */
  take(owner: string, batch: OutboxTake): Promise<DomainEvent[]>;
  /**
   * Extends `owner`'s claim on these events (those it still holds) to `until`: a replica renews the
   * events it is still delivering, so that they are taken by another only once it died. One statement.
   */
  renew(owner: string, ids: readonly number[], until: number): Promise<void>;
  /**
   * When the first claim on an undelivered event expires, whoever holds it (a replica restarted under
   * the same id holds none of its earlier boot's claims); null when no claim expires.
   */
  nextClaimExpiry(): Promise<number | null>;
  remove(ids: number[]): Promise<void>;
  /** Keeps a poisoned event for inspection and out of every later replay. */
  park(id: number, error: string, at: number): Promise<void>;
}

/** Dashboard sessions (sign-in): found by the hash of the cookie's secret, and only while unexpired. */
export interface SessionRepo {
  insert(session: Session): Promise<void>;
  /** The session whose secret hashes to `secretHash`, if it has not expired at `now`. */
  live(secretHash: string, now: number): Promise<Session | undefined>;
  /** Signs one session out. */
  remove(id: string): Promise<void>;
  /** Ends every session exchanged for a token (its revocation); returns how many. */
  removeForToken(tokenId: string): Promise<number>;
  /** Forgets sessions that expired at or before `now`; returns how many. */
  removeExpired(now: number): Promise<number>;
}

/** What a stats read is about: a workspace's range, of one agent when given. */
export interface StatsScope extends TimeRange {
  workspace_id: string;
  agent_id?: string | undefined;
}

/**
 * The aggregates behind the dashboard's charts, each ONE statement that groups in SQL: the rows are
 * counted where they are, never carried to the caller one by one. Bucket starts are epoch
 * milliseconds aligned to the bucket width (domain/stats.ts).
 */
export interface StatsRepo {
  /** Wakeups that ended (finished, skipped, coalesced, failed, cancelled) inside the range, by the bucket of their finished_at and their status. */
  wakeupOutcomes(scope: StatsScope, bucket: Bucket): Promise<WakeupOutcomeCount[]>;
  /** Reported costs (the cost ledger) inside the range, summed by the bucket of their created_at. */
  costs(scope: StatsScope, bucket: Bucket): Promise<CostInBucket[]>;
  /** Runs that had started and overlap the range (started before its end, not finished before its start), oldest start first, at most `limit`. */
  runSpans(scope: StatsScope, limit: number): Promise<RunSpan[]>;
}
