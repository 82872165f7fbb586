-- What a run holds follows from the run row, so the database keeps it in the statement that starts
-- or ends the run, whoever writes it: a wakeup names its latest run, the agent is working while one
-- of its runs runs and its cooldown starts when one ends, and a running run holds its task's checkout. One
-- statement instead of three on every run's path (the statement budget of issue 14), and no path
-- that ends a run can forget one of them.

CREATE TRIGGER runs_recorded AFTER INSERT ON runs
BEGIN
  UPDATE agent_wakeup_requests SET run_id = NEW.id WHERE id = NEW.wakeup_id;
END;

-- RunRepo.start inserts a running run only while its task is free or held by its own wakeup.
CREATE TRIGGER runs_started AFTER INSERT ON runs WHEN NEW.status = 'running'
BEGIN
  UPDATE agent_instances SET status = 'working' WHERE id = NEW.agent_id AND status <> 'working';
  UPDATE tasks SET checkout_agent_id = NEW.agent_id, checkout_wakeup_id = NEW.wakeup_id, checkout_at = NEW.started_at
  WHERE id = NEW.task_id;
END;

CREATE TRIGGER runs_ended AFTER UPDATE OF status ON runs
  WHEN OLD.status = 'running' AND NEW.status <> 'running'
BEGIN
  -- last_wakeup_finished_at is what a restart rebuilds the cooldown from.
  UPDATE agent_instances SET
    last_wakeup_finished_at = COALESCE(NEW.finished_at, last_wakeup_finished_at),
    status = CASE WHEN status = 'working' AND NOT EXISTS (SELECT 1 FROM runs WHERE agent_id = NEW.agent_id AND status = 'running')
      THEN 'idle' ELSE status END
  WHERE id = NEW.agent_id;
  UPDATE tasks SET checkout_agent_id = NULL, checkout_wakeup_id = NULL, checkout_at = NULL
  WHERE id = NEW.task_id AND checkout_wakeup_id = NEW.wakeup_id;
END;

-- The first assignment wakeup of a routine's task carries the routine run that created the task
-- (its end settles that run), so ending any other wakeup reads no routine run. Wakeups from before
-- this version get it here.
UPDATE agent_wakeup_requests
SET routine_run_id = (SELECT r.id FROM office_routine_runs r WHERE r.linked_task_id = agent_wakeup_requests.task_id LIMIT 1)
WHERE routine_run_id IS NULL AND source = 'task_assigned'
  AND task_id IN (SELECT linked_task_id FROM office_routine_runs WHERE linked_task_id IS NOT NULL)
  AND id = (SELECT w.id FROM agent_wakeup_requests w WHERE w.task_id = agent_wakeup_requests.task_id AND w.source = 'task_assigned'
            ORDER BY w.requested_at, w.rowid LIMIT 1);
