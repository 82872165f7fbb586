-- The counts by status that /metrics shows (office_wakeups{status}, office_runs{status}) become
-- counters kept in rows, instead of a COUNT ... GROUP BY over two tables that only grow, run by
-- every scrape. One row per agent, made with the agent, holding its wakeups and its runs by status:
-- - a status change is one UPDATE of that one row (the triggers below), whoever writes it;
-- - a scrape sums the rows: as many as there are agents, whatever the history holds;
-- - a row deleted while open (queued, claimed, scheduled_retry; a run queued or running) is taken
--   off its count; an ended one is not, so pruning old history leaves the counts as they were.
-- One row per agent, not one per status: the writes of one agent's work queue behind each other on
-- its own row, never on one row that every replica's every wakeup would take in turn, and a
-- transaction that changes one agent's wakeup and run takes one counter row, not two in some order.
-- The tallies are deferred constraint triggers: they run as the transaction commits, after all its
-- statements, so the counter row is locked last and only for the commit. Taken at the first status
-- change instead, it was held across the rest of the transaction, and met the locks an enqueue, a
-- claim or a routine run's outcome take (routine cap slots, the wakeup a request folds into) in the
-- other order: the chaos run's deadlocks.
-- A wakeup's or a run's agent never changes (no statement updates agent_id).

CREATE TABLE agent_status_counts (
  agent_id TEXT PRIMARY KEY REFERENCES agent_instances(id),
  wakeups_queued BIGINT NOT NULL DEFAULT 0,
  wakeups_claimed BIGINT NOT NULL DEFAULT 0,
  wakeups_coalesced BIGINT NOT NULL DEFAULT 0,
  wakeups_skipped BIGINT NOT NULL DEFAULT 0,
  wakeups_finished BIGINT NOT NULL DEFAULT 0,
  wakeups_failed BIGINT NOT NULL DEFAULT 0,
  wakeups_cancelled BIGINT NOT NULL DEFAULT 0,
  wakeups_scheduled_retry BIGINT NOT NULL DEFAULT 0,
  runs_queued BIGINT NOT NULL DEFAULT 0,
  runs_running BIGINT NOT NULL DEFAULT 0,
  runs_succeeded BIGINT NOT NULL DEFAULT 0,
  runs_failed BIGINT NOT NULL DEFAULT 0,
  runs_interrupted BIGINT NOT NULL DEFAULT 0,
  runs_cancelled BIGINT NOT NULL DEFAULT 0
);

-- On upgrade, the counts of the rows as they are.
INSERT INTO agent_status_counts (agent_id, wakeups_queued, wakeups_claimed, wakeups_coalesced, wakeups_skipped, wakeups_finished, wakeups_failed, wakeups_cancelled, wakeups_scheduled_retry, runs_queued, runs_running, runs_succeeded, runs_failed, runs_interrupted, runs_cancelled)
SELECT a.id, COALESCE(w.queued, 0), COALESCE(w.claimed, 0), COALESCE(w.coalesced, 0), COALESCE(w.skipped, 0), COALESCE(w.finished, 0), COALESCE(w.failed, 0), COALESCE(w.cancelled, 0), COALESCE(w.scheduled_retry, 0),
  COALESCE(r.queued, 0), COALESCE(r.running, 0), COALESCE(r.succeeded, 0), COALESCE(r.failed, 0), COALESCE(r.interrupted, 0), COALESCE(r.cancelled, 0)
FROM agent_instances a
LEFT JOIN (SELECT agent_id, COUNT(*) FILTER (WHERE status = 'queued') AS queued, COUNT(*) FILTER (WHERE status = 'claimed') AS claimed, COUNT(*) FILTER (WHERE status = 'coalesced') AS coalesced, COUNT(*) FILTER (WHERE status = 'skipped') AS skipped, COUNT(*) FILTER (WHERE status = 'finished') AS finished, COUNT(*) FILTER (WHERE status = 'failed') AS failed, COUNT(*) FILTER (WHERE status = 'cancelled') AS cancelled, COUNT(*) FILTER (WHERE status = 'scheduled_retry') AS scheduled_retry FROM agent_wakeup_requests GROUP BY agent_id) w ON w.agent_id = a.id
LEFT JOIN (SELECT agent_id, COUNT(*) FILTER (WHERE status = 'queued') AS queued, COUNT(*) FILTER (WHERE status = 'running') AS running, COUNT(*) FILTER (WHERE status = 'succeeded') AS succeeded, COUNT(*) FILTER (WHERE status = 'failed') AS failed, COUNT(*) FILTER (WHERE status = 'interrupted') AS interrupted, COUNT(*) FILTER (WHERE status = 'cancelled') AS cancelled FROM runs GROUP BY agent_id) r ON r.agent_id = a.id;

CREATE FUNCTION agent_status_counts_made() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO agent_status_counts (agent_id) VALUES (NEW.id) ON CONFLICT (agent_id) DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER agent_status_counts_made AFTER INSERT ON agent_instances
  FOR EACH ROW EXECUTE FUNCTION agent_status_counts_made();

CREATE FUNCTION wakeup_tally_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE agent_status_counts SET
      wakeups_queued = wakeups_queued + (NEW.status = 'queued')::int,
      wakeups_claimed = wakeups_claimed + (NEW.status = 'claimed')::int,
      wakeups_coalesced = wakeups_coalesced + (NEW.status = 'coalesced')::int,
      wakeups_skipped = wakeups_skipped + (NEW.status = 'skipped')::int,
      wakeups_finished = wakeups_finished + (NEW.status = 'finished')::int,
      wakeups_failed = wakeups_failed + (NEW.status = 'failed')::int,
      wakeups_cancelled = wakeups_cancelled + (NEW.status = 'cancelled')::int,
      wakeups_scheduled_retry = wakeups_scheduled_retry + (NEW.status = 'scheduled_retry')::int
    WHERE agent_id = NEW.agent_id;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER wakeup_tally_status AFTER INSERT ON agent_wakeup_requests
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION wakeup_tally_status();

CREATE FUNCTION wakeup_tally_status_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE agent_status_counts SET
      wakeups_queued = wakeups_queued + (NEW.status = 'queued')::int - (OLD.status = 'queued')::int,
      wakeups_claimed = wakeups_claimed + (NEW.status = 'claimed')::int - (OLD.status = 'claimed')::int,
      wakeups_coalesced = wakeups_coalesced + (NEW.status = 'coalesced')::int - (OLD.status = 'coalesced')::int,
      wakeups_skipped = wakeups_skipped + (NEW.status = 'skipped')::int - (OLD.status = 'skipped')::int,
      wakeups_finished = wakeups_finished + (NEW.status = 'finished')::int - (OLD.status = 'finished')::int,
      wakeups_failed = wakeups_failed + (NEW.status = 'failed')::int - (OLD.status = 'failed')::int,
      wakeups_cancelled = wakeups_cancelled + (NEW.status = 'cancelled')::int - (OLD.status = 'cancelled')::int,
      wakeups_scheduled_retry = wakeups_scheduled_retry + (NEW.status = 'scheduled_retry')::int - (OLD.status = 'scheduled_retry')::int
    WHERE agent_id = NEW.agent_id;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER wakeup_tally_status_change AFTER UPDATE OF status ON agent_wakeup_requests
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD.status <> NEW.status) EXECUTE FUNCTION wakeup_tally_status_change();

CREATE FUNCTION wakeup_untally_open() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE agent_status_counts SET
      wakeups_queued = wakeups_queued - (OLD.status = 'queued')::int,
      wakeups_claimed = wakeups_claimed - (OLD.status = 'claimed')::int,
      wakeups_scheduled_retry = wakeups_scheduled_retry - (OLD.status = 'scheduled_retry')::int
    WHERE agent_id = OLD.agent_id;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER wakeup_untally_open AFTER DELETE ON agent_wakeup_requests
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD.status IN ('queued', 'claimed', 'scheduled_retry')) EXECUTE FUNCTION wakeup_untally_open();

CREATE FUNCTION runs_tally_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE agent_status_counts SET
      runs_queued = runs_queued + (NEW.status = 'queued')::int,
      runs_running = runs_running + (NEW.status = 'running')::int,
      runs_succeeded = runs_succeeded + (NEW.status = 'succeeded')::int,
      runs_failed = runs_failed + (NEW.status = 'failed')::int,
      runs_interrupted = runs_interrupted + (NEW.status = 'interrupted')::int,
      runs_cancelled = runs_cancelled + (NEW.status = 'cancelled')::int
    WHERE agent_id = NEW.agent_id;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER runs_tally_status AFTER INSERT ON runs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION runs_tally_status();

CREATE FUNCTION runs_tally_status_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE agent_status_counts SET
      runs_queued = runs_queued + (NEW.status = 'queued')::int - (OLD.status = 'queued')::int,
      runs_running = runs_running + (NEW.status = 'running')::int - (OLD.status = 'running')::int,
      runs_succeeded = runs_succeeded + (NEW.status = 'succeeded')::int - (OLD.status = 'succeeded')::int,
      runs_failed = runs_failed + (NEW.status = 'failed')::int - (OLD.status = 'failed')::int,
      runs_interrupted = runs_interrupted + (NEW.status = 'interrupted')::int - (OLD.status = 'interrupted')::int,
      runs_cancelled = runs_cancelled + (NEW.status = 'cancelled')::int - (OLD.status = 'cancelled')::int
    WHERE agent_id = NEW.agent_id;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER runs_tally_status_change AFTER UPDATE OF status ON runs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD.status <> NEW.status) EXECUTE FUNCTION runs_tally_status_change();

CREATE FUNCTION runs_untally_open() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE agent_status_counts SET
      runs_queued = runs_queued - (OLD.status = 'queued')::int,
      runs_running = runs_running - (OLD.status = 'running')::int
    WHERE agent_id = OLD.agent_id;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER runs_untally_open AFTER DELETE ON runs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD.status IN ('queued', 'running')) EXECUTE FUNCTION runs_untally_open();
