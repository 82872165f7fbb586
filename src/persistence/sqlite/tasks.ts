import { RESOLVED_BLOCKER_STATES, TERMINAL_TASK_STATES, type Approval, type Comment, type Task, type TaskState } from '../../domain/types.js';
import type { ApprovalRepo, CheckoutWaiter, CommentRepo, TaskFilter, TaskRepo } from '../store.js';
import type { Sql } from './sql.js';
import { Table, clampLimit } from './table.js';
import { APPROVALS, COMMENTS, TASKS, type TaskRow } from '../tables.js';

const RESOLVED_BLOCKER_SQL = RESOLVED_BLOCKER_STATES.map((state) => `'${state}'`).join(', ');
const TERMINAL_STATE_SQL = TERMINAL_TASK_STATES.map((state) => `'${state}'`).join(', ');

export const taskTable = (sql: Sql) => new Table(sql, TASKS);
export const commentTable = (sql: Sql) => new Table(sql, COMMENTS);

/** A task's workspace exists, and its assignee (live), project and parent belong to it. */
const REFERENCES_HOLD = `EXISTS (SELECT 1 FROM workspaces WHERE id = @workspace_id)
  AND (@assignee_agent_instance_id IS NULL OR EXISTS (SELECT 1 FROM agent_instances
    WHERE id = @assignee_agent_instance_id AND workspace_id = @workspace_id AND deleted_at IS NULL))
  AND (@project_id IS NULL OR EXISTS (SELECT 1 FROM projects WHERE id = @project_id AND workspace_id = @workspace_id))
  AND (@parent_id IS NULL OR EXISTS (SELECT 1 FROM tasks WHERE id = @parent_id AND workspace_id = @workspace_id))`;

export class SqliteTasks implements TaskRepo {
  private readonly table: Table<TaskRow>;
  constructor(private readonly sql: Sql) {
    this.table = taskTable(sql);
  }

  async insert(task: Task) {
    const { blocked_by, reviewers, ...row } = task;
    if (!this.table.insertIf(row, REFERENCES_HOLD)) return false;
    this.insertLinks('task_blockers', 'blocker_task_id', task.id, blocked_by);
    this.insertLinks('task_reviewers', 'agent_id', task.id, reviewers);
    return true;
  }

  async get(id: string) {
    // One statement: the links come back as JSON arrays beside the row.
    const row = this.sql.get<Record<string, unknown>>(
      `SELECT t.*,
         (SELECT json_group_array(blocker_task_id) FROM (SELECT blocker_task_id FROM task_blockers WHERE task_id = t.id ORDER BY position)) AS blocked_by,
         (SELECT json_group_array(agent_id) FROM (SELECT agent_id FROM task_reviewers WHERE task_id = t.id ORDER BY position)) AS reviewers
       FROM tasks t WHERE t.id = ?`, [id]);
    if (!row) return undefined;
    const blocked_by = JSON.parse(row.blocked_by as string) as string[];
    const reviewers = JSON.parse(row.reviewers as string) as string[];
    delete row.blocked_by;
    delete row.reviewers;
    return { ...this.table.decode(row), blocked_by, reviewers };
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
    const rows = this.table.many(`SELECT * FROM tasks ${where} ORDER BY created_at DESC, id LIMIT @limit`, params);
    return rows.map((row) => this.withLinks(row));
  }

  async update(id: string, patch: Partial<TaskRow>) { this.table.update(id, patch); }

  async unassignOpen(agentId: string, at: number) {
    return this.sql.all<{ id: string; workspace_id: string; title: string }>(
      `UPDATE tasks SET assignee_agent_instance_id = NULL, assigned_at = NULL, updated_at = ?
       WHERE assignee_agent_instance_id = ? AND state NOT IN (${TERMINAL_STATE_SQL}) RETURNING id, workspace_id, title`, [at, agentId]);
  }

  async setBlockers(id: string, blockerIds: string[]) {
    this.sql.run('DELETE FROM task_blockers WHERE task_id = ?', [id]);
    this.insertLinks('task_blockers', 'blocker_task_id', id, blockerIds);
  }

  async setReviewers(id: string, agentIds: string[]) {
    this.sql.run('DELETE FROM task_reviewers WHERE task_id = ?', [id]);
    this.insertLinks('task_reviewers', 'agent_id', id, agentIds);
  }

  private insertLinks(table: 'task_blockers' | 'task_reviewers', column: string, taskId: string, ids: string[]) {
    [...new Set(ids)].forEach((linked, position) =>
      this.sql.run(`INSERT INTO ${table} (task_id, ${column}, position) VALUES (?, ?, ?)`, [taskId, linked, position]));
  }

  async countActionable(agentId: string) {
    return this.sql.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM tasks
       WHERE assignee_agent_instance_id = ? AND state IN ('TODO', 'IN_PROGRESS') AND archived_at IS NULL`,
      [agentId])!.n;
  }

  async countByStateIn(workspaceId: string, since: number) {
    const rows = this.sql.all<{ state: TaskState; n: number }>(
      'SELECT state, COUNT(*) AS n FROM tasks WHERE workspace_id = ? AND updated_at >= ? GROUP BY state', [workspaceId, since]);
    return Object.fromEntries(rows.map((row) => [row.state, row.n])) as Partial<Record<TaskState, number>>;
  }

  async checkout(taskId: string, agentId: string, wakeupId: string, at: number) {
    // A wakeup that already holds the lock (a retry of the same dispatch) keeps it.
    const result = this.sql.run(
      `UPDATE tasks SET checkout_agent_id = @agent, checkout_wakeup_id = @wakeup, checkout_at = @at
       WHERE id = @task AND (checkout_agent_id IS NULL OR checkout_wakeup_id = @wakeup)`,
      { agent: agentId, wakeup: wakeupId, at, task: taskId });
    return result.changes === 1;
  }

  async releaseCheckout(taskId: string, wakeupId: string) {
    const released = this.sql.get<{ waiters: string }>(
      `UPDATE tasks SET checkout_agent_id = NULL, checkout_wakeup_id = NULL, checkout_at = NULL
       WHERE id = @task AND checkout_wakeup_id = @wakeup
       RETURNING (SELECT json_group_array(json_object('id', id, 'agent_id', agent_id, 'available_at', available_at)) FROM (
         SELECT id, agent_id, available_at FROM agent_wakeup_requests
         WHERE task_id = @task AND status = 'queued' AND waiting_on_checkout IS NOT NULL ORDER BY requested_at, id)) AS waiters`,
      { task: taskId, wakeup: wakeupId });
    return released ? (JSON.parse(released.waiters) as CheckoutWaiter[]) : null;
  }

  async dependentsOf(blockerId: string) {
    const rows = this.table.many(
      'SELECT t.* FROM tasks t JOIN task_blockers b ON b.task_id = t.id WHERE b.blocker_task_id = ? ORDER BY t.created_at, t.id',
      [blockerId]);
    return rows.map((row) => this.withLinks(row));
  }

  async openBlockers(taskId: string) {
    return this.sql.all<{ id: string }>(
      `SELECT b.blocker_task_id AS id FROM task_blockers b JOIN tasks t ON t.id = b.blocker_task_id
       WHERE b.task_id = ? AND t.state NOT IN (${RESOLVED_BLOCKER_SQL}) ORDER BY t.created_at, t.id`, [taskId]).map((row) => row.id);
  }

  async children(parentId: string) {
    return this.table.many('SELECT * FROM tasks WHERE parent_id = ? ORDER BY created_at, id', [parentId])
      .map((row) => this.withLinks(row));
  }

  async recoveryCandidates(createdSince: number, workspaceId: string, agentId?: string) {
    // Only the current assignee's wakeups since the task was last assigned count (a former
    // assignee's do not), and a wakeup that ended `finished` with no run never worked on it (its
    // agent was paused or stopped): the sweep is what picks such tasks up.
    return this.table.many(
      `SELECT t.* FROM tasks t
       WHERE t.workspace_id = @workspace AND t.state = 'TODO' AND t.assignee_agent_instance_id IS NOT NULL
         AND (@agent IS NULL OR t.assignee_agent_instance_id = @agent)
         AND t.archived_at IS NULL AND t.created_at >= @since
         AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests w
                         WHERE w.task_id = t.id AND w.agent_id = t.assignee_agent_instance_id
                           AND w.requested_at >= COALESCE(t.assigned_at, t.created_at)
                           AND (w.status IN ('queued', 'claimed', 'scheduled_retry')
                                OR (w.status = 'finished' AND w.run_id IS NOT NULL)))
       ORDER BY t.created_at, t.id`, { workspace: workspaceId, since: createdSince, agent: agentId ?? null })
      .map((row) => this.withLinks(row));
  }

  private withLinks(row: TaskRow): Task {
    const blocked_by = this.sql.all<{ id: string }>('SELECT blocker_task_id AS id FROM task_blockers WHERE task_id = ? ORDER BY position', [row.id]).map((r) => r.id);
    const reviewers = this.sql.all<{ id: string }>('SELECT agent_id AS id FROM task_reviewers WHERE task_id = ? ORDER BY position', [row.id]).map((r) => r.id);
    return { ...row, blocked_by, reviewers };
  }
}

export class SqliteComments implements CommentRepo {
  private readonly table: Table<Comment>;
  constructor(sql: Sql) {
    this.table = commentTable(sql);
  }
  async insert(comment: Comment) { this.table.insert(comment); }
  async get(id: string) { return this.table.get(id); }
  async listByTask(taskId: string, since = 0) {
    return this.table.many('SELECT * FROM comments WHERE task_id = ? AND created_at > ? ORDER BY created_at, id', [taskId, since]);
  }
}

export class SqliteApprovals implements ApprovalRepo {
  private readonly table: Table<Approval>;
  constructor(private readonly sql: Sql) {
    this.table = new Table(sql, APPROVALS);
  }
  async insert(approval: Approval) { this.table.insert(approval); }
  async get(id: string) { return this.table.get(id); }
  async resolve(id: string, status: 'approved' | 'rejected', note: string | null, at: number) {
    return this.sql.run(
      "UPDATE approvals SET status = ?, decision_note = ?, resolved_at = ? WHERE id = ? AND status = 'pending'",
      [status, note, at, id]).changes === 1;
  }
  async pendingForTask(taskId: string) {
    return this.table.one("SELECT * FROM approvals WHERE task_id = ? AND status = 'pending' ORDER BY created_at, id LIMIT 1", [taskId]);
  }
}
