-- A routine run whose wakeup was cancelled (its agent deleted, its task reassigned) ends with the
-- outcome `cancelled` (API.md, "Deleting an agent"). SQLite cannot change a CHECK constraint in
-- place, so the routine-run table is rebuilt with the same columns, keys and indexes.
CREATE TABLE office_routine_runs_0005 (
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
  delivery_status TEXT NOT NULL DEFAULT 'none' CHECK (delivery_status IN ('none', 'delivered', 'failed')),
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
INSERT INTO office_routine_runs_0005 (
  id, routine_id, trigger_id, source, status, skip_reason, trigger_payload, linked_task_id, linked_wakeup_id,
  coalesced_into_run_id, dispatch_fingerprint, scheduled_for, delivery_id, outcome, delivery_status, error,
  unattended, on_behalf_of, started_at, completed_at)
SELECT
  id, routine_id, trigger_id, source, status, skip_reason, trigger_payload, linked_task_id, linked_wakeup_id,
  coalesced_into_run_id, dispatch_fingerprint, scheduled_for, delivery_id, outcome, delivery_status, error,
  unattended, on_behalf_of, started_at, completed_at
FROM office_routine_runs;
DROP TABLE office_routine_runs;
ALTER TABLE office_routine_runs_0005 RENAME TO office_routine_runs;
CREATE INDEX routine_runs_by_routine ON office_routine_runs(routine_id, started_at);
CREATE INDEX routine_runs_active ON office_routine_runs(routine_id, dispatch_fingerprint) WHERE outcome IS NULL;
CREATE INDEX routine_runs_by_wakeup ON office_routine_runs(linked_wakeup_id) WHERE linked_wakeup_id IS NOT NULL;
CREATE INDEX routine_runs_by_task ON office_routine_runs(linked_task_id) WHERE linked_task_id IS NOT NULL;

-- The missed-ticks note of a catch-up tick that was skipped (skip_if_active, a cap), kept until the
-- next fire that reaches the agent carries it: JSON {count, since} or NULL.
ALTER TABLE office_routines ADD COLUMN carried_missed_ticks TEXT;

-- "Is this heavy routine active?" reads its open tasks (API.md, "Active"): one seek per fire.
CREATE INDEX tasks_open_by_routine ON tasks(origin_id)
  WHERE workflow = 'routine' AND state NOT IN ('DONE', 'CANCELLED', 'ARCHIVED');
