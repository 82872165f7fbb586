-- The audit trail tells unattended work from attended (API.md, "Governance" -> "Audit"): what a cron
-- or webhook fire causes carries `unattended` and `on_behalf_of` (the routine's owner) down the
-- chain fire -> wakeup -> run -> the run's follow-on work (comments, moves, subtasks, wakes of
-- other agents) -> their wakeups and runs in turn. The run and the routine run had both already;
-- the wakeup and the task carry them now, and the activity entry names on_behalf_of on its own.
ALTER TABLE agent_wakeup_requests ADD COLUMN unattended INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agent_wakeup_requests ADD COLUMN on_behalf_of TEXT;
ALTER TABLE tasks ADD COLUMN unattended INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN on_behalf_of TEXT;
ALTER TABLE activity_log ADD COLUMN on_behalf_of TEXT;

-- Earlier rows: a fire's wakeup (and a heavy run's first assignment) is its routine run's; a heavy
-- routine's task is its first routine run's; an entry that named its owner in details names it here.
UPDATE agent_wakeup_requests
SET unattended = (SELECT rr.unattended FROM office_routine_runs rr WHERE rr.id = agent_wakeup_requests.routine_run_id),
    on_behalf_of = (SELECT rr.on_behalf_of FROM office_routine_runs rr WHERE rr.id = agent_wakeup_requests.routine_run_id)
WHERE routine_run_id IS NOT NULL;
UPDATE tasks
SET unattended = (SELECT rr.unattended FROM office_routine_runs rr WHERE rr.linked_task_id = tasks.id ORDER BY rr.started_at LIMIT 1),
    on_behalf_of = (SELECT rr.on_behalf_of FROM office_routine_runs rr WHERE rr.linked_task_id = tasks.id ORDER BY rr.started_at LIMIT 1)
WHERE workflow = 'routine' AND EXISTS (SELECT 1 FROM office_routine_runs rr WHERE rr.linked_task_id = tasks.id);
UPDATE activity_log SET on_behalf_of = json_extract(details, '$.on_behalf_of')
WHERE unattended = 1 AND json_type(details, '$.on_behalf_of') = 'text';

-- GET /api/office/activity?unattended=true reads the newest unattended entries first.
CREATE INDEX activity_log_unattended ON activity_log (unattended, id);

-- Caps that compose: a wakeup that an unattended run's follow-on work makes for an agent (a subtask's
-- assignment, a comment, an escalation, a self-wake) takes a slot under the routine-run caps like a
-- fire does (the counters of migration 0013: the deployment's and its agent's), and holds it until
-- the wakeup ends. The holders say which wakeups hold one, for which agent.
CREATE TABLE office_wakeup_slot_holders (
  wakeup_id TEXT PRIMARY KEY REFERENCES agent_wakeup_requests(id),
  agent_id TEXT NOT NULL
);

-- Whoever ends the wakeup (a finish, a cancel, a skip, an agent's deletion), its slots are freed in
-- that statement, once. A wakeup waiting for its retry or deferred by a daily cap keeps them.
CREATE TRIGGER wakeup_slots_freed AFTER UPDATE OF status ON agent_wakeup_requests
  WHEN NEW.status IN ('finished', 'failed', 'cancelled', 'skipped', 'coalesced')
    AND OLD.status NOT IN ('finished', 'failed', 'cancelled', 'skipped', 'coalesced')
BEGIN
  UPDATE office_routine_run_slots SET active = active - 1
  WHERE scope IN ('deployment', (SELECT 'agent:' || agent_id FROM office_wakeup_slot_holders WHERE wakeup_id = NEW.id))
    AND EXISTS (SELECT 1 FROM office_wakeup_slot_holders WHERE wakeup_id = NEW.id);
  DELETE FROM office_wakeup_slot_holders WHERE wakeup_id = NEW.id;
END;
