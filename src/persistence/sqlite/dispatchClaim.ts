import type { Agent, Budget, Comment, Task, Wakeup } from '../../domain/types.js';
import type { ClaimedWakeup } from '../store.js';
import { budgetTable } from './budgets.js';
import { agentTable } from './org.js';
import type { Sql } from './sql.js';
import type { Table } from './table.js';
import type { TaskRow } from '../tables.js';
import { commentTable, taskTable } from './tasks.js';

/** The claimed row in RETURNING's subqueries. */
const W = 'agent_wakeup_requests';

/** What the last ended run of the (agent, task) pair started at: the resume delta's start. */
const RESUME_SINCE = `(SELECT started_at FROM runs WHERE agent_id = ${W}.agent_id AND task_id = ${W}.task_id
  AND status IN ('succeeded', 'failed', 'interrupted') ORDER BY created_at DESC, id DESC LIMIT 1)`;

/** Spend in a budget's current period, over the ledger column its scope names. */
const SPEND = `(SELECT COALESCE(SUM(c.cost_usd), 0) FROM cost_ledger c
  WHERE (CASE b.scope WHEN 'workspace' THEN c.workspace_id WHEN 'project' THEN c.project_id ELSE c.agent_id END) = b.scope_id
    AND c.created_at >= (CASE b.period WHEN 'daily' THEN @daily WHEN 'monthly' THEN @monthly ELSE 0 END))`;

/**
 * The claim and the read of everything the dispatch decides on, in one statement: RETURNING cannot
 * join, so the agent, the task, the budgets and the comments come back as JSON beside the row.
 */
export class DispatchClaim {
  private readonly agents: Table<Agent>;
  private readonly tasks: Table<TaskRow>;
  private readonly budgets: Table<Budget>;
  private readonly comments: Table<Comment>;
  private readonly statement: string;

  /** `claimWhere` is the claim's UPDATE up to its RETURNING. */
  constructor(private readonly sql: Sql, private readonly wakeups: Table<Wakeup>, claimWhere: string) {
    this.agents = agentTable(sql);
    this.tasks = taskTable(sql);
    this.budgets = budgetTable(sql);
    this.comments = commentTable(sql);
    this.statement = `${claimWhere} RETURNING ${this.returningSql()}`;
  }

  /** `params` are the claim's own parameters. */
  claim(params: Record<string, unknown>, periodStarts: { daily: number; monthly: number }): ClaimedWakeup | undefined {
    const row = this.sql.get<Record<string, unknown>>(this.statement, { ...params, daily: periodStarts.daily, monthly: periodStarts.monthly });
    if (!row) return undefined;
    const { agent_row, task_row, budget_rows, attempts, resume_since, comment_rows, ...wakeup } = row;
    const task = task_row ? (JSON.parse(task_row as string) as Record<string, unknown>) : undefined;
    return {
      wakeup: this.wakeups.decode(wakeup),
      agent: agent_row ? this.agents.decodeObject(JSON.parse(agent_row as string)) : undefined,
      task: task ? (this.tasks.decodeObject(task) as Task) : undefined,
      budgets: (JSON.parse(budget_rows as string) as Record<string, unknown>[]).map(({ spent, ...budget }) => ({
        budget: this.budgets.decodeObject(budget), spent: spent as number,
      })),
      attempts: attempts as number,
      resumeSince: (resume_since as number | null) ?? null,
      comments: (JSON.parse(comment_rows as string) as Record<string, unknown>[]).map((comment) => this.comments.decodeObject(comment)),
    };
  }

  private returningSql(): string {
    const links = (table: string, column: string) =>
      `json((SELECT json_group_array(${column} ORDER BY position) FROM ${table} WHERE task_id = t.id))`;
    return `*,
      (SELECT ${this.agents.jsonObjectSql('a')} FROM agent_instances a WHERE a.id = ${W}.agent_id) AS agent_row,
      (SELECT ${this.tasks.jsonObjectSql('t', { blocked_by: links('task_blockers', 'blocker_task_id'), reviewers: links('task_reviewers', 'agent_id') })}
         FROM tasks t WHERE t.id = ${W}.task_id) AS task_row,
      (SELECT json_group_array(${this.budgets.jsonObjectSql('b', { spent: SPEND })} ORDER BY b.created_at, b.id) FROM budgets b
         WHERE (b.scope = 'workspace' AND b.scope_id = ${W}.workspace_id) OR (b.scope = 'agent' AND b.scope_id = ${W}.agent_id)
            OR (b.scope = 'project' AND b.scope_id = (SELECT project_id FROM tasks WHERE id = ${W}.task_id))) AS budget_rows,
      CASE WHEN ${W}.run_id IS NULL THEN 0 ELSE (SELECT COUNT(*) FROM runs WHERE wakeup_id = ${W}.id) END AS attempts,
      ${RESUME_SINCE} AS resume_since,
      (SELECT json_group_array(${this.comments.jsonObjectSql('c')} ORDER BY c.created_at, c.id) FROM (
         SELECT * FROM comments WHERE task_id = ${W}.task_id AND created_at > COALESCE(${RESUME_SINCE}, 0)
         ORDER BY created_at DESC, id DESC LIMIT 50) c) AS comment_rows`;
  }
}
