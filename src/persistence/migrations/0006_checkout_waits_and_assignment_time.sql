-- When the task got its current assignee: the recovery sweep judges a task only by the wakeups of
-- that assignee made since then. Tasks from before this migration count from their creation.
ALTER TABLE tasks ADD COLUMN assigned_at INTEGER;
UPDATE tasks SET assigned_at = created_at WHERE assignee_agent_instance_id IS NOT NULL;

-- A queued wakeup parked behind another run's checkout of its task: the id of the wakeup that held
-- the task when it was parked. The release of the checkout offers it again (no polling).
ALTER TABLE agent_wakeup_requests ADD COLUMN waiting_on_checkout TEXT;
CREATE INDEX wakeups_waiting_on_checkout ON agent_wakeup_requests(task_id) WHERE status = 'queued' AND waiting_on_checkout IS NOT NULL;
