import { RESOLVED_BLOCKER_STATES, TERMINAL_TASK_STATES, type Approval, type Comment, type Task, type TaskState } from '../../domain/types.js';
import type { ApprovalRepo, CheckoutWaiter, CommentRepo, TaskFilter, TaskRepo } from '../store.js';
import { clampLimit } from '../sqlite/table.js';
import type { PgSql } from './sql.js';
import { PgTable } from './table.js';
import { APPROVALS, COMMENTS, TASKS, type TaskRow } from '../tables.js';

const RESOLVED_BLOCKER_SQL = RESOLVED_BLOCKER_STATES.map((state) => `'${state}'`).join(', ');
const TERMINAL_STATE_SQL = TERMINAL_TASK_STATES.map((state) => `'${state}'`).join(', ');

export const taskTable = (sql: PgSql) => new PgTable(sql, TASKS);
export const commentTable = (sql: PgSql) => new PgTable(sql, COMMENTS);

/** A task's workspace exists, and its assignee (live), project and parent belong to it. */
const REFERENCES_HOLD = `EXISTS (SELECT 1 FROM workspaces WHERE id = @workspace_id)
  AND (@assignee_agent_instance_id::text IS NULL OR EXISTS (SELECT 1 FROM agent_instances
    WHERE id = @assignee_agent_instance_id AND workspace_id = @workspace_id AND deleted_at IS NULL))
  AND (@project_id::text IS NULL OR EXISTS (SELECT 1 FROM projects WHERE id = @project_id AND workspace_id = @workspace_id))
  AND (@parent_id::text IS NULL OR EXISTS (SELECT 1 FROM tasks WHERE id = @parent_id AND workspace_id = @workspace_id))`;

/** The queued wakeups parked behind a task's checkout, oldest first, as a JSON array (for RETURNING). */
export const CHECKOUT_WAITERS = (taskColumn: string) => `(SELECT COALESCE(json_agg(json_build_object('id', id, 'agent_id', agent_id,
    'available_at', available_at) ORDER BY requested_at, id), '[]'::json) FROM agent_wakeup_requests
  WHERE task_id = ${taskColumn} AND status = 'queued' AND waiting_on_checkout IS NOT NULL)`;

/** A task's links of one kind, in their order, as a JSON array. */
const LINKS = (table: string, column: string, taskColumn: string) =>
  `(SELECT COALESCE(json_agg(${column} ORDER BY position), '[]'::json) FROM ${table} WHERE task_id = ${taskColumn})`;

/** Both links of the rows of `alias`, beside them. */
const WITH_LINKS = (alias: string) => `${alias}.*, ${LINKS('task_blockers', 'blocker_task_id', `${alias}.id`)} AS blocked_by__links,
  ${LINKS('task_reviewers', 'agent_id', `${alias}.id`)} AS reviewers__links`;

export class PgTasks implements TaskRepo {
  private readonly table: PgTable<TaskRow>;
  constructor(private readonly sql: PgSql) {
    this.table = taskTable(sql);
  }

  async insert(task: Task) {
    const { blocked_by, reviewers, ...row } = task;
    if (!(await this.table.insertIf(row, REFERENCES_HOLD))) return false;
    await this.insertLinks('task_blockers', 'blocker_task_id', task.id, blocked_by);
    await this.insertLinks('task_reviewers', 'agent_id', task.id, reviewers);
    return true;
  }

  async get(id: string) {
    // One statement: the links come back as JSON arrays beside the row.
    return this.linked(`SELECT ${WITH_LINKS('t')} FROM tasks t WHERE t.id = ?`, [id]).then((rows) => rows[0]);
  }

  async list(filter: TaskFilter) {
    const parts: string[] = [];
    const params: Record<string, unknown> = { limit: clampLimit(filter.limit, 200) };
    if (filter.workspace_id) { parts.push('workspace_id = @workspace_id'); params.workspace_id = filter.workspace_id; }
    if (filter.assignee) { parts.push('assignee_agent_instance_id = @assignee'); params.assignee = filter.assignee; }
    if (filter.state) { parts.push('state = @state'); params.state = filter.state; }
    if (filter.parent_id) { parts.push('parent_id = @parent_id'); params.parent_id = filter.parent_id; }
    if (!filter.include_routine) parts.push("workflow <> 'routine'");
    const where = parts.length ? `WHERE ${parts.join(' AND ')}` : '';
    return this.linked(`SELECT ${WITH_LINKS('t')} FROM tasks t ${where} ORDER BY created_at DESC, id LIMIT @limit`, params);
  }

  async update(id: string, patch: Partial<TaskRow>) { await this.table.update(id, patch); }

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

  /** Every link in one statement, numbered in the order given (duplicates dropped). */
  private async insertLinks(table: 'task_blockers' | 'task_reviewers', column: string, taskId: string, ids: string[]) {
    if (ids.length === 0) return;
    await this.sql.run(
      `INSERT INTO ${table} (task_id, ${column}, position)
       SELECT ?, l.value, l.ordinality - 1 FROM jsonb_array_elements_text(?::jsonb) WITH ORDINALITY AS l(value, ordinality)`,
      [taskId, [...new Set(ids)]]);
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
    const released = await this.sql.get<{ waiters: CheckoutWaiter[] }>(
      `UPDATE tasks SET checkout_agent_id = NULL, checkout_wakeup_id = NULL, checkout_at = NULL
       WHERE id = @task AND checkout_wakeup_id = @wakeup
       RETURNING ${CHECKOUT_WAITERS('@task')} AS waiters`,
      { task: taskId, wakeup: wakeupId });
    return released ? released.waiters : null;
  }

  async dependentsOf(blockerId: string) {
    return this.linked(
      `SELECT ${WITH_LINKS('t')} FROM tasks t JOIN task_blockers b ON b.task_id = t.id WHERE b.blocker_task_id = ? ORDER BY t.created_at, t.id`,
      [blockerId]);
  }

  async openBlockers(taskId: string) {
    return (await this.sql.all<{ id: string }>(
      `SELECT b.blocker_task_id AS id FROM task_blockers b JOIN tasks t ON t.id = b.blocker_task_id
       WHERE b.task_id = ? AND t.state NOT IN (${RESOLVED_BLOCKER_SQL}) ORDER BY t.created_at, t.id`, [taskId])).map((row) => row.id);
  }

  async children(parentId: string) {
    return this.linked(`SELECT ${WITH_LINKS('t')} FROM tasks t WHERE parent_id = ? ORDER BY created_at, id`, [parentId]);
  }

  async recoveryCandidates(createdSince: number, workspaceId: string, agentId?: string) {
    // Only the current assignee's wakeups since the task was last assigned count (a former
    // assignee's do not), and a wakeup that ended `finished` with no run never worked on it (its
    // agent was paused or stopped): the sweep is what picks such tasks up.
    return this.linked(
      `SELECT ${WITH_LINKS('t')} FROM tasks t
       WHERE t.workspace_id = @workspace AND t.state = 'TODO' AND t.assignee_agent_instance_id IS NOT NULL
         AND (@agent::text IS NULL OR t.assignee_agent_instance_id = @agent)
         AND t.archived_at IS NULL AND t.created_at >= @since
         AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests w
                         WHERE w.task_id = t.id AND w.agent_id = t.assignee_agent_instance_id
                           AND w.requested_at >= COALESCE(t.assigned_at, t.created_at)
                           AND (w.status IN ('queued', 'claimed', 'scheduled_retry')
                                OR (w.status = 'finished' AND w.run_id IS NOT NULL)))
       ORDER BY t.created_at, t.id`, { workspace: workspaceId, since: createdSince, agent: agentId ?? null });
  }

  /** Tasks read with their links beside them (WITH_LINKS): one statement, however many tasks. */
  private async linked(text: string, params: Record<string, unknown> | unknown[]): Promise<Task[]> {
    const rows = await this.sql.all<Record<string, unknown>>(text, params);
    return rows.map((row) => {
      const blocked_by = row.blocked_by__links as string[];
      const reviewers = row.reviewers__links as string[];
      delete row.blocked_by__links;
      delete row.reviewers__links;
      return { ...this.table.decode(row), blocked_by, reviewers };
    });
  }
}

export class PgComments implements CommentRepo {
  private readonly table: PgTable<Comment>;
  constructor(sql: PgSql) {
    this.table = commentTable(sql);
  }
  async insert(comment: Comment) { await this.table.insert(comment); }
  async get(id: string) { return this.table.get(id); }
  async listByTask(taskId: string, since = 0) {
    return this.table.many('SELECT * FROM comments WHERE task_id = ? AND created_at > ? ORDER BY created_at, id', [taskId, since]);
  }
}

export class PgApprovals implements ApprovalRepo {
  private readonly table: PgTable<Approval>;
  constructor(private readonly sql: PgSql) {
    this.table = new PgTable(sql, APPROVALS);
  }
  async insert(approval: Approval) { await this.table.insert(approval); }
  async get(id: string) { return this.table.get(id); }
  async resolve(id: string, status: 'approved' | 'rejected', note: string | null, at: number) {
    return (await this.sql.run(
      "UPDATE approvals SET status = ?, decision_note = ?, resolved_at = ? WHERE id = ? AND status = 'pending'",
      [status, note, at, id])).changes === 1;
  }
  async pendingForTask(taskId: string) {
    return this.table.one("SELECT * FROM approvals WHERE task_id = ? AND status = 'pending' ORDER BY created_at, id LIMIT 1", [taskId]);
  }
}
