/** Tasks (with their blockers and reviewers), comments and approvals: the statements both backends run (PostgreSQL inserts a task's links its own way: postgres/tasks.ts). */
import { OWNER_REVOKED_REASON, RUN_CANCELLED_REASON } from '../../domain/runCancel.js';
import { RESOLVED_BLOCKER_STATES, TERMINAL_TASK_STATES, type Approval, type Comment, type Task, type TaskState } from '../../domain/types.js';
import type { ApprovalRepo, CheckoutWaiter, CommentRepo, TaskFields, TaskFilter, TaskRepo } from '../store.js';
import { afterPosition, clampLimit, orderBy, paged } from './filters.js';
import { HISTORY_PAGE_SIZE, LISTS, MAX_PAGE_SIZE, type ListPage } from '../../domain/pagination.js';
import { APPROVALS, COMMENTS, TASKS, type TaskRow } from '../tables.js';
import { sqlList, type Dialect, type RowChange, type RowTable, type SqlRunner } from './dialect.js';
import { checkoutWaiters } from './runs.js';
import { openWakeup } from './openRows.js';

/** The cancel reasons that are a person's decision, which the recovery sweep respects. */
const PERSON_CANCELS = sqlList([RUN_CANCELLED_REASON, OWNER_REVOKED_REASON]);

const RESOLVED_BLOCKER_SQL = sqlList(RESOLVED_BLOCKER_STATES);
const TERMINAL_STATE_SQL = sqlList(TERMINAL_TASK_STATES);

/** The tables of a task's links (its blockers, its reviewers). */
export type LinkTable = 'task_blockers' | 'task_reviewers';

export class TasksSql implements TaskRepo {
  private readonly table: RowTable<TaskRow>;
  protected readonly sql: SqlRunner;
  /** A task's workspace exists, and its assignee (live), project and parent belong to it. */
  private readonly referencesHold: string;
  /** The rows of tasks `t` with both their links beside them, as JSON arrays (read with `linked`). */
  private readonly withLinks: string;
  /** withLinks for a RETURNING clause, which names the row by its table. */
  private readonly returningLinks: string;

  constructor(private readonly dialect: Dialect) {
    this.sql = dialect.sql;
    this.table = dialect.table(TASKS);
    const unset = (param: string) => `${dialect.cast(param, 'text')} IS NULL`;
    this.referencesHold = `EXISTS (SELECT 1 FROM workspaces WHERE id = @workspace_id AND deleted_at IS NULL)
      AND (${unset('@assignee_agent_instance_id')} OR EXISTS (SELECT 1 FROM agent_instances
        WHERE id = @assignee_agent_instance_id AND workspace_id = @workspace_id AND deleted_at IS NULL))
      AND (${unset('@project_id')} OR EXISTS (SELECT 1 FROM projects WHERE id = @project_id AND workspace_id = @workspace_id))
      AND (${unset('@parent_id')} OR EXISTS (SELECT 1 FROM tasks WHERE id = @parent_id AND workspace_id = @workspace_id))`;
    const links = (table: LinkTable, column: string, row: string) => dialect.jsonValues(column, `FROM ${table} WHERE task_id = ${row}.id`, 'position');
    const linksOf = (row: string) => `${links('task_blockers', 'blocker_task_id', row)} AS blocked_by__links,
      ${links('task_reviewers', 'agent_id', row)} AS reviewers__links`;
    this.withLinks = `t.*, ${linksOf('t')}`;
    this.returningLinks = `*, ${linksOf('tasks')}`;
  }

  async insert(task: Task) {
    const { blocked_by, reviewers, ...row } = task;
    if (!(await this.table.insertIf(row, this.referencesHold))) return false;
    await this.insertLinks('task_blockers', 'blocker_task_id', task.id, blocked_by);
    await this.insertLinks('task_reviewers', 'agent_id', task.id, reviewers);
    return true;
  }

  async get(id: string) {
    // One statement: the links come back as JSON arrays beside the row.
    return (await this.linked(`SELECT ${this.withLinks} FROM tasks t WHERE t.id = ?`, [id]))[0];
  }

  async list(filter: TaskFilter) {
    const parts: string[] = [];
    const params: Record<string, unknown> = { limit: clampLimit(filter.limit, HISTORY_PAGE_SIZE, MAX_PAGE_SIZE + 1) };
    if (filter.workspace_id) { parts.push('workspace_id = @workspace_id'); params.workspace_id = filter.workspace_id; }
    if (filter.assignee) { parts.push('assignee_agent_instance_id = @assignee'); params.assignee = filter.assignee; }
    if (filter.state) { parts.push('state = @state'); params.state = filter.state; }
    if (filter.parent_id) { parts.push('parent_id = @parent_id'); params.parent_id = filter.parent_id; }
    if (!filter.include_routine) parts.push("workflow <> 'routine'");
    const page = afterPosition({ where: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params }, filter.after, LISTS.tasks);
    return this.linked(`SELECT ${this.withLinks} FROM tasks t ${page.where} ${orderBy(LISTS.tasks)} LIMIT @limit`, page.params);
  }

  async edit(id: string, fields: TaskFields) { return this.transition(id, { patch: fields }, 'TRUE'); }

  async reassign(id: string, from: string | null, to: string | null, at: number) {
    return this.transition(id, { patch: { assignee_agent_instance_id: to, assigned_at: to ? at : null, updated_at: at } },
      `assignee_agent_instance_id IS NOT DISTINCT FROM ${this.dialect.cast('@from', 'text')}`, { from });
  }

  async move(id: string, from: TaskState, to: TaskState, at: number) {
    const ends = to === 'DONE' || to === 'CANCELLED' ? { completed_at: at } : to === 'ARCHIVED' ? { archived_at: at } : {};
    return this.transition(id, { patch: { state: to, updated_at: at, ...ends } }, 'state = @from', { from });
  }

  /** A guarded transition of the task's row, answered with its links as the row's reads are. */
  private async transition(id: string, change: RowChange<TaskRow>, guard: string, params: Record<string, unknown> = {}): Promise<Task | undefined> {
    const row = await this.table.transition(id, change, guard, params, this.returningLinks);
    return row && this.withLinksOf(row);
  }

  async unassignOpen(agentId: string, at: number) {
    return this.sql.all<{ id: string; workspace_id: string; title: string }>(
      `UPDATE tasks SET assignee_agent_instance_id = NULL, assigned_at = NULL, updated_at = ?
       WHERE assignee_agent_instance_id = ? AND state NOT IN (${TERMINAL_STATE_SQL}) RETURNING id, workspace_id, title`, [at, agentId]);
  }

  async setBlockers(id: string, blockerIds: string[]) {
    await this.sql.run('DELETE FROM task_blockers WHERE task_id = ?', [id]);
    await this.insertLinks('task_blockers', 'blocker_task_id', id, blockerIds);
  }

  async setReviewers(id: string, agentIds: string[]) {
    await this.sql.run('DELETE FROM task_reviewers WHERE task_id = ?', [id]);
    await this.insertLinks('task_reviewers', 'agent_id', id, agentIds);
  }

  /** The links numbered in the order given (duplicates dropped): a statement each, all sent before the first is awaited. */
  protected async insertLinks(table: LinkTable, column: string, taskId: string, ids: string[]) {
    await Promise.all([...new Set(ids)].map((linked, position) =>
      this.sql.run(`INSERT INTO ${table} (task_id, ${column}, position) VALUES (?, ?, ?)`, [taskId, linked, position])));
  }

  async countActionable(agentId: string) {
    return (await this.sql.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM tasks
       WHERE assignee_agent_instance_id = ? AND state IN ('TODO', 'IN_PROGRESS') AND archived_at IS NULL`,
      [agentId]))!.n;
  }

  async countByStateIn(workspaceId: string, since: number) {
    const rows = await this.sql.all<{ state: TaskState; n: number }>(
      'SELECT state, COUNT(*) AS n FROM tasks WHERE workspace_id = ? AND updated_at >= ? GROUP BY state', [workspaceId, since]);
    return Object.fromEntries(rows.map((row) => [row.state, row.n])) as Partial<Record<TaskState, number>>;
  }

  async checkout(taskId: string, agentId: string, wakeupId: string, at: number) {
    // A wakeup that already holds the lock (a retry of the same dispatch) keeps it.
    const result = await this.sql.run(
      `UPDATE tasks SET checkout_agent_id = @agent, checkout_wakeup_id = @wakeup, checkout_at = @at
       WHERE id = @task AND (checkout_agent_id IS NULL OR checkout_wakeup_id = @wakeup)`,
      { agent: agentId, wakeup: wakeupId, at, task: taskId });
    return result.changes === 1;
  }

  async releaseCheckout(taskId: string, wakeupId: string) {
    const released = await this.sql.get<{ waiters: unknown }>(
      `UPDATE tasks SET checkout_agent_id = NULL, checkout_wakeup_id = NULL, checkout_at = NULL
       WHERE id = @task AND checkout_wakeup_id = @wakeup
       RETURNING ${checkoutWaiters(this.dialect, '@task')} AS waiters`,
      { task: taskId, wakeup: wakeupId });
    return released ? this.dialect.parsed<CheckoutWaiter[]>(released.waiters) : null;
  }

  async dependentsOf(blockerId: string) {
    return this.linked(
      `SELECT ${this.withLinks} FROM tasks t JOIN task_blockers b ON b.task_id = t.id WHERE b.blocker_task_id = ? ORDER BY t.created_at, t.id`,
      [blockerId]);
  }

  async openBlockers(taskId: string) {
    return (await this.sql.all<{ id: string }>(
      `SELECT b.blocker_task_id AS id FROM task_blockers b JOIN tasks t ON t.id = b.blocker_task_id
       WHERE b.task_id = ? AND t.state NOT IN (${RESOLVED_BLOCKER_SQL}) ORDER BY t.created_at, t.id`, [taskId])).map((row) => row.id);
  }

  async children(parentId: string) {
    return this.linked(`SELECT ${this.withLinks} FROM tasks t WHERE parent_id = ? ORDER BY created_at, id`, [parentId]);
  }

  async recoveryCandidates(createdSince: number, workspaceId: string, agentId?: string) {
    // Only the current assignee's wakeups since the task was last assigned count (a former
    // assignee's do not), and a wakeup that ended `finished` with no run never worked on it (its
    // agent was paused or stopped): the sweep is what picks such tasks up. A person's cancel is
    // final (API.md, "Trust boundaries"): a task whose wakeup a person cancelled waits for a new
    // event, and the sweep never starts it again on its own.
    return this.linked(
      `SELECT ${this.withLinks} FROM tasks t
       WHERE t.workspace_id = @workspace AND t.state = 'TODO' AND t.assignee_agent_instance_id IS NOT NULL
         AND (${this.dialect.cast('@agent', 'text')} IS NULL OR t.assignee_agent_instance_id = @agent)
         AND t.archived_at IS NULL AND t.created_at >= @since
         AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests w
                         WHERE w.task_id = t.id AND w.agent_id = t.assignee_agent_instance_id
                           AND w.requested_at >= COALESCE(t.assigned_at, t.created_at)
                           AND (${openWakeup('w.status')}
                                OR (w.status = 'finished' AND w.run_id IS NOT NULL)
                                OR (w.status = 'cancelled' AND w.cancel_reason IN (${PERSON_CANCELS}))))
       ORDER BY t.created_at, t.id`, { workspace: workspaceId, since: createdSince, agent: agentId ?? null });
  }

  /** Tasks read with their links beside them (withLinks): one statement, however many tasks. */
  private async linked(text: string, params: Record<string, unknown> | unknown[]): Promise<Task[]> {
    return (await this.table.many(text, params)).map((row) => this.withLinksOf(row));
  }

  private withLinksOf(row: TaskRow): Task {
    const { blocked_by__links, reviewers__links, ...task } = row as TaskRow & { blocked_by__links: unknown; reviewers__links: unknown };
    return { ...task, blocked_by: this.dialect.parsed<string[]>(blocked_by__links), reviewers: this.dialect.parsed<string[]>(reviewers__links) };
  }
}

export class CommentsSql implements CommentRepo {
  private readonly table: RowTable<Comment>;
  constructor(dialect: Dialect) {
    this.table = dialect.table(COMMENTS);
  }
  async insert(comment: Comment) { await this.table.insert(comment); }
  async get(id: string) { return this.table.get(id); }
  async listByTask(taskId: string, since = 0, page?: ListPage) {
    const { tail, params } = paged({ where: 'WHERE task_id = @task_id AND created_at > @since', params: { task_id: taskId, since } }, page, LISTS.comments);
    return this.table.many(`SELECT * FROM comments ${tail}`, params);
  }
}

export class ApprovalsSql implements ApprovalRepo {
  private readonly table: RowTable<Approval>;
  private readonly sql: SqlRunner;
  constructor(dialect: Dialect) {
    this.sql = dialect.sql;
    this.table = dialect.table(APPROVALS);
  }
  async insert(approval: Approval) { await this.table.insert(approval); }
  async insertPending(approval: Approval) {
    if (await this.table.insert(approval, 'ignore')) return { approval, created: true };
    // The loser of a race, or a task already waiting: the approval it waits on (committed, so this statement sees it).
    const pending = approval.task_id === null ? undefined : await this.pendingForTask(approval.task_id);
    if (!pending) throw new Error(`approval '${approval.id}' was not stored and its task '${approval.task_id}' has no pending approval: its id is taken`);
    return { approval: pending, created: false };
  }
  async get(id: string) { return this.table.get(id); }
  async resolve(id: string, status: 'approved' | 'rejected', note: string | null, at: number) {
    return this.table.transition(id, { patch: { status, decision_note: note, resolved_at: at } }, "status = 'pending'");
  }
  async pendingForTask(taskId: string) {
    return this.table.one("SELECT * FROM approvals WHERE task_id = ? AND status = 'pending' ORDER BY created_at, id LIMIT 1", [taskId]);
  }
}
