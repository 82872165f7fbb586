/**
 * The invariants every harness checks once the work has drained, read straight from the rows
 * (the rows are the truth; actors are only caches). Shared by the crash-restart harness
 * (test/crash) and the deterministic simulation (test/simulation).
 */
import type { SqliteFaults } from '../helpers/storage.js';

/** Where the invariants read the rows from: SQL over the database file (sqliteFaults). */
export type RowReader = Pick<SqliteFaults, 'all' | 'get'>;

export interface InvariantReport {
  violations: string[];
  figures: {
    wakeups: number;
    wakeupsByStatus: Record<string, number>;
    runs: number;
    runsByStatus: Record<string, number>;
    cronTicks: number;
    routineRuns: number;
    outboxLeft: number;
  };
}

const OPEN_WAKEUP = "('queued', 'claimed', 'scheduled_retry')";
/** `key#expired:<id>` is a retired key; it still names the same request. */
const BASE_KEY = "CASE WHEN instr(w.idempotency_key, '#expired:') > 0 THEN substr(w.idempotency_key, 1, instr(w.idempotency_key, '#expired:') - 1) ELSE w.idempotency_key END";

function all<T>(db: RowReader, sql: string): T[] {
  return db.all<T>(sql);
}

function countBy(db: RowReader, table: string, column: string): Record<string, number> {
  return Object.fromEntries(all<{ k: string; n: number }>(db, `SELECT ${column} AS k, COUNT(*) AS n FROM ${table} GROUP BY ${column}`).map((r) => [r.k, r.n]));
}

function sample(rows: unknown[], max = 5): string {
  return JSON.stringify(rows.slice(0, max)) + (rows.length > max ? ` (+${rows.length - max} more)` : '');
}

/**
 * After draining: every wakeup terminal, no run stuck, at most one succeeded run per wakeup and per
 * idempotency key, every cron tick fired at most once (and succeeded at most once), no checkout or
 * `working` status left behind by a crash, and the wakeup/run rows agree with each other.
 */
export function checkInvariants(db: RowReader, options: { drained?: boolean } = {}): InvariantReport {
  const drained = options.drained ?? true;
  const violations: string[] = [];
  const check = (name: string, rows: unknown[]) => {
    if (rows.length > 0) violations.push(`${name}: ${rows.length} ${sample(rows)}`);
  };

  if (drained) {
    check('wakeup not terminal after draining',
      all(db, `SELECT id, status, source, retry_count, available_at, scheduled_retry_at FROM agent_wakeup_requests WHERE status IN ${OPEN_WAKEUP}`));
    check('run stuck running/queued after draining', all(db, "SELECT id, wakeup_id, status FROM runs WHERE status IN ('queued', 'running')"));
    check('agent still `working` with nothing running',
      all(db, "SELECT id, name FROM agent_instances a WHERE status = 'working' AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.agent_id = a.id AND r.status = 'running')"));
    check('event still undelivered in the outbox after draining',
      all(db, 'SELECT id, type, created_at FROM event_outbox WHERE parked_at IS NULL'));
    // Every wakeup folded into another ran with it (a session of its target carried it in its
    // context), or went back to the queue when its target ended without running it (user and event
    // wakes always proceed); a deleted agent's are moot.
    check('folded wakeup lost: its target ended without running it',
      all(db, `SELECT w.id, w.source, t.id AS target_id, t.status AS target_status, t.skip_reason, t.cancel_reason
               FROM agent_wakeup_requests w JOIN agent_wakeup_requests t ON t.id = w.coalesced_into_id
               JOIN agent_instances a ON a.id = t.agent_id
               WHERE w.status = 'coalesced' AND a.deleted_at IS NULL
                 AND NOT EXISTS (SELECT 1 FROM runs r, json_each(r.context_snapshot, '$.wakes') carried
                   WHERE r.wakeup_id = t.id AND r.status IN ('running', 'succeeded', 'failed', 'interrupted')
                     AND json_extract(carried.value, '$.wakeup_id') = w.id)`));
  }
  // A subscriber that failed every retry (for example on a deleted agent) parks its event.
  check('event parked: its subscribers failed every retry', all(db, 'SELECT id, type, parked_error FROM event_outbox WHERE parked_at IS NOT NULL'));
  // Pinned: checkout conflicts wait for the release; none ends skipped (a lost review, a lost first run).
  check('wakeup skipped for a checkout conflict',
    all(db, "SELECT id, agent_id, task_id, source FROM agent_wakeup_requests WHERE skip_reason = 'checkout_conflict'"));
  check('wakeup with two succeeded runs',
    all(db, "SELECT wakeup_id, COUNT(*) AS n FROM runs WHERE status = 'succeeded' GROUP BY wakeup_id HAVING n > 1"));
  check('idempotency key with two succeeded runs',
    all(db, `SELECT ${BASE_KEY} AS key, COUNT(*) AS n FROM runs r JOIN agent_wakeup_requests w ON w.id = r.wakeup_id
             WHERE r.status = 'succeeded' AND w.idempotency_key IS NOT NULL GROUP BY key HAVING n > 1`));
  check('run idempotency key used twice', all(db, 'SELECT idempotency_key, COUNT(*) AS n FROM runs WHERE idempotency_key IS NOT NULL GROUP BY idempotency_key HAVING n > 1'));
  check('cron tick fired more than once',
    all(db, 'SELECT trigger_id, scheduled_for, COUNT(*) AS n FROM office_routine_runs WHERE scheduled_for IS NOT NULL GROUP BY trigger_id, scheduled_for HAVING n > 1'));
  check('cron tick with more than one wakeup',
    all(db, `SELECT ${BASE_KEY} AS key, COUNT(*) AS n FROM agent_wakeup_requests w WHERE w.idempotency_key LIKE 'routine:%' GROUP BY key HAVING n > 1`));
  check('cron tick that succeeded more than once',
    all(db, `SELECT rr.trigger_id, rr.scheduled_for, COUNT(*) AS n FROM runs r
             JOIN agent_wakeup_requests w ON w.id = r.wakeup_id JOIN office_routine_runs rr ON rr.id = w.routine_run_id
             WHERE r.status = 'succeeded' AND rr.scheduled_for IS NOT NULL GROUP BY rr.trigger_id, rr.scheduled_for HAVING n > 1`));
  check('succeeded run whose wakeup is not finished',
    all(db, `SELECT r.id AS run_id, w.id AS wakeup_id, w.status FROM runs r JOIN agent_wakeup_requests w ON w.id = r.wakeup_id
             WHERE r.status = 'succeeded' AND w.status <> 'finished'`));
  check('run started after its wakeup already had a succeeded run',
    all(db, `SELECT later.id, later.wakeup_id FROM runs later JOIN runs ok ON ok.wakeup_id = later.wakeup_id
             WHERE ok.status = 'succeeded' AND later.attempt > ok.attempt`));
  check('wakeup points at a run of another wakeup without being coalesced',
    all(db, `SELECT w.id, w.status, w.run_id FROM agent_wakeup_requests w JOIN runs r ON r.id = w.run_id
             WHERE r.wakeup_id <> w.id AND w.status <> 'coalesced'`));
  check('finished wakeup whose own latest run did not succeed',
    all(db, `SELECT w.id, r.status FROM agent_wakeup_requests w JOIN runs r ON r.id = w.run_id
             WHERE w.status = 'finished' AND w.skip_reason IS NULL AND r.wakeup_id = w.id AND r.status <> 'succeeded'`));
  check('coalesced wakeup whose target does not exist',
    all(db, `SELECT w.id FROM agent_wakeup_requests w WHERE w.status = 'coalesced' AND w.coalesced_into_id IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests t WHERE t.id = w.coalesced_into_id)`));
  check('task still checked out by an ended wakeup',
    all(db, `SELECT t.id, t.checkout_wakeup_id, w.status FROM tasks t JOIN agent_wakeup_requests w ON w.id = t.checkout_wakeup_id
             WHERE w.status NOT IN ${OPEN_WAKEUP}`));
  check('dispatched routine run without its wakeup',
    all(db, `SELECT rr.id FROM office_routine_runs rr WHERE rr.status = 'dispatched'
             AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests w WHERE w.id = rr.linked_wakeup_id)`));
  // A routine run's own wakeup: the one a lightweight fire enqueued, or the first assignment of a heavy run's task.
  check('routine run still open once its wakeup is terminal',
    all(db, `SELECT rr.id, rr.status, w.id AS wakeup_id, w.status AS wakeup_status FROM office_routine_runs rr
             JOIN agent_wakeup_requests w ON w.id = CASE WHEN rr.status = 'dispatched' THEN rr.linked_wakeup_id ELSE
               (SELECT a.id FROM agent_wakeup_requests a WHERE a.task_id = rr.linked_task_id AND a.source = 'task_assigned'
                ORDER BY a.requested_at, a.id LIMIT 1) END
             WHERE rr.outcome IS NULL AND rr.status IN ('dispatched', 'task_created') AND w.status NOT IN ${OPEN_WAKEUP}`));
  check('heavy routine run without its task',
    all(db, `SELECT rr.id FROM office_routine_runs rr WHERE rr.status = 'task_created'
             AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = rr.linked_task_id)`));

  const wakeupsByStatus = countBy(db, 'agent_wakeup_requests', 'status');
  const runsByStatus = countBy(db, 'runs', 'status');
  const one = (sql: string) => db.get<{ n: number }>(sql)!.n;
  return {
    violations,
    figures: {
      wakeups: Object.values(wakeupsByStatus).reduce((a, b) => a + b, 0),
      wakeupsByStatus,
      runs: Object.values(runsByStatus).reduce((a, b) => a + b, 0),
      runsByStatus,
      cronTicks: one("SELECT COUNT(*) AS n FROM office_routine_runs WHERE source = 'cron'"),
      routineRuns: one('SELECT COUNT(*) AS n FROM office_routine_runs'),
      outboxLeft: one('SELECT COUNT(*) AS n FROM event_outbox'),
    },
  };
}

/**
 * Every open task with a live assignee was served by that assignee since it was last assigned: one
 * of its wakeups made since then ran (or was merged into a wakeup that ran), or ended for a reason
 * that is not a loss: stale (cancelled), failed after its retries, blocked, a budget pause, or the
 * agent paused (the sweep then owns it). A reassigned task whose new assignee's wakeup met the
 * former assignee's checkout used to end here with nothing.
 */
export function checkAssignmentsServed(db: RowReader): string[] {
  const unserved = all(db, `SELECT t.id, t.state, t.assignee_agent_instance_id AS assignee, t.assigned_at FROM tasks t
    JOIN agent_instances a ON a.id = t.assignee_agent_instance_id
    WHERE t.workflow = 'office' AND t.state NOT IN ('DONE', 'CANCELLED', 'ARCHIVED') AND t.archived_at IS NULL AND a.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests w
        WHERE w.task_id = t.id AND w.agent_id = t.assignee_agent_instance_id AND w.requested_at >= COALESCE(t.assigned_at, t.created_at)
          AND (EXISTS (SELECT 1 FROM runs r WHERE r.wakeup_id = w.id OR (w.status = 'coalesced' AND r.wakeup_id = w.coalesced_into_id))
               OR w.status IN ('cancelled', 'failed')
               OR (w.status = 'skipped' AND w.skip_reason IN ('blocked', 'budget_exceeded'))
               OR (w.status = 'finished' AND w.skip_reason IS NOT NULL)))`);
  return unserved.length ? [`assigned task never served by its current assignee: ${unserved.length} ${sample(unserved)}`] : [];
}

/**
 * 0 lost: every committed task assignment, comment and reassignment has its wakeup, whatever the
 * crash interrupted between the write and its event's delivery. Names are prefixed by the harness.
 */
export function checkAccounting(db: RowReader, options: { assignedAtComment?: Set<string> } = {}): string[] {
  const violations: string[] = [];
  const check = (name: string, rows: unknown[]) => {
    if (rows.length > 0) violations.push(`${name}: ${rows.length} ${sample(rows)}`);
  };
  check('assigned task with no task_assigned wakeup (lost)',
    all(db, `SELECT t.id, t.title FROM tasks t WHERE t.assignee_agent_instance_id IS NOT NULL AND t.workflow = 'office'
             AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests w WHERE w.task_id = t.id AND w.source = 'task_assigned'
                             AND w.agent_id = t.assignee_agent_instance_id)`));
  check('routine task with no wakeup (lost)',
    all(db, `SELECT t.id, t.title FROM tasks t WHERE t.assignee_agent_instance_id IS NOT NULL AND t.workflow = 'routine'
             AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests w WHERE w.task_id = t.id)`));
  // A comment wakes the assignee the task had when the comment was made: by default the current
  // one (the crash harness never unassigns), or the comment bodies the caller knows were assigned.
  const unwoken = all<{ id: string; body: string }>(db, `SELECT c.id, c.body FROM comments c JOIN tasks t ON t.id = c.task_id
             WHERE c.author_type = 'user' AND (t.assignee_agent_instance_id IS NOT NULL OR ${options.assignedAtComment ? 1 : 0})
             AND NOT EXISTS (SELECT 1 FROM agent_wakeup_requests w WHERE w.idempotency_key = 'comment:' || c.id
                             OR w.idempotency_key LIKE 'comment:' || c.id || '#expired:%')`);
  check('user comment with no comment wakeup (lost)',
    options.assignedAtComment ? unwoken.filter((c) => options.assignedAtComment!.has(c.body)) : unwoken);
  return violations;
}
