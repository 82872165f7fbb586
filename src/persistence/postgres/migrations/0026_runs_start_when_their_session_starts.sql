-- A run is `queued` until its session has really started (DESIGN.md, "Started and lost is not never
-- started"): the claim inserts it queued, holding its task's checkout and marking its agent working,
-- and the start moves it to running just before the session spawns. Whatever ends it, from either
-- state, frees what it held. A run's spend is counted once, however many paths report it.

CREATE OR REPLACE FUNCTION runs_started() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE agent_instances SET status = 'working' WHERE id = NEW.agent_id AND status <> 'working';
  UPDATE tasks SET checkout_agent_id = NEW.agent_id, checkout_wakeup_id = NEW.wakeup_id, checkout_at = COALESCE(NEW.started_at, NEW.created_at)
  WHERE id = NEW.task_id;
  RETURN NULL;
END $$;
DROP TRIGGER runs_started ON runs;
CREATE TRIGGER runs_started AFTER INSERT ON runs FOR EACH ROW WHEN (NEW.status IN ('queued', 'running')) EXECUTE FUNCTION runs_started();

-- As migration 0023: the agent row locked FOR NO KEY UPDATE, so its foreign-key checks are not blocked.
CREATE OR REPLACE FUNCTION runs_ended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM agent_instances WHERE id = NEW.agent_id FOR NO KEY UPDATE;
  UPDATE agent_instances SET
    last_wakeup_finished_at = COALESCE(NEW.finished_at, last_wakeup_finished_at),
    status = CASE WHEN status = 'working' AND NOT EXISTS (SELECT 1 FROM runs WHERE agent_id = NEW.agent_id AND status IN ('queued', 'running'))
      THEN 'idle' ELSE status END
  WHERE id = NEW.agent_id;
  UPDATE tasks SET checkout_agent_id = NULL, checkout_wakeup_id = NULL, checkout_at = NULL
  WHERE id = NEW.task_id AND checkout_wakeup_id = NEW.wakeup_id;
  RETURN NULL;
END $$;
DROP TRIGGER runs_ended ON runs;
CREATE TRIGGER runs_ended AFTER UPDATE OF status ON runs
  FOR EACH ROW WHEN (OLD.status IN ('queued', 'running') AND NEW.status NOT IN ('queued', 'running')) EXECUTE FUNCTION runs_ended();

CREATE INDEX runs_open_by_agent ON runs(agent_id) WHERE status IN ('queued', 'running');

DELETE FROM cost_ledger WHERE id NOT IN (SELECT MIN(id) FROM cost_ledger GROUP BY run_id);
CREATE UNIQUE INDEX cost_once_per_run ON cost_ledger(run_id);
