-- The daily caps (an agent's daily_run_cap and daily_cost_cap_usd) become counters kept in rows,
-- instead of two counts over runs and the cost ledger read before the decision, which two dispatches
-- at once could both pass. One row per agent and UTC day (`day`: the day's first millisecond):
-- - runs: the runs that took a claim on the day, counted from the insert of the run row (queued or
--   running, or already ended with a session that started; not a run failed before it could start,
--   such as one with no executor) and given back when a run ends without its session having
--   started (queued to an end),
--   so a dispatch whose run is not started yet already counts against the cap;
-- - cost_usd: the spend recorded in the ledger on the day, one entry per run.
-- The rows follow the runs and the ledger whoever writes them (the triggers below). A dispatch takes
-- its agent's row of the day (RunRepo.holdDailyCaps) and decides on it in that statement: a second
-- dispatch of the agent waits for the first one's run to be counted.
CREATE TABLE agent_daily_usage (
  agent_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  runs INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (agent_id, day)
);

-- On upgrade, every day's counts from the rows as they are (not only today's: the database's clock
-- need not be the scheduler's), so an upgrade in the middle of a day keeps its caps where they were.
INSERT INTO agent_daily_usage (agent_id, day, runs, cost_usd)
SELECT agent_id, day, SUM(runs), SUM(cost_usd) FROM (
  SELECT agent_id, created_at / 86400000 * 86400000 AS day, 1 AS runs, 0 AS cost_usd FROM runs
  WHERE status IN ('queued', 'running') OR started_at IS NOT NULL
  UNION ALL
  SELECT agent_id, created_at / 86400000 * 86400000, 0, cost_usd FROM cost_ledger) counted
GROUP BY agent_id, day;

CREATE TRIGGER runs_tally_daily_usage AFTER INSERT ON runs WHEN NEW.status IN ('queued', 'running') OR NEW.started_at IS NOT NULL
BEGIN
  INSERT INTO agent_daily_usage (agent_id, day, runs, cost_usd) VALUES (NEW.agent_id, NEW.created_at / 86400000 * 86400000, 1, 0)
  ON CONFLICT (agent_id, day) DO UPDATE SET runs = runs + 1;
END;

CREATE TRIGGER runs_untally_daily_usage AFTER UPDATE OF status ON runs
  WHEN OLD.status = 'queued' AND NEW.status NOT IN ('queued', 'running')
BEGIN
  UPDATE agent_daily_usage SET runs = runs - 1
  WHERE agent_id = NEW.agent_id AND day = NEW.created_at / 86400000 * 86400000 AND runs > 0;
END;

CREATE TRIGGER cost_tally_daily_usage AFTER INSERT ON cost_ledger
BEGIN
  INSERT INTO agent_daily_usage (agent_id, day, runs, cost_usd) VALUES (NEW.agent_id, NEW.created_at / 86400000 * 86400000, 0, NEW.cost_usd)
  ON CONFLICT (agent_id, day) DO UPDATE SET cost_usd = cost_usd + excluded.cost_usd;
END;
