-- The routine-run caps (API.md, "Routine-run caps": OFFICE_MAX_CONCURRENT_ROUTINE_RUNS and an agent's
-- max_concurrent_routine_runs) become counters kept in rows, taken with a guarded UPDATE, instead of
-- a COUNT over every open routine run on each fire (which made a burst of N fires cost N^2).
--
-- office_routine_run_slots: one row per scope, 'deployment' or 'agent:<agent id>', with the number of
-- routine runs that hold a slot there. A routine run holds a slot from its dispatch (task_created or
-- dispatched) until its outcome is written; office_routine_run_slot_holders says which runs do, and
-- for which agent, so that the end of a run frees exactly the slots it took, once, even after its
-- routine has been given another assignee.
CREATE TABLE office_routine_run_slots (
  scope TEXT PRIMARY KEY,
  active INTEGER NOT NULL DEFAULT 0 CHECK (active >= 0)
);

CREATE TABLE office_routine_run_slot_holders (
  routine_run_id TEXT PRIMARY KEY REFERENCES office_routine_runs(id),
  agent_id TEXT NOT NULL
);

-- On upgrade, the open runs hold the slots that the old COUNT gave them: their routine's assignee's.
INSERT INTO office_routine_run_slot_holders (routine_run_id, agent_id)
SELECT rr.id, r.assignee_agent_instance_id
FROM office_routine_runs rr JOIN office_routines r ON r.id = rr.routine_id
WHERE rr.outcome IS NULL AND rr.status IN ('task_created', 'dispatched');

INSERT INTO office_routine_run_slots (scope, active)
SELECT 'deployment', COUNT(*) FROM office_routine_run_slot_holders;

INSERT INTO office_routine_run_slots (scope, active)
SELECT 'agent:' || agent_id, COUNT(*) FROM office_routine_run_slot_holders GROUP BY agent_id;

-- The slots follow the run rows whoever writes them, so the counters always equal the open runs
-- that hold one: a run's outcome frees its slots in the statement that writes it (RoutineRepo.settleRun,
-- or a migration settling runs an earlier version leaked, such as 0011), and a dispatched run whose
-- outcome is cleared (a repair by hand) holds its routine's assignee's slots again.
CREATE TRIGGER routine_run_slots_freed AFTER UPDATE OF outcome ON office_routine_runs
  WHEN OLD.outcome IS NULL AND NEW.outcome IS NOT NULL
BEGIN
  UPDATE office_routine_run_slots SET active = active - 1
  WHERE scope IN ('deployment', (SELECT 'agent:' || agent_id FROM office_routine_run_slot_holders WHERE routine_run_id = NEW.id))
    AND EXISTS (SELECT 1 FROM office_routine_run_slot_holders WHERE routine_run_id = NEW.id);
  DELETE FROM office_routine_run_slot_holders WHERE routine_run_id = NEW.id;
END;

CREATE TRIGGER routine_run_slots_reopened AFTER UPDATE OF outcome ON office_routine_runs
  WHEN OLD.outcome IS NOT NULL AND NEW.outcome IS NULL AND NEW.status IN ('task_created', 'dispatched')
BEGIN
  INSERT INTO office_routine_run_slot_holders (routine_run_id, agent_id)
  SELECT NEW.id, assignee_agent_instance_id FROM office_routines WHERE id = NEW.routine_id;
  INSERT INTO office_routine_run_slots (scope, active)
  SELECT scope, 1 FROM (SELECT 'deployment' AS scope UNION ALL
                        SELECT 'agent:' || assignee_agent_instance_id FROM office_routines WHERE id = NEW.routine_id) WHERE true
  ON CONFLICT (scope) DO UPDATE SET active = active + 1;
END;
