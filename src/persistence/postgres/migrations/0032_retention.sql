-- Retention (OFFICE_RETENTION_DAYS): ended history older than the setting is pruned in small batches
-- (services/retention.ts, persistence/sql/retention.ts). What the charts and budgets answer must not
-- change when it is:
-- - budgets' spend and the cost chart read the cost ledger, which retention keeps;
-- - the wakeups chart read the ended wakeup rows, and reads instead the counter below, kept by
--   triggers whoever writes the wakeups, so a pruned wakeup is still counted.
--
-- wakeup_outcome_counts: the wakeups that ended (finished, skipped, coalesced, failed, cancelled), per
-- workspace, agent, UTC minute of their finished_at (`minute`: its first millisecond) and status. A
-- minute is the chart's narrowest bucket; wider ones sum it. A wakeup that leaves an end (an unfold
-- puts a coalesced wakeup back in the queue) is taken off the minute it was counted in.
CREATE TABLE wakeup_outcome_counts (
  workspace_id TEXT NOT NULL,
  minute BIGINT NOT NULL,
  agent_id TEXT NOT NULL,
  status TEXT NOT NULL,
  count INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, minute, agent_id, status)
);

INSERT INTO wakeup_outcome_counts (workspace_id, minute, agent_id, status, count)
SELECT workspace_id, finished_at / 60000 * 60000, agent_id, status, COUNT(*) FROM agent_wakeup_requests
WHERE finished_at IS NOT NULL AND status IN ('finished', 'skipped', 'coalesced', 'failed', 'cancelled')
GROUP BY workspace_id, finished_at / 60000 * 60000, agent_id, status;

-- One function for the three cases: take the row off the minute it was counted in, count it where it is now.
CREATE FUNCTION wakeups_count_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.finished_at IS NOT NULL AND OLD.status IN ('finished', 'skipped', 'coalesced', 'failed', 'cancelled') THEN
    UPDATE wakeup_outcome_counts SET count = count - 1
    WHERE workspace_id = OLD.workspace_id AND minute = OLD.finished_at / 60000 * 60000 AND agent_id = OLD.agent_id
      AND status = OLD.status AND count > 0;
  END IF;
  IF NEW.finished_at IS NOT NULL AND NEW.status IN ('finished', 'skipped', 'coalesced', 'failed', 'cancelled') THEN
    INSERT INTO wakeup_outcome_counts (workspace_id, minute, agent_id, status, count)
    VALUES (NEW.workspace_id, NEW.finished_at / 60000 * 60000, NEW.agent_id, NEW.status, 1)
    ON CONFLICT (workspace_id, minute, agent_id, status) DO UPDATE SET count = wakeup_outcome_counts.count + 1;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER wakeups_count_outcome_insert AFTER INSERT ON agent_wakeup_requests
  FOR EACH ROW WHEN (NEW.finished_at IS NOT NULL AND NEW.status IN ('finished', 'skipped', 'coalesced', 'failed', 'cancelled'))
  EXECUTE FUNCTION wakeups_count_outcome();
CREATE TRIGGER wakeups_count_outcome_update AFTER UPDATE OF status, finished_at ON agent_wakeup_requests
  FOR EACH ROW WHEN (NEW.status IS DISTINCT FROM OLD.status OR NEW.finished_at IS DISTINCT FROM OLD.finished_at)
  EXECUTE FUNCTION wakeups_count_outcome();

-- The last pass (one row): a replica starts a pass only by moving started_at forward past the
-- interval in one guarded UPDATE, so with several replicas on one database one of them prunes.
CREATE TABLE retention_passes (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  started_at BIGINT NOT NULL,
  owner_id TEXT NOT NULL
);
INSERT INTO retention_passes (id, started_at, owner_id) VALUES (1, 0, '');

-- What a batch seeks: the oldest ended rows, and what keeps one of them (a kept wakeup folded into
-- it, an open inbox item naming a run).
CREATE INDEX wakeups_by_finished ON agent_wakeup_requests(finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX wakeups_by_fold_target ON agent_wakeup_requests(coalesced_into_id) WHERE coalesced_into_id IS NOT NULL;
CREATE INDEX runs_by_finished ON runs(finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX activity_by_created ON activity_log(created_at);
CREATE INDEX routine_runs_by_completed ON office_routine_runs(completed_at) WHERE completed_at IS NOT NULL;
CREATE INDEX inbox_open_by_ref ON inbox_items(ref_id) WHERE status = 'open' AND ref_id IS NOT NULL;
CREATE INDEX daily_usage_by_day ON agent_daily_usage(day);
