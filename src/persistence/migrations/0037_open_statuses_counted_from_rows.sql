-- The counters keep the ended statuses only. A wakeup's open statuses (queued, claimed,
-- scheduled_retry) and a run's (queued, running) are counted by a scrape from the open rows, through
-- the partial indexes wakeups_open and runs_active, which hold those rows and no others.
-- Before, every status change updated the agent's counter row: five row writes per wakeup (its
-- insert, its claim, its end, its run's insert and its run's end). Now only the two that end
-- something do. A scrape reads as many index entries as there are open rows: the backlog, not the
-- history.
-- A row deleted while open left no count behind to take back, and an ended one keeps its count (as
-- before: pruning old history leaves the counts as they were), so no delete trigger is left.

DROP TRIGGER wakeup_tally_status;
DROP TRIGGER wakeup_tally_status_change;
DROP TRIGGER wakeup_untally_open;
DROP TRIGGER runs_tally_status;
DROP TRIGGER runs_tally_status_change;
DROP TRIGGER runs_untally_open;

ALTER TABLE agent_status_counts DROP COLUMN wakeups_queued;
ALTER TABLE agent_status_counts DROP COLUMN wakeups_claimed;
ALTER TABLE agent_status_counts DROP COLUMN wakeups_scheduled_retry;
ALTER TABLE agent_status_counts DROP COLUMN runs_queued;
ALTER TABLE agent_status_counts DROP COLUMN runs_running;

CREATE TRIGGER wakeup_tally_ended AFTER INSERT ON agent_wakeup_requests
  WHEN NEW.status NOT IN ('queued', 'claimed', 'scheduled_retry')
BEGIN
UPDATE agent_status_counts SET
    wakeups_coalesced = wakeups_coalesced + (NEW.status = 'coalesced'),
    wakeups_skipped = wakeups_skipped + (NEW.status = 'skipped'),
    wakeups_finished = wakeups_finished + (NEW.status = 'finished'),
    wakeups_failed = wakeups_failed + (NEW.status = 'failed'),
    wakeups_cancelled = wakeups_cancelled + (NEW.status = 'cancelled')
  WHERE agent_id = NEW.agent_id;
END;

-- Into an ended status, out of one, or from one ended status to another.
CREATE TRIGGER wakeup_tally_ended_change AFTER UPDATE OF status ON agent_wakeup_requests
  WHEN OLD.status <> NEW.status
    AND (NEW.status NOT IN ('queued', 'claimed', 'scheduled_retry') OR OLD.status NOT IN ('queued', 'claimed', 'scheduled_retry'))
BEGIN
UPDATE agent_status_counts SET
    wakeups_coalesced = wakeups_coalesced + (NEW.status = 'coalesced') - (OLD.status = 'coalesced'),
    wakeups_skipped = wakeups_skipped + (NEW.status = 'skipped') - (OLD.status = 'skipped'),
    wakeups_finished = wakeups_finished + (NEW.status = 'finished') - (OLD.status = 'finished'),
    wakeups_failed = wakeups_failed + (NEW.status = 'failed') - (OLD.status = 'failed'),
    wakeups_cancelled = wakeups_cancelled + (NEW.status = 'cancelled') - (OLD.status = 'cancelled')
  WHERE agent_id = NEW.agent_id;
END;

CREATE TRIGGER runs_tally_ended AFTER INSERT ON runs
  WHEN NEW.status NOT IN ('queued', 'running')
BEGIN
UPDATE agent_status_counts SET
    runs_succeeded = runs_succeeded + (NEW.status = 'succeeded'),
    runs_failed = runs_failed + (NEW.status = 'failed'),
    runs_interrupted = runs_interrupted + (NEW.status = 'interrupted'),
    runs_cancelled = runs_cancelled + (NEW.status = 'cancelled')
  WHERE agent_id = NEW.agent_id;
END;

CREATE TRIGGER runs_tally_ended_change AFTER UPDATE OF status ON runs
  WHEN OLD.status <> NEW.status
    AND (NEW.status NOT IN ('queued', 'running') OR OLD.status NOT IN ('queued', 'running'))
BEGIN
UPDATE agent_status_counts SET
    runs_succeeded = runs_succeeded + (NEW.status = 'succeeded') - (OLD.status = 'succeeded'),
    runs_failed = runs_failed + (NEW.status = 'failed') - (OLD.status = 'failed'),
    runs_interrupted = runs_interrupted + (NEW.status = 'interrupted') - (OLD.status = 'interrupted'),
    runs_cancelled = runs_cancelled + (NEW.status = 'cancelled') - (OLD.status = 'cancelled')
  WHERE agent_id = NEW.agent_id;
END;
