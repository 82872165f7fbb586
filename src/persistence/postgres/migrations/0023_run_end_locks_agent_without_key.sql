-- A run's end locks its agent's row FOR NO KEY UPDATE instead of FOR UPDATE. It still queues the
-- ends of one agent's runs behind each other (the lock conflicts with itself), but no longer blocks
-- the KEY SHARE lock a foreign key check takes on the agent: an enqueue for the agent (a fire, an
-- escalation) that held a routine cap slot waited for the run's end, while the run's end waited
-- for that slot, and PostgreSQL rolled one of them back as a deadlock.
CREATE OR REPLACE FUNCTION runs_ended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM agent_instances WHERE id = NEW.agent_id FOR NO KEY UPDATE;
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
