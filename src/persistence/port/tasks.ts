/**
 * Tasks with their comments and approvals (the port's rules: persistence/store.ts).
 *
 * Isolation: a task's state and assignee change only through `move`, `reassign` and the checkout,
 * each one UPDATE whose WHERE names the state (or holder) it expects: a move that lost a race answers
 * undefined and writes nothing. `checkout` and `releaseCheckout` are compare-and-set on the holder,
 * under the task's row lock (`FOR NO KEY UPDATE` on PostgreSQL), so one wakeup at a time holds a
 * task. One pending approval per task is a UNIQUE index, not a read.
 */
import type { PagePosition } from '../../domain/pagination.js';
import type { Approval, Comment, Task, TaskState, Wakeup } from '../../domain/types.js';

/** A queued wakeup parked behind a task's checkout: what its agent actor must hear when the task is freed. */
export type CheckoutWaiter = Pick<Wakeup, 'id' | 'agent_id' | 'available_at'>;

export interface TaskFilter {
  workspace_id?: string | undefined;
  assignee?: string | undefined;
  state?: TaskState | undefined;
  parent_id?: string | undefined;
  include_routine?: boolean | undefined;
  limit?: number | undefined;
  /** Rows strictly after this position in the list's order: the page a cursor names (domain/pagination.ts). */
  after?: PagePosition | undefined;
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
