/**
 * The statements of retention (RetentionRepo), on both backends. Each prune is ONE DELETE of at most
 * @limit rows chosen by a subquery that names what keeps a row; the dialects agree on all of it
 * (row values in IN, LIMIT in a subquery, CAST to TEXT).
 */
import { RETENTION_TABLES, type RetentionTable } from '../../domain/retention.js';
import { WAKEUP_OUTCOMES } from '../../domain/stats.js';
import type { RetentionRepo } from '../store.js';
import { sqlList, type Dialect, type SqlRunner } from './dialect.js';
import { ENDED_RUN_STATUSES, openWakeup } from './openRows.js';

const ENDED_WAKEUP = sqlList(WAKEUP_OUTCOMES);
const ENDED_RUN = sqlList(ENDED_RUN_STATUSES);
const DAY_MS = 86_400_000;

/**
 * A run that ended before the cutoff and that nothing kept needs: not the latest run of its task for
 * its agent (the board, the session the next run resumes), not named by an open inbox item (an
 * agent error still to resolve), not of a wakeup still open (a retry to come).
 */
const PRUNABLE_RUN = `r.status IN (${ENDED_RUN}) AND r.finished_at < @cutoff
  AND (r.task_id IS NULL OR EXISTS (SELECT 1 FROM runs n WHERE n.task_id = r.task_id AND n.agent_id = r.agent_id
    AND (n.created_at > r.created_at OR (n.created_at = r.created_at AND n.id > r.id))))
  AND NOT EXISTS (SELECT 1 FROM inbox_items i WHERE i.ref_id = r.id AND i.status = 'open')
  AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests w WHERE w.id = r.wakeup_id AND ${openWakeup('w.status')})`;

/**
 * A wakeup that ended before the cutoff (never a queued, claimed or scheduled_retry one) and that
 * nothing kept needs: no run left of it, not folded into a wakeup still open (the fold is not over),
 * no kept wakeup folded into it (their explain names it), not the latest of its task for its agent
 * (the board's "why its last wakeup ended"), and holding no routine slot.
 */
const PRUNABLE_WAKEUP = `w.status IN (${ENDED_WAKEUP}) AND w.finished_at < @cutoff
  AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.wakeup_id = w.id)
  AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests t WHERE t.id = w.coalesced_into_id AND ${openWakeup('t.status')})
  AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests s WHERE s.coalesced_into_id = w.id
    AND NOT (s.status IN (${ENDED_WAKEUP}) AND s.finished_at < @cutoff))
  AND (w.task_id IS NULL OR EXISTS (SELECT 1 FROM agent_wakeup_requests n WHERE n.task_id = w.task_id AND n.agent_id = w.agent_id
    AND (n.requested_at > w.requested_at OR (n.requested_at = w.requested_at AND n.id > w.id))))
  AND NOT EXISTS (SELECT 1 FROM office_wakeup_slot_holders h WHERE h.wakeup_id = w.id)`;

/** One DELETE per table, each of at most @limit rows, oldest first. */
const PRUNE: Record<RetentionTable, string> = {
  // A pruned run's transcript first, in batches of events (a run may have thousands).
  run_transcript_events: `DELETE FROM run_transcript_events WHERE (run_id, seq) IN (
    SELECT e.run_id, e.seq FROM runs r JOIN run_transcript_events e ON e.run_id = r.id
    WHERE ${PRUNABLE_RUN} ORDER BY r.finished_at LIMIT @limit)`,
  runs: `DELETE FROM runs WHERE id IN (
    SELECT r.id FROM runs r WHERE ${PRUNABLE_RUN} ORDER BY r.finished_at LIMIT @limit)`,
  agent_wakeup_requests: `DELETE FROM agent_wakeup_requests WHERE id IN (
    SELECT w.id FROM agent_wakeup_requests w WHERE ${PRUNABLE_WAKEUP} ORDER BY w.finished_at LIMIT @limit)`,
  // The activity of a kept wakeup or run is kept: an explain reads it.
  activity_log: `DELETE FROM activity_log WHERE id IN (
    SELECT a.id FROM activity_log a WHERE a.created_at < @cutoff
      AND (a.wakeup_id IS NULL OR NOT EXISTS (SELECT 1 FROM agent_wakeup_requests w WHERE w.id = a.wakeup_id))
      AND (a.run_id IS NULL OR NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = a.run_id))
    ORDER BY a.created_at LIMIT @limit)`,
  // A routine run that settled: not one whose delivery is still to make, that holds a slot, or whose wakeup is kept.
  office_routine_runs: `DELETE FROM office_routine_runs WHERE id IN (
    SELECT rr.id FROM office_routine_runs rr WHERE rr.completed_at < @cutoff AND rr.delivery_status <> 'pending'
      AND NOT EXISTS (SELECT 1 FROM routine_deliveries d WHERE d.routine_run_id = rr.id)
      AND NOT EXISTS (SELECT 1 FROM office_routine_run_slot_holders h WHERE h.routine_run_id = rr.id)
      AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests w WHERE w.id = rr.linked_wakeup_id)
    ORDER BY rr.completed_at LIMIT @limit)`,
  // A delivered event leaves the outbox as it is delivered; what stays is parked (it failed every
  // try). It goes once its inbox item is resolved: the item is how a person learns of it.
  event_outbox: `DELETE FROM event_outbox WHERE id IN (
    SELECT o.id FROM event_outbox o WHERE o.parked_at < @cutoff
      AND NOT EXISTS (SELECT 1 FROM inbox_items i WHERE i.ref_id = CAST(o.id AS TEXT) AND i.status = 'open')
    ORDER BY o.id LIMIT @limit)`,
  // The daily caps read today's row only; a day is old once it ended before the cutoff.
  agent_daily_usage: `DELETE FROM agent_daily_usage WHERE (agent_id, day) IN (
    SELECT agent_id, day FROM agent_daily_usage WHERE day <= @day_before ORDER BY day LIMIT @limit)`,
};

export class RetentionSql implements RetentionRepo {
  private readonly sql: SqlRunner;
  constructor(dialect: Dialect) {
    this.sql = dialect.sql;
  }

  async beginPass(owner: string, now: number, everyMs: number) {
    return (await this.sql.run('UPDATE retention_passes SET started_at = @now, owner_id = @owner WHERE id = 1 AND started_at <= @since',
      { now, owner, since: now - everyMs })).changes === 1;
  }

  async prune(table: RetentionTable, cutoff: number, limit: number) {
    if (!RETENTION_TABLES.includes(table)) throw new Error(`Unknown retention table '${table}'`);
    const params = table === 'agent_daily_usage' ? { day_before: cutoff - DAY_MS, limit } : { cutoff, limit };
    return (await this.sql.run(PRUNE[table], params)).changes;
  }
}
