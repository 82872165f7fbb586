-- A wakeup that becomes claimable tells every replica, through NOTIFY on the channel office_wakeups,
-- so that the replica holding its agent's lease offers it to the agent actor without polling. The
-- notification is sent by the statement that writes the row, inside its transaction: PostgreSQL
-- delivers it only on commit, and never for a rollback. The payload is small (well under NOTIFY's
-- 8000 bytes): the agent, the wakeup, and when it may be claimed.

CREATE FUNCTION notify_wakeup_claimable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('office_wakeups',
    json_build_object('agent_id', NEW.agent_id, 'wakeup_id', NEW.id, 'available_at', NEW.available_at)::text);
  RETURN NULL;
END $$;

-- Queued: a new wakeup.
CREATE TRIGGER wakeup_queued_notifies AFTER INSERT ON agent_wakeup_requests
  FOR EACH ROW WHEN (NEW.status = 'queued') EXECUTE FUNCTION notify_wakeup_claimable();

-- Queued again (requeued after a dead claim, unfolded), or brought forward (deferred work released).
-- A wakeup parked behind a checkout is not: it is offered when that checkout is released (below).
CREATE TRIGGER wakeup_requeued_notifies AFTER UPDATE OF status, available_at ON agent_wakeup_requests
  FOR EACH ROW WHEN (NEW.status = 'queued' AND NEW.waiting_on_checkout IS NULL
    AND (OLD.status <> 'queued' OR OLD.available_at IS DISTINCT FROM NEW.available_at))
  EXECUTE FUNCTION notify_wakeup_claimable();

-- A released checkout offers the task to the wakeups parked behind it, however it was released
-- (a run's end, a cancel, a reassignment).
CREATE FUNCTION notify_checkout_waiters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('office_wakeups',
    json_build_object('agent_id', w.agent_id, 'wakeup_id', w.id, 'available_at', w.available_at)::text)
  FROM agent_wakeup_requests w
  WHERE w.task_id = NEW.id AND w.status = 'queued' AND w.waiting_on_checkout IS NOT NULL;
  RETURN NULL;
END $$;
CREATE TRIGGER checkout_released_notifies AFTER UPDATE OF checkout_wakeup_id ON tasks
  FOR EACH ROW WHEN (OLD.checkout_wakeup_id IS NOT NULL AND NEW.checkout_wakeup_id IS NULL)
  EXECUTE FUNCTION notify_checkout_waiters();
