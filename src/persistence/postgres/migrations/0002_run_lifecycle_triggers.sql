-- SQLite's triggers of migrations 0012 (a run's lifecycle) and 0013 (the routine-run slots), in
-- plpgsql: what a run or a routine run holds follows from its row, in the statement that writes it.

-- A wakeup names its latest run.
CREATE FUNCTION runs_recorded() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE agent_wakeup_requests SET run_id = NEW.id WHERE id = NEW.wakeup_id;
  RETURN NULL;
END $$;
CREATE TRIGGER runs_recorded AFTER INSERT ON runs FOR EACH ROW EXECUTE FUNCTION runs_recorded();

-- RunRepo.start inserts a running run only while its task is free or held by its own wakeup.
CREATE FUNCTION runs_started() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE agent_instances SET status = 'working' WHERE id = NEW.agent_id AND status <> 'working';
  UPDATE tasks SET checkout_agent_id = NEW.agent_id, checkout_wakeup_id = NEW.wakeup_id, checkout_at = NEW.started_at
  WHERE id = NEW.task_id;
  RETURN NULL;
END $$;
CREATE TRIGGER runs_started AFTER INSERT ON runs FOR EACH ROW WHEN (NEW.status = 'running') EXECUTE FUNCTION runs_started();

-- The agent row is locked first, and the "any other run still running?" question asked by the next
-- statement, which at READ COMMITTED sees every run that ended in a transaction committed while
-- this one waited for the lock: two runs of one agent ending at once cannot both leave it working.
CREATE FUNCTION runs_ended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM agent_instances WHERE id = NEW.agent_id FOR UPDATE;
  -- last_wakeup_finished_at is what a restart rebuilds the cooldown from.
  UPDATE agent_instances SET
    last_wakeup_finished_at = COALESCE(NEW.finished_at, last_wakeup_finished_at),
    status = CASE WHEN status = 'working' AND NOT EXISTS (SELECT 1 FROM runs WHERE agent_id = NEW.agent_id AND status = 'running')
      THEN 'idle' ELSE status END
  WHERE id = NEW.agent_id;
  UPDATE tasks SET checkout_agent_id = NULL, checkout_wakeup_id = NULL, checkout_at = NULL
  WHERE id = NEW.task_id AND checkout_wakeup_id = NEW.wakeup_id;
  RETURN NULL;
END $$;
CREATE TRIGGER runs_ended AFTER UPDATE OF status ON runs
  FOR EACH ROW WHEN (OLD.status = 'running' AND NEW.status <> 'running') EXECUTE FUNCTION runs_ended();

-- A routine run's outcome frees the cap slots it holds, once.
CREATE FUNCTION routine_run_slots_freed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  holder TEXT;
BEGIN
  DELETE FROM office_routine_run_slot_holders WHERE routine_run_id = NEW.id RETURNING agent_id INTO holder;
  IF FOUND THEN
    UPDATE office_routine_run_slots SET active = active - 1 WHERE scope IN ('deployment', 'agent:' || holder);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER routine_run_slots_freed AFTER UPDATE OF outcome ON office_routine_runs
  FOR EACH ROW WHEN (OLD.outcome IS NULL AND NEW.outcome IS NOT NULL) EXECUTE FUNCTION routine_run_slots_freed();

-- A dispatched run whose outcome is cleared (a repair by hand) holds its routine's assignee's slots again.
CREATE FUNCTION routine_run_slots_reopened() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO office_routine_run_slot_holders (routine_run_id, agent_id)
  SELECT NEW.id, assignee_agent_instance_id FROM office_routines WHERE id = NEW.routine_id;
  INSERT INTO office_routine_run_slots (scope, active)
  SELECT 'deployment', 1 UNION ALL SELECT 'agent:' || assignee_agent_instance_id, 1 FROM office_routines WHERE id = NEW.routine_id
  ON CONFLICT (scope) DO UPDATE SET active = office_routine_run_slots.active + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER routine_run_slots_reopened AFTER UPDATE OF outcome ON office_routine_runs
  FOR EACH ROW WHEN (OLD.outcome IS NOT NULL AND NEW.outcome IS NULL AND NEW.status IN ('task_created', 'dispatched'))
  EXECUTE FUNCTION routine_run_slots_reopened();
