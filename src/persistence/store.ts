/**
 * The Store port. Every method is asynchronous so that a PostgreSQL implementation can sit
 * behind the same interface; SQLite answers from the same connection without blocking on I/O.
 *
 * The repositories are grouped by aggregate, one file each under port/, each with its own isolation
 * guarantees at its head; this file holds the rules they all keep, the Store and the Tx.
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
import type { EventOf, EventType } from '../domain/events.js';
import type { WorkspaceRepo, ProjectRepo, AgentRepo } from './port/org.js';
import type { TaskRepo, CommentRepo, ApprovalRepo } from './port/tasks.js';
import type { WakeupRepo } from './port/wakeups.js';
import type { RunRepo, SummaryRepo, TranscriptRepo } from './port/runs.js';
import type { RoutineRepo } from './port/routines.js';
import type { BudgetRepo, QuotaRepo } from './port/spend.js';
import type { LeaseRepo, ReplicaRepo, SnapshotRepo } from './port/ownership.js';
import type { DeliveryRepo, OutboxRepo } from './port/delivery.js';
import type { TokenRepo, SessionRepo, ActivityRepo, InboxRepo } from './port/people.js';
import type { Reads } from './port/reads.js';
import type { RetentionRepo } from './port/retention.js';

export type * from './port/org.js';
export type * from './port/tasks.js';
export type * from './port/wakeups.js';
export type * from './port/runs.js';
export type * from './port/routines.js';
export type * from './port/spend.js';
export type * from './port/ownership.js';
export type * from './port/delivery.js';
export type * from './port/people.js';
export type * from './port/stats.js';
export type * from './port/retention.js';
export type * from './port/reads.js';

export interface Store {
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  read<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /** The read side (port/reads.ts): what the API shows, in one read unit. */
  query<T>(work: (reads: Reads) => Promise<T>): Promise<T>;
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
  readonly tokens: TokenRepo;
  readonly quotas: QuotaRepo;
  readonly transcripts: TranscriptRepo;
  readonly retention: RetentionRepo;
  /**
   * Records the event with this write: its in-transaction subscribers run inside this transaction,
   * before it commits; the others see it only after commit (from the outbox row it leaves).
   */
  emit<K extends EventType>(type: K, payload: EventOf<K>['payload']): void;
  /** Runs after commit, never after a rollback. */
  afterCommit(callback: () => void): void;
}
