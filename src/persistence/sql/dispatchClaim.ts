import { AGENT_PROGRAM_KINDS, type SessionTotals } from '../../domain/agentPrograms.js';
import type { ExhaustedQuota } from '../../domain/quotas.js';
import type { Agent, Budget, Comment, Task, Wakeup } from '../../domain/types.js';
import type { ClaimedWakeup } from '../store.js';
import { AGENTS, BUDGETS, COMMENTS, TASKS, type TaskRow } from '../tables.js';
import { SPEND_COLUMN } from './budgets.js';
import { andThen, type Dialect, type MaybePromise, type RowTable, type SqlRunner } from './dialect.js';

/** The claimed row in RETURNING's subqueries. */
const W = 'agent_wakeup_requests';

/** The last ended run of the (agent, task) pair: the session a new run may resume. */
const LAST_RUN = `FROM runs WHERE agent_id = ${W}.agent_id AND task_id = ${W}.task_id
  AND status IN ('succeeded', 'failed', 'interrupted', 'cancelled') ORDER BY created_at DESC, id DESC LIMIT 1`;

/** Only an agent program's session is resumed (API.md, "Resumed sessions"): every other run gets the full prompt. */
const RESUMABLE_KINDS: ReadonlySet<string> = new Set(AGENT_PROGRAM_KINDS);

/**
 * The claim and the read of everything the dispatch decides on, in one statement, on both backends:
 * RETURNING cannot join, so the agent, the task, the budgets and the comments come back as JSON
 * beside the row (text on SQLite, parsed by PostgreSQL's driver).
 */
export class DispatchClaim {
  private readonly sql: SqlRunner;
  private readonly agents: RowTable<Agent>;
  private readonly tasks: RowTable<TaskRow>;
  private readonly budgets: RowTable<Budget>;
  private readonly comments: RowTable<Comment>;
  private readonly statement: string;

  /** `claimWhere` is the claim's UPDATE up to its RETURNING. */
  constructor(private readonly dialect: Dialect, private readonly wakeups: RowTable<Wakeup>, claimWhere: string) {
    this.sql = dialect.sql;
    this.agents = dialect.table(AGENTS);
    this.tasks = dialect.table(TASKS);
    this.budgets = dialect.table(BUDGETS);
    this.comments = dialect.table(COMMENTS);
    this.statement = `${claimWhere} RETURNING ${this.returningSql()}`;
  }

  /** `params` are the claim's own parameters. At once on SQLite: the claim is on the dispatch's hot path. */
  claim(params: Record<string, unknown>, periodStarts: { daily: number; monthly: number }): MaybePromise<ClaimedWakeup | undefined> {
    return andThen(this.sql.get<Record<string, unknown>>(this.statement, { ...params, daily: periodStarts.daily, monthly: periodStarts.monthly }),
      (row) => row && this.decoded(row));
  }

  private decoded(row: Record<string, unknown>): ClaimedWakeup {
    const { agent_row, task_row, budget_rows, attempts, previous_session, exhausted_quotas, comment_rows, trace_context, ...wakeup } = row;
    const { parsed } = this.dialect;
    const previous = parsed<Record<string, unknown>[]>(previous_session)[0];
    const previousSession = previousSessionOf(previous);
    return {
      // The one read of a wakeup that carries its trace context (a hidden column): the dispatch continues its trace.
      wakeup: { ...this.wakeups.decode(wakeup), ...(trace_context ? { trace_context: trace_context as string } : {}) },
      agent: agent_row ? this.agents.decodeObject(parsed(agent_row)) : undefined,
      task: task_row ? (this.tasks.decodeObject(parsed(task_row)) as Task) : undefined,
      budgets: parsed<Record<string, unknown>[]>(budget_rows).map(({ spent, ...budget }) => ({
        budget: this.budgets.decodeObject(budget), spent: spent as number,
      })),
      attempts: attempts as number,
      resumeSince: previousSession && RESUMABLE_KINDS.has(previousSession.kind) ? startedAtOf(previous!) : null,
      previousSession,
      exhaustedQuotas: parsed<ExhaustedQuota[]>(exhausted_quotas).map((q) => ({
        ...q, exhausted_until: Number(q.exhausted_until), release_at: Number(q.release_at),
      })),
      comments: parsed<Record<string, unknown>[]>(comment_rows).map((comment) => this.comments.decodeObject(comment)),
    };
  }

  private returningSql(): string {
    const { dialect } = this;
    const periodStart = `(CASE b.period WHEN 'daily' THEN ${dialect.cast('@daily', 'bigint')} WHEN 'monthly' THEN ${dialect.cast('@monthly', 'bigint')} ELSE 0 END)`;
    /**
     * Spend in a budget's current period, summed by the ledger column its scope names: one subquery
     * per scope, so that each is a range of that column's index. Chosen inside one subquery (a CASE
     * on the column), no index served, and every claim with a budget read the whole ledger.
     */
    const spend = `CASE b.scope ${Object.entries(SPEND_COLUMN).map(([scope, column]) => `WHEN '${scope}' THEN
      (SELECT COALESCE(SUM(l.cost_usd), 0) FROM cost_ledger l WHERE l.${column} = b.scope_id AND l.created_at >= ${periodStart})`).join(' ')} END`;
    const links = (table: string, column: string) =>
      dialect.jsonNested(`(SELECT ${dialect.jsonAgg(column, 'position')} FROM ${table} WHERE task_id = t.id)`);
    // `*`: SQLite's RETURNING takes no `table.*`; the UPDATE has no other table, so the two are the same.
    return `*,
      (SELECT ${this.agents.jsonObjectSql('a')} FROM agent_instances a WHERE a.id = ${W}.agent_id) AS agent_row,
      (SELECT ${this.tasks.jsonObjectSql('t', { blocked_by: links('task_blockers', 'blocker_task_id'), reviewers: links('task_reviewers', 'agent_id') })}
         FROM tasks t WHERE t.id = ${W}.task_id) AS task_row,
      (SELECT ${dialect.jsonAgg(this.budgets.jsonObjectSql('b', { spent: spend }), 'b.created_at, b.id')} FROM budgets b
         WHERE (b.scope = 'workspace' AND b.scope_id = ${W}.workspace_id) OR (b.scope = 'agent' AND b.scope_id = ${W}.agent_id)
            OR (b.scope = 'project' AND b.scope_id = (SELECT project_id FROM tasks WHERE id = ${W}.task_id))) AS budget_rows,
      CASE WHEN ${W}.run_id IS NULL THEN 0 ELSE (SELECT COUNT(*) FROM runs WHERE wakeup_id = ${W}.id) END AS attempts,
      ${dialect.jsonRows({ id: 'cli_session_id', kind: 'executor_kind', totals: 'cli_session_totals', started_at: 'started_at' },
        `FROM (SELECT cli_session_id, executor_kind, cli_session_totals, started_at, created_at ${LAST_RUN}) p WHERE cli_session_id IS NOT NULL`, 'created_at')} AS previous_session,
      ${dialect.jsonRows({ key: 'key', kind: 'kind', exhausted_until: 'exhausted_until', release_at: 'release_at' },
        `FROM agent_quotas WHERE release_at > ${dialect.cast('@at', 'bigint')}`, 'release_at')} AS exhausted_quotas,
      (SELECT ${dialect.jsonAgg(this.comments.jsonObjectSql('c'), 'c.created_at, c.id')} FROM (
         SELECT * FROM comments WHERE task_id = ${W}.task_id ORDER BY created_at DESC, id DESC LIMIT 50) c) AS comment_rows`;
  }
}

/**
 * When the last run started: the resume delta's start. It comes with the session's row, so the last
 * run is sought once, not twice (6 µs a claim).
 */
function startedAtOf(row: Record<string, unknown>): number | null {
  return row.started_at === null || row.started_at === undefined ? null : Number(row.started_at);
}

/** The session the last run recorded; its totals are stored as JSON text. */
function previousSessionOf(row: Record<string, unknown> | undefined): ClaimedWakeup['previousSession'] {
  if (!row || typeof row.id !== 'string') return null;
  const totals = typeof row.totals === 'string' ? (JSON.parse(row.totals) as SessionTotals) : ((row.totals ?? null) as SessionTotals | null);
  return { id: row.id, kind: String(row.kind), totals };
}
