/**
 * Retention (OFFICE_RETENTION_DAYS): which history is pruned, in what order, and from when. The
 * statements are persistence/sql/retention.ts; the timer and the batches services/retention.ts.
 */

/**
 * The tables a pass prunes, in the order it prunes them: a transcript goes before its run, a run
 * before its wakeup (runs reference wakeups), a wakeup before its activity (the activity of a kept
 * wakeup is kept, for its explain). These are the labels of office_retention_pruned_total.
 */
export const RETENTION_TABLES = [
  'run_transcript_events',
  'runs',
  'agent_wakeup_requests',
  'activity_log',
  'office_routine_runs',
  'event_outbox',
  'agent_daily_usage',
] as const;
export type RetentionTable = (typeof RETENTION_TABLES)[number];

export type PrunedCounts = Record<RetentionTable, number>;

const DAY_MS = 86_400_000;

/** Rows that ended before this instant are old enough to prune. */
export function retentionCutoff(now: number, retentionDays: number): number {
  return now - retentionDays * DAY_MS;
}

export function noPrunedRows(): PrunedCounts {
  return Object.fromEntries(RETENTION_TABLES.map((table) => [table, 0])) as PrunedCounts;
}
