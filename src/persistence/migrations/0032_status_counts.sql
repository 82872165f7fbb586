-- The counts by status that /metrics shows (office_wakeups{status}, office_runs{status}) become
-- counters kept in rows, instead of a COUNT ... GROUP BY over two tables that only grow, run by
-- every scrape. One row per agent, made with the agent, holding its wakeups and its runs by status:
-- - a status change is one UPDATE of that one row (the triggers below), whoever writes it;
-- - a scrape sums the rows: as many as there are agents, whatever the history holds;
-- - a row deleted while open (queued, claimed, scheduled_retry; a run queued or running) is taken
--   off its count; an ended one is not, so pruning old history leaves the counts as they were.
-- One row per agent, not one per status: the writes of one agent's work queue behind each other on
-- its own row.
-- A wakeup's or a run's agent never changes (no statement updates agent_id).

CREATE TABLE agent_status_counts (
  agent_id TEXT PRIMARY KEY REFERENCES agent_instances(id),
  wakeups_queued INTEGER NOT NULL DEFAULT 0,
  wakeups_claimed INTEGER NOT NULL DEFAULT 0,
  wakeups_coalesced INTEGER NOT NULL DEFAULT 0,
  wakeups_skipped INTEGER NOT NULL DEFAULT 0,
  wakeups_finished INTEGER NOT NULL DEFAULT 0,
  wakeups_failed INTEGER NOT NULL DEFAULT 0,
  wakeups_cancelled INTEGER NOT NULL DEFAULT 0,
  wakeups_scheduled_retry INTEGER NOT NULL DEFAULT 0,
  runs_queued INTEGER NOT NULL DEFAULT 0,
  runs_running INTEGER NOT NULL DEFAULT 0,
  runs_succeeded INTEGER NOT NULL DEFAULT 0,
  runs_failed INTEGER NOT NULL DEFAULT 0,
  runs_interrupted INTEGER NOT NULL DEFAULT 0,
  runs_cancelled INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

-- On upgrade, the counts of the rows as they are.
INSERT INTO agent_status_counts (agent_id, wakeups_queued, wakeups_claimed, wakeups_coalesced, wakeups_skipped, wakeups_finished, wakeups_failed, wakeups_cancelled, wakeups_scheduled_retry, runs_queued, runs_running, runs_succeeded, runs_failed, runs_interrupted, runs_cancelled)
SELECT a.id, COALESCE(w.queued, 0), COALESCE(w.claimed, 0), COALESCE(w.coalesced, 0), COALESCE(w.skipped, 0), COALESCE(w.finished, 0), COALESCE(w.failed, 0), COALESCE(w.cancelled, 0), COALESCE(w.scheduled_retry, 0),
  COALESCE(r.queued, 0), COALESCE(r.running, 0), COALESCE(r.succeeded, 0), COALESCE(r.failed, 0), COALESCE(r.interrupted, 0), COALESCE(r.cancelled, 0)
FROM agent_instances a
LEFT JOIN (SELECT agent_id, SUM(status = 'queued') AS queued, SUM(status = 'claimed') AS claimed, SUM(status = 'coalesced') AS coalesced, SUM(status = 'skipped') AS skipped, SUM(status = 'finished') AS finished, SUM(status = 'failed') AS failed, SUM(status = 'cancelled') AS cancelled, SUM(status = 'scheduled_retry') AS scheduled_retry FROM agent_wakeup_requests GROUP BY agent_id) w ON w.agent_id = a.id
LEFT JOIN (SELECT agent_id, SUM(status = 'queued') AS queued, SUM(status = 'running') AS running, SUM(status = 'succeeded') AS succeeded, SUM(status = 'failed') AS failed, SUM(status = 'interrupted') AS interrupted, SUM(status = 'cancelled') AS cancelled FROM runs GROUP BY agent_id) r ON r.agent_id = a.id;

CREATE TRIGGER agent_status_counts_made AFTER INSERT ON agent_instances
BEGIN
INSERT INTO agent_status_counts (agent_id) VALUES (NEW.id) ON CONFLICT (agent_id) DO NOTHING;
END;

CREATE TRIGGER wakeup_tally_status AFTER INSERT ON agent_wakeup_requests
BEGIN
UPDATE agent_status_counts SET
    wakeups_queued = wakeups_queued + (NEW.status = 'queued'),
    wakeups_claimed = wakeups_claimed + (NEW.status = 'claimed'),
    wakeups_coalesced = wakeups_coalesced + (NEW.status = 'coalesced'),
    wakeups_skipped = wakeups_skipped + (NEW.status = 'skipped'),
    wakeups_finished = wakeups_finished + (NEW.status = 'finished'),
    wakeups_failed = wakeups_failed + (NEW.status = 'failed'),
    wakeups_cancelled = wakeups_cancelled + (NEW.status = 'cancelled'),
    wakeups_scheduled_retry = wakeups_scheduled_retry + (NEW.status = 'scheduled_retry')
  WHERE agent_id = NEW.agent_id;
END;

CREATE TRIGGER wakeup_tally_status_change AFTER UPDATE OF status ON agent_wakeup_requests WHEN OLD.status <> NEW.status
BEGIN
UPDATE agent_status_counts SET
    wakeups_queued = wakeups_queued + (NEW.status = 'queued') - (OLD.status = 'queued'),
    wakeups_claimed = wakeups_claimed + (NEW.status = 'claimed') - (OLD.status = 'claimed'),
    wakeups_coalesced = wakeups_coalesced + (NEW.status = 'coalesced') - (OLD.status = 'coalesced'),
    wakeups_skipped = wakeups_skipped + (NEW.status = 'skipped') - (OLD.status = 'skipped'),
    wakeups_finished = wakeups_finished + (NEW.status = 'finished') - (OLD.status = 'finished'),
    wakeups_failed = wakeups_failed + (NEW.status = 'failed') - (OLD.status = 'failed'),
    wakeups_cancelled = wakeups_cancelled + (NEW.status = 'cancelled') - (OLD.status = 'cancelled'),
    wakeups_scheduled_retry = wakeups_scheduled_retry + (NEW.status = 'scheduled_retry') - (OLD.status = 'scheduled_retry')
  WHERE agent_id = NEW.agent_id;
END;

CREATE TRIGGER wakeup_untally_open AFTER DELETE ON agent_wakeup_requests WHEN OLD.status IN ('queued', 'claimed', 'scheduled_retry')
BEGIN
UPDATE agent_status_counts SET
    wakeups_queued = wakeups_queued - (OLD.status = 'queued'),
    wakeups_claimed = wakeups_claimed - (OLD.status = 'claimed'),
    wakeups_scheduled_retry = wakeups_scheduled_retry - (OLD.status = 'scheduled_retry')
  WHERE agent_id = OLD.agent_id;
END;

CREATE TRIGGER runs_tally_status AFTER INSERT ON runs
BEGIN
UPDATE agent_status_counts SET
    runs_queued = runs_queued + (NEW.status = 'queued'),
    runs_running = runs_running + (NEW.status = 'running'),
    runs_succeeded = runs_succeeded + (NEW.status = 'succeeded'),
    runs_failed = runs_failed + (NEW.status = 'failed'),
    runs_interrupted = runs_interrupted + (NEW.status = 'interrupted'),
    runs_cancelled = runs_cancelled + (NEW.status = 'cancelled')
  WHERE agent_id = NEW.agent_id;
END;

CREATE TRIGGER runs_tally_status_change AFTER UPDATE OF status ON runs WHEN OLD.status <> NEW.status
BEGIN
UPDATE agent_status_counts SET
    runs_queued = runs_queued + (NEW.status = 'queued') - (OLD.status = 'queued'),
    runs_running = runs_running + (NEW.status = 'running') - (OLD.status = 'running'),
    runs_succeeded = runs_succeeded + (NEW.status = 'succeeded') - (OLD.status = 'succeeded'),
    runs_failed = runs_failed + (NEW.status = 'failed') - (OLD.status = 'failed'),
    runs_interrupted = runs_interrupted + (NEW.status = 'interrupted') - (OLD.status = 'interrupted'),
    runs_cancelled = runs_cancelled + (NEW.status = 'cancelled') - (OLD.status = 'cancelled')
  WHERE agent_id = NEW.agent_id;
END;

CREATE TRIGGER runs_untally_open AFTER DELETE ON runs WHEN OLD.status IN ('queued', 'running')
BEGIN
UPDATE agent_status_counts SET
    runs_queued = runs_queued - (OLD.status = 'queued'),
    runs_running = runs_running - (OLD.status = 'running')
  WHERE agent_id = OLD.agent_id;
END;
