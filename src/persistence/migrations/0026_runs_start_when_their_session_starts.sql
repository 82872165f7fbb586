-- A run is `queued` until its session has really started (DESIGN.md, "Started and lost is not never
-- started"): the claim inserts it queued, holding its task's checkout and marking its agent working,
-- and the start moves it to running just before the session spawns. Whatever ends it, from either
-- state, frees what it held. A run's spend is counted once, however many paths report it.

DROP TRIGGER runs_started;
CREATE TRIGGER runs_started AFTER INSERT ON runs WHEN NEW.status IN ('queued', 'running')
BEGIN
  UPDATE agent_instances SET status = 'working' WHERE id = NEW.agent_id AND status <> 'working';
  UPDATE tasks SET checkout_agent_id = NEW.agent_id, checkout_wakeup_id = NEW.wakeup_id, checkout_at = COALESCE(NEW.started_at, NEW.created_at)
  WHERE id = NEW.task_id;
END;

DROP TRIGGER runs_ended;
CREATE TRIGGER runs_ended AFTER UPDATE OF status ON runs
  WHEN OLD.status IN ('queued', 'running') AND NEW.status NOT IN ('queued', 'running')
BEGIN
  -- last_wakeup_finished_at is what a restart rebuilds the cooldown from.
  UPDATE agent_instances SET
    last_wakeup_finished_at = COALESCE(NEW.finished_at, last_wakeup_finished_at),
    status = CASE WHEN status = 'working' AND NOT EXISTS (SELECT 1 FROM runs WHERE agent_id = NEW.agent_id AND status IN ('queued', 'running'))
      THEN 'idle' ELSE status END
  WHERE id = NEW.agent_id;
  UPDATE tasks SET checkout_agent_id = NULL, checkout_wakeup_id = NULL, checkout_at = NULL
  WHERE id = NEW.task_id AND checkout_wakeup_id = NEW.wakeup_id;
END;

-- What the "any other run of this agent open?" question of runs_ended reads.
CREATE INDEX runs_open_by_agent ON runs(agent_id) WHERE status IN ('queued', 'running');

DELETE FROM cost_ledger WHERE id NOT IN (SELECT MIN(id) FROM cost_ledger GROUP BY run_id);
CREATE UNIQUE INDEX cost_once_per_run ON cost_ledger(run_id);
