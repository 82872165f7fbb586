-- SQLite's migration 0020 (see src/persistence/migrations/0020_unattended_provenance.sql): the
-- wakeup and the task carry `unattended` and `on_behalf_of`, the activity entry names on_behalf_of,
-- and a follow-on wakeup of unattended work holds a routine-run cap slot until it ends.
ALTER TABLE agent_wakeup_requests ADD COLUMN unattended INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agent_wakeup_requests ADD COLUMN on_behalf_of TEXT;
ALTER TABLE tasks ADD COLUMN unattended INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN on_behalf_of TEXT;
ALTER TABLE activity_log ADD COLUMN on_behalf_of TEXT;

UPDATE agent_wakeup_requests w SET unattended = rr.unattended, on_behalf_of = rr.on_behalf_of
FROM office_routine_runs rr WHERE rr.id = w.routine_run_id;
UPDATE tasks t SET unattended = first_run.unattended, on_behalf_of = first_run.on_behalf_of
FROM (SELECT DISTINCT ON (linked_task_id) linked_task_id, unattended, on_behalf_of FROM office_routine_runs
      WHERE linked_task_id IS NOT NULL ORDER BY linked_task_id, started_at) first_run
WHERE t.workflow = 'routine' AND first_run.linked_task_id = t.id;
UPDATE activity_log SET on_behalf_of = details::jsonb ->> 'on_behalf_of'
WHERE unattended = 1 AND jsonb_typeof(details::jsonb -> 'on_behalf_of') = 'string';

CREATE INDEX activity_log_unattended ON activity_log (unattended, id);

CREATE TABLE office_wakeup_slot_holders (
  wakeup_id TEXT PRIMARY KEY REFERENCES agent_wakeup_requests(id),
  agent_id TEXT NOT NULL
);

CREATE FUNCTION wakeup_slots_freed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  holder TEXT;
BEGIN
  DELETE FROM office_wakeup_slot_holders WHERE wakeup_id = NEW.id RETURNING agent_id INTO holder;
  IF FOUND THEN
    UPDATE office_routine_run_slots SET active = active - 1 WHERE scope IN ('deployment', 'agent:' || holder);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER wakeup_slots_freed AFTER UPDATE OF status ON agent_wakeup_requests
  FOR EACH ROW WHEN (NEW.status IN ('finished', 'failed', 'cancelled', 'skipped', 'coalesced')
    AND OLD.status NOT IN ('finished', 'failed', 'cancelled', 'skipped', 'coalesced'))
  EXECUTE FUNCTION wakeup_slots_freed();
