/**
 * The counts of wakeups and runs by status, on both backends. An ended status is read from the
 * counter rows its triggers keep (the table agent_status_counts: SQLite migrations 0032 and 0037,
 * PostgreSQL 0033 and 0038), one row per agent, however long the history. An open status is counted
 * from the open rows themselves, through the partial index that holds them and no others
 * (wakeups_open, runs_active): as many entries as the backlog, and no counter write per step.
 */
import { OPEN_RUN_STATUSES, OPEN_WAKEUP_STATUSES } from '../../domain/types.js';
import { andThen, type MaybePromise, type SqlRunner } from './dialect.js';
import { ENDED_RUN_STATUSES, ENDED_WAKEUP_STATUSES, openRun, openWakeup } from './openRows.js';

const KINDS = {
  wakeups: { table: 'agent_wakeup_requests', open: OPEN_WAKEUP_STATUSES, ended: ENDED_WAKEUP_STATUSES, isOpen: openWakeup() },
  runs: { table: 'runs', open: OPEN_RUN_STATUSES, ended: ENDED_RUN_STATUSES, isOpen: openRun() },
} as const;

/**
 * One statement per kind, one row: a sum per ended status, a count per open one. Each count names
 * the partial index's condition beside its own status, as SQLite requires to read that index.
 */
const readOf = (kind: keyof typeof KINDS) => {
  const { table, open, ended, isOpen } = KINDS[kind];
  const counts = open.map((status) => `(SELECT COUNT(*) FROM ${table} WHERE ${isOpen} AND status = '${status}') AS ${status}`);
  const sums = ended.map((status) => `SUM(${kind}_${status}) AS ${status}`);
  return `SELECT ${[...counts, ...sums].join(', ')} FROM agent_status_counts`;
};

const READS = { wakeups: readOf('wakeups'), runs: readOf('runs') };

/** The statements a /metrics scrape runs to read them (their plans are checked by the tests). */
export const STATUS_COUNT_READS: readonly string[] = Object.values(READS);

/**
 * The statuses some row is in, with their counts (a status no row is in is left out, as a COUNT
 * … GROUP BY leaves it out). PostgreSQL's COUNT is a bigint and its SUM of one a numeric: both
 * arrive as text.
 */
export function countByStatus(sql: SqlRunner, kind: keyof typeof READS): MaybePromise<Record<string, number>> {
  return andThen(sql.get<Record<string, number | string | null>>(READS[kind]), (row) => Object.fromEntries(
    Object.entries(row ?? {}).map(([status, n]) => [status, Number(n ?? 0)]).filter(([, n]) => n !== 0)));
}
