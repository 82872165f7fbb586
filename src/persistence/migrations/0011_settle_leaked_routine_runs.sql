-- Routine runs that earlier versions left open after their own wakeup had ended (a deleted agent's
-- cancelled wakeups, a reassigned task's cancelled retries): their outcome stayed null, so each one
-- counted against OFFICE_MAX_CONCURRENT_ROUTINE_RUNS and the agent's max_concurrent_routine_runs for
-- ever. Today every path that ends a wakeup settles its routine run; this settles the ones left
-- behind, as their own wakeup ended: the wakeup a lightweight fire enqueued, or the first assignment
-- of the task a heavy fire created.
WITH own AS (
  SELECT rr.id AS routine_run_id, w.status, w.run_id, COALESCE(w.finished_at, rr.started_at) AS ended_at
  FROM office_routine_runs rr
  JOIN agent_wakeup_requests w ON w.id = CASE rr.status
    WHEN 'dispatched' THEN rr.linked_wakeup_id
    ELSE (SELECT a.id FROM agent_wakeup_requests a WHERE a.task_id = rr.linked_task_id AND a.source = 'task_assigned'
          ORDER BY a.requested_at, a.rowid LIMIT 1)
  END
  WHERE rr.outcome IS NULL AND rr.status IN ('dispatched', 'task_created')
    AND w.status IN ('finished', 'failed', 'cancelled', 'skipped', 'coalesced')
)
UPDATE office_routine_runs
SET outcome = (SELECT CASE own.status
                 WHEN 'failed' THEN 'failed'
                 WHEN 'finished' THEN CASE WHEN own.run_id IS NULL THEN 'failed' ELSE 'succeeded' END
                 ELSE 'cancelled' END
               FROM own WHERE own.routine_run_id = office_routine_runs.id),
    completed_at = (SELECT own.ended_at FROM own WHERE own.routine_run_id = office_routine_runs.id)
WHERE id IN (SELECT routine_run_id FROM own);
