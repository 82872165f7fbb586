-- The counters keep the ended statuses only (SQLite's 0037). A wakeup's open statuses (queued,
-- claimed, scheduled_retry) and a run's (queued, running) are counted by a scrape from the open
-- rows, through the partial indexes wakeups_open and runs_active, which hold those rows and no others.
-- Before, every status change ran a deferred trigger that updated the agent's counter row: five
-- trigger calls and five new row versions per wakeup. Now only the two that end something do. A
-- scrape reads as many index entries as there are open rows: the backlog, not the history.
-- A row deleted while open left no count behind to take back, and an ended one keeps its count (as
-- before: pruning old history leaves the counts as they were), so no delete trigger is left.
-- The triggers stay deferred constraint triggers, for the lock order 0033 explains.

DROP TRIGGER wakeup_tally_status ON agent_wakeup_requests;
DROP TRIGGER wakeup_tally_status_change ON agent_wakeup_requests;
DROP TRIGGER wakeup_untally_open ON agent_wakeup_requests;
DROP TRIGGER runs_tally_status ON runs;
DROP TRIGGER runs_tally_status_change ON runs;
DROP TRIGGER runs_untally_open ON runs;
DROP FUNCTION wakeup_tally_status();
DROP FUNCTION wakeup_tally_status_change();
DROP FUNCTION wakeup_untally_open();
DROP FUNCTION runs_tally_status();
DROP FUNCTION runs_tally_status_change();
DROP FUNCTION runs_untally_open();

ALTER TABLE agent_status_counts
  DROP COLUMN wakeups_queued,
  DROP COLUMN wakeups_claimed,
  DROP COLUMN wakeups_scheduled_retry,
  DROP COLUMN runs_queued,
  DROP COLUMN runs_running;

-- On an insert OLD is NULL: its comparisons are NULL, and COALESCE makes them 0.
CREATE FUNCTION wakeup_tally_ended() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was text := CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END;
BEGIN
  UPDATE agent_status_counts SET
      wakeups_coalesced = wakeups_coalesced + (NEW.status = 'coalesced')::int - COALESCE((was = 'coalesced')::int, 0),
      wakeups_skipped = wakeups_skipped + (NEW.status = 'skipped')::int - COALESCE((was = 'skipped')::int, 0),
      wakeups_finished = wakeups_finished + (NEW.status = 'finished')::int - COALESCE((was = 'finished')::int, 0),
      wakeups_failed = wakeups_failed + (NEW.status = 'failed')::int - COALESCE((was = 'failed')::int, 0),
      wakeups_cancelled = wakeups_cancelled + (NEW.status = 'cancelled')::int - COALESCE((was = 'cancelled')::int, 0)
    WHERE agent_id = NEW.agent_id;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER wakeup_tally_ended AFTER INSERT ON agent_wakeup_requests
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (NEW.status NOT IN ('queued', 'claimed', 'scheduled_retry'))
  EXECUTE FUNCTION wakeup_tally_ended();
-- Into an ended status, out of one, or from one ended status to another.
CREATE CONSTRAINT TRIGGER wakeup_tally_ended_change AFTER UPDATE OF status ON agent_wakeup_requests
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.status <> NEW.status
    AND (NEW.status NOT IN ('queued', 'claimed', 'scheduled_retry') OR OLD.status NOT IN ('queued', 'claimed', 'scheduled_retry')))
  EXECUTE FUNCTION wakeup_tally_ended();

CREATE FUNCTION runs_tally_ended() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was text := CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END;
BEGIN
  UPDATE agent_status_counts SET
      runs_succeeded = runs_succeeded + (NEW.status = 'succeeded')::int - COALESCE((was = 'succeeded')::int, 0),
      runs_failed = runs_failed + (NEW.status = 'failed')::int - COALESCE((was = 'failed')::int, 0),
      runs_interrupted = runs_interrupted + (NEW.status = 'interrupted')::int - COALESCE((was = 'interrupted')::int, 0),
      runs_cancelled = runs_cancelled + (NEW.status = 'cancelled')::int - COALESCE((was = 'cancelled')::int, 0)
    WHERE agent_id = NEW.agent_id;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER runs_tally_ended AFTER INSERT ON runs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (NEW.status NOT IN ('queued', 'running'))
  EXECUTE FUNCTION runs_tally_ended();
CREATE CONSTRAINT TRIGGER runs_tally_ended_change AFTER UPDATE OF status ON runs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.status <> NEW.status AND (NEW.status NOT IN ('queued', 'running') OR OLD.status NOT IN ('queued', 'running')))
  EXECUTE FUNCTION runs_tally_ended();
