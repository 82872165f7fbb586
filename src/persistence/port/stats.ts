/**
 * The aggregates behind the dashboard's charts (the port's rules: persistence/store.ts).
 *
 * Isolation: read-only. Each aggregate is one statement that groups in SQL over committed rows.
 */
import type { Bucket, CostInBucket, RunSpan, TimeRange, WakeupOutcomeCount } from '../../domain/stats.js';

/** What a stats read is about: a workspace's range, of one agent when given. */
export interface StatsScope extends TimeRange {
  workspace_id: string;
  agent_id?: string | undefined;
}

/**
 * The aggregates behind the dashboard's charts, each ONE statement that groups in SQL: the rows are
 * counted where they are, never carried to the caller one by one. Bucket starts are epoch
 * milliseconds aligned to the bucket width (domain/stats.ts).
 */
export interface StatsRepo {
  /** Wakeups that ended (finished, skipped, coalesced, failed, cancelled) inside the range, by the bucket of their finished_at and their status. */
  wakeupOutcomes(scope: StatsScope, bucket: Bucket): Promise<WakeupOutcomeCount[]>;
  /** Reported costs (the cost ledger) inside the range, summed by the bucket of their created_at. */
  costs(scope: StatsScope, bucket: Bucket): Promise<CostInBucket[]>;
  /** Runs that had started and overlap the range (started before its end, not finished before its start), oldest start first, at most `limit`. */
  runSpans(scope: StatsScope, limit: number): Promise<RunSpan[]>;
}
