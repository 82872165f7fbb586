-- The routine-run cap counters are locked in one order by every statement that changes them: the
-- deployment's row first, then the agents' rows by scope. A take raises them in that order; a run's
-- or a wakeup's end used to lower both rows in one UPDATE, in whatever order the scan met them, so a
-- take and an end for one agent could each hold the row the other waited for (the chaos run's
-- deadlocks, each rolled back and run again). SQLite's one writer holds the database: nothing there.

CREATE OR REPLACE FUNCTION lower_routine_run_slots(holder TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM office_routine_run_slots WHERE scope IN ('deployment', 'agent:' || holder)
    ORDER BY scope <> 'deployment', scope FOR UPDATE;
  UPDATE office_routine_run_slots SET active = active - 1 WHERE scope IN ('deployment', 'agent:' || holder);
END $$;

CREATE OR REPLACE FUNCTION routine_run_slots_freed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  holder TEXT;
BEGIN
  DELETE FROM office_routine_run_slot_holders WHERE routine_run_id = NEW.id RETURNING agent_id INTO holder;
  IF FOUND THEN
    PERFORM lower_routine_run_slots(holder);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION wakeup_slots_freed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  holder TEXT;
BEGIN
  DELETE FROM office_wakeup_slot_holders WHERE wakeup_id = NEW.id RETURNING agent_id INTO holder;
  IF FOUND THEN
    PERFORM lower_routine_run_slots(holder);
  END IF;
  RETURN NULL;
END $$;
