-- Durable result delivery (issue 16): a routine's result delivery (its optional `delivery` webhook)
-- is recorded in the transaction that settles its routine run, and retried with backoff until it
-- is delivered or gives up, whatever happens to the process meanwhile.
--
-- routine_deliveries: one row per delivery still to make (delivery_status `pending`), taken by a
-- process with a claim that expires (claimed_by, claimed_until), as the event outbox is: a process
-- that dies while posting leaves a claim that the next one (or another replica) takes once it
-- expires. The row goes when the delivery ends, in the statement that records `delivered` or `failed`.
CREATE TABLE routine_deliveries (
  routine_run_id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  body TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  claimed_by TEXT,
  claimed_until INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX routine_deliveries_due ON routine_deliveries (next_attempt_at);

-- delivery_status gains `pending`. SQLite cannot change a CHECK constraint in place, so the
-- routine-run table is rebuilt with the same columns, keys, indexes and triggers (as 0005 did). The
-- slot holders of migration 0013 reference its rows: they are set aside while it is rebuilt.
CREATE TEMP TABLE slot_holders_0019 AS SELECT routine_run_id, agent_id FROM office_routine_run_slot_holders;
DELETE FROM office_routine_run_slot_holders;

CREATE TABLE office_routine_runs_0019 (
  id TEXT PRIMARY KEY,
  routine_id TEXT NOT NULL REFERENCES office_routines(id) ON DELETE CASCADE,
  trigger_id TEXT,
  source TEXT NOT NULL CHECK (source IN ('cron', 'webhook', 'manual')),
  status TEXT NOT NULL CHECK (status IN ('received', 'task_created', 'dispatched', 'skipped', 'coalesced', 'failed')),
  skip_reason TEXT,
  trigger_payload TEXT NOT NULL DEFAULT '{}',
  linked_task_id TEXT,
  linked_wakeup_id TEXT,
  coalesced_into_run_id TEXT,
  dispatch_fingerprint TEXT NOT NULL,
  scheduled_for INTEGER,
  delivery_id TEXT,
  outcome TEXT CHECK (outcome IN ('succeeded', 'failed', 'interrupted', 'cancelled')),
  delivery_status TEXT NOT NULL DEFAULT 'none' CHECK (delivery_status IN ('none', 'pending', 'delivered', 'failed')),
  error TEXT,
  unattended INTEGER NOT NULL DEFAULT 1,
  on_behalf_of TEXT,
  started_at INTEGER NOT NULL,
  completed_at INTEGER,
  -- A cron tick fires once, whatever restarts or replicas do.
  UNIQUE (trigger_id, scheduled_for),
  -- A delivery id past the idempotency window is retired (suffixed '#expired:<run id>'), so it can fire again.
  UNIQUE (trigger_id, delivery_id)
);
INSERT INTO office_routine_runs_0019 (
  id, routine_id, trigger_id, source, status, skip_reason, trigger_payload, linked_task_id, linked_wakeup_id,
  coalesced_into_run_id, dispatch_fingerprint, scheduled_for, delivery_id, outcome, delivery_status, error,
  unattended, on_behalf_of, started_at, completed_at)
SELECT
  id, routine_id, trigger_id, source, status, skip_reason, trigger_payload, linked_task_id, linked_wakeup_id,
  coalesced_into_run_id, dispatch_fingerprint, scheduled_for, delivery_id, outcome, delivery_status, error,
  unattended, on_behalf_of, started_at, completed_at
FROM office_routine_runs;
DROP TABLE office_routine_runs;
ALTER TABLE office_routine_runs_0019 RENAME TO office_routine_runs;
CREATE INDEX routine_runs_by_routine ON office_routine_runs(routine_id, started_at);
CREATE INDEX routine_runs_active ON office_routine_runs(routine_id, dispatch_fingerprint) WHERE outcome IS NULL;
CREATE INDEX routine_runs_by_wakeup ON office_routine_runs(linked_wakeup_id) WHERE linked_wakeup_id IS NOT NULL;
CREATE INDEX routine_runs_by_task ON office_routine_runs(linked_task_id) WHERE linked_task_id IS NOT NULL;

-- The triggers of migration 0013, unchanged: they went with the old table.
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

INSERT INTO office_routine_run_slot_holders (routine_run_id, agent_id) SELECT routine_run_id, agent_id FROM temp.slot_holders_0019;
DROP TABLE temp.slot_holders_0019;
