/**
 * The charts' aggregates (StatsRepo), on both backends. The two dialects agree on all of it:
 * `@name` parameters, and integer `%` and `/` on the epoch-millisecond columns for the buckets.
 */
import { BUCKET_MS, type Bucket, type CostInBucket, type RunSpan, type WakeupOutcomeCount } from '../../domain/stats.js';
import type { StatsRepo, StatsScope } from '../store.js';
import type { Dialect, SqlRunner } from './dialect.js';
import { openRun } from './openRows.js';

/** A statement's parameters and its optional agent condition. */
function statsParams(scope: StatsScope, extra: Record<string, unknown> = {}) {
  return {
    agentCondition: scope.agent_id === undefined ? '' : 'AND agent_id = @agent_id',
    params: { workspace_id: scope.workspace_id, agent_id: scope.agent_id, from: scope.from, to: scope.to, ...extra },
  };
}

/**
 * Ended wakeups by bucket and status, from the per-minute counters the wakeup triggers keep
 * (wakeup_outcome_counts, SQLite migration 0031, PostgreSQL 0032), not the wakeup rows: retention
 * prunes those, and the chart must not change when it does. A wakeup counts in the minute its
 * finished_at falls in, so a range counts whole minutes.
 */
const WAKEUP_OUTCOMES_SQL = (agentCondition: string) => `
  SELECT minute - minute % @size AS bucket, status, SUM(count) AS count
  FROM wakeup_outcome_counts
  WHERE workspace_id = @workspace_id AND minute >= @from AND minute < @to AND count > 0 ${agentCondition}
  GROUP BY bucket, status ORDER BY bucket, status`;

/** Reported costs by bucket: the ledger is what budgets count, so the chart and the budgets agree. */
const COSTS_SQL = (agentCondition: string) => `
  SELECT created_at - created_at % @size AS bucket, SUM(cost_usd) AS cost_usd, COUNT(*) AS runs
  FROM cost_ledger
  WHERE workspace_id = @workspace_id AND created_at >= @from AND created_at < @to ${agentCondition}
  GROUP BY bucket ORDER BY bucket`;

/**
 * Runs that had started and overlap the range: finished inside or after it, or still running. Two
 * halves, since an OR of them would scan the workspace's runs: the ended ones a seek on (workspace_id,
 * finished_at), which holds ended runs only, and the rest read from runs_active, whose condition the
 * half names as the index writes it (SQLite uses a partial index only then).
 * A run that never started is no bar: one still queued, and one that resolved no executor (it ends
 * at its claim, with nothing launched).
 */
const RUN_SPANS_SQL = (agentCondition: string) => {
  const spans = (ended: string) => `SELECT id, agent_id, status, started_at, finished_at FROM runs
    WHERE workspace_id = @workspace_id AND ${ended} AND started_at < @to AND status <> 'queued' AND executor_kind IS NOT NULL ${agentCondition}`;
  return `SELECT * FROM (${spans('finished_at >= @from')} UNION ALL ${spans(`finished_at IS NULL AND ${openRun()}`)}) AS spans
    ORDER BY started_at, id LIMIT @limit`;
};

export class StatsSql implements StatsRepo {
  private readonly sql: SqlRunner;
  constructor(dialect: Dialect) {
    this.sql = dialect.sql;
  }

  async wakeupOutcomes(scope: StatsScope, bucket: Bucket) {
    const { agentCondition, params } = statsParams(scope, { size: BUCKET_MS[bucket] });
    return this.sql.all<WakeupOutcomeCount>(WAKEUP_OUTCOMES_SQL(agentCondition), params);
  }

  async costs(scope: StatsScope, bucket: Bucket) {
    const { agentCondition, params } = statsParams(scope, { size: BUCKET_MS[bucket] });
    return this.sql.all<CostInBucket>(COSTS_SQL(agentCondition), params);
  }

  async runSpans(scope: StatsScope, limit: number) {
    const { agentCondition, params } = statsParams(scope, { limit });
    return this.sql.all<RunSpan>(RUN_SPANS_SQL(agentCondition), params);
  }
}
