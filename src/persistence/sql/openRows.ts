/**
 * The conditions that pick the open wakeups and the open runs, written as the partial indexes
 * wakeups_open and runs_active hold them. SQLite reads a partial index only for a statement that
 * names the index's condition term for term, so a statement meant to read one of them writes the
 * condition through these, never by hand.
 */
import { OPEN_RUN_STATUSES, OPEN_WAKEUP_STATUSES, RUN_STATUSES, WAKEUP_STATUSES } from '../../domain/types.js';
import { sqlList } from './dialect.js';

/** `status IN ('queued', 'claimed', 'scheduled_retry')`, of `column` (an alias's: `w.status`). */
export const openWakeup = (column = 'status') => `${column} IN (${sqlList(OPEN_WAKEUP_STATUSES)})`;

/** `status IN ('queued', 'running')`, of `column` (an alias's: `r.status`). */
export const openRun = (column = 'status') => `${column} IN (${sqlList(OPEN_RUN_STATUSES)})`;

export const ENDED_WAKEUP_STATUSES = WAKEUP_STATUSES.filter((status) => !OPEN_WAKEUP_STATUSES.includes(status));
export const ENDED_RUN_STATUSES = RUN_STATUSES.filter((status) => !OPEN_RUN_STATUSES.includes(status));
