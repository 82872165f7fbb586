/**
 * The counts of wakeups and runs by status, on both backends, from the counter rows their triggers
 * keep (the table agent_status_counts: SQLite migration 0032, PostgreSQL 0033). A read sums one row
 * per agent: it touches neither the wakeups nor the runs, however long their history.
 */
import { RUN_STATUSES, WAKEUP_STATUSES } from '../../domain/types.js';
import { andThen, type MaybePromise, type SqlRunner } from './dialect.js';

/** The counter columns of one kind: `wakeups_queued`, `runs_running`, … */
const sumsOf = (kind: 'wakeups' | 'runs', statuses: readonly string[]) =>
  `SELECT ${statuses.map((status) => `SUM(${kind}_${status}) AS ${status}`).join(', ')} FROM agent_status_counts`;

const READS = { wakeups: sumsOf('wakeups', WAKEUP_STATUSES), runs: sumsOf('runs', RUN_STATUSES) };

/** The statements a /metrics scrape runs to read them (checked for table scans by the tests). */
export const STATUS_COUNT_READS: readonly string[] = Object.values(READS);

/**
 * The statuses some row is in, with their counts (a status no row is in is left out, as a COUNT
 * … GROUP BY leaves it out). PostgreSQL's SUM of a bigint is a numeric, which arrives as text.
 */
export function countByStatus(sql: SqlRunner, kind: keyof typeof READS): MaybePromise<Record<string, number>> {
  return andThen(sql.get<Record<string, number | string | null>>(READS[kind]), (row) => Object.fromEntries(
    Object.entries(row ?? {}).map(([status, n]) => [status, Number(n ?? 0)]).filter(([, n]) => n !== 0)));
}
