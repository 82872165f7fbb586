/** The charts' aggregates (StatsRepo) on PostgreSQL: the same statements as SQLite's (sqlite/stats.ts). */
import { BUCKET_MS, type Bucket, type CostInBucket, type RunSpan, type WakeupOutcomeCount } from '../../domain/stats.js';
import { COSTS_SQL, RUN_SPANS_SQL, WAKEUP_OUTCOMES_SQL, statsParams } from '../sqlite/stats.js';
import type { StatsRepo, StatsScope } from '../store.js';
import type { PgSql } from './sql.js';

export class PgStats implements StatsRepo {
  constructor(private readonly sql: PgSql) {}

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
