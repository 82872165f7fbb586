import { ActivitySql, InboxSql } from './activity.js';
import { BudgetsSql } from './budgets.js';
import { DeliveriesSql } from './deliveries.js';
import type { Dialect } from './dialect.js';
import { LeasesSql } from './leases.js';
import { AgentsSql, ProjectsSql, WorkspacesSql } from './org.js';
import { RetentionSql } from './retention.js';
import { RunsSql } from './runs.js';
import { SessionsSql } from './sessions.js';
import { StatsSql } from './stats.js';
import { QuotasSql } from './quotas.js';
import { SummariesSql } from './summaries.js';
import { ApprovalsSql, CommentsSql, TasksSql } from './tasks.js';
import { TokensSql } from './tokens.js';
import { TranscriptsSql } from './transcripts.js';

/**
 * The repositories whose statements are the same on both backends, on one connection's dialect.
 * A store adds the ones it writes its own way (sqlite/, postgres/) and may replace one of these
 * with its subclass (PostgreSQL's tasks insert their links in one statement).
 */
export function sharedRepos(dialect: Dialect) {
  return {
    workspaces: new WorkspacesSql(dialect),
    projects: new ProjectsSql(dialect),
    agents: new AgentsSql(dialect),
    tasks: new TasksSql(dialect),
    comments: new CommentsSql(dialect),
    approvals: new ApprovalsSql(dialect),
    budgets: new BudgetsSql(dialect),
    activity: new ActivitySql(dialect),
    inbox: new InboxSql(dialect),
    runs: new RunsSql(dialect),
    summaries: new SummariesSql(dialect),
    sessions: new SessionsSql(dialect),
    leases: new LeasesSql(dialect),
    stats: new StatsSql(dialect),
    tokens: new TokensSql(dialect),
    deliveries: new DeliveriesSql(dialect),
    quotas: new QuotasSql(dialect),
    transcripts: new TranscriptsSql(dialect),
    retention: new RetentionSql(dialect),
  };
}
