-- The daily caps (an agent's daily_run_cap and daily_cost_cap_usd) become counters kept in rows,
-- instead of two counts over runs and the cost ledger read before the decision, which two dispatches
-- at once (two replicas, or two slots of one agent) could both pass. One row per agent and UTC day
-- (`day`: the day's first millisecond):
-- - runs: the runs that took a claim on the day, counted from the insert of the run row (queued or
--   running, or already ended with a session that started; not a run failed before it could start,
--   such as one with no executor) and given back when a run ends without its session having
--   started (queued to an end),
--   so a dispatch whose run is not started yet already counts against the cap;
-- - cost_usd: the spend recorded in the ledger on the day, one entry per run.
-- The rows follow the runs and the ledger whoever writes them (the triggers below). A dispatch takes
-- its agent's row of the day (RunRepo.holdDailyCaps) and decides on it in that statement, holding
-- the row until it commits: a second dispatch of the agent waits, then decides on the first one's
-- counted run.
CREATE TABLE agent_daily_usage (
  agent_id TEXT NOT NULL,
  day BIGINT NOT NULL,
  runs INTEGER NOT NULL DEFAULT 0,
  cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0,
  PRIMARY KEY (agent_id, day)
);

-- On upgrade, every day's counts from the rows as they are (not only today's: the database's clock
-- need not be the scheduler's), so an upgrade in the middle of a day keeps its caps where they were.
INSERT INTO agent_daily_usage (agent_id, day, runs, cost_usd)
SELECT agent_id, day, SUM(runs), SUM(cost_usd) FROM (
  SELECT agent_id, created_at / 86400000 * 86400000 AS day, 1 AS runs, 0::double precision AS cost_usd FROM runs
  WHERE status IN ('queued', 'running') OR started_at IS NOT NULL
  UNION ALL
  SELECT agent_id, created_at / 86400000 * 86400000, 0, cost_usd FROM cost_ledger) counted
GROUP BY agent_id, day;

-- Named to fire after runs_started and runs_ended (PostgreSQL fires a row's triggers in the order
-- of their names): a run's insert or end locks its agent's and its task's rows before the usage row,
-- in the order a finish that records a cost takes them.
CREATE FUNCTION runs_tally_daily_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO agent_daily_usage (agent_id, day, runs, cost_usd) VALUES (NEW.agent_id, NEW.created_at / 86400000 * 86400000, 1, 0)
  ON CONFLICT (agent_id, day) DO UPDATE SET runs = agent_daily_usage.runs + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER runs_tally_daily_usage AFTER INSERT ON runs
  FOR EACH ROW WHEN (NEW.status IN ('queued', 'running') OR NEW.started_at IS NOT NULL) EXECUTE FUNCTION runs_tally_daily_usage();

CREATE FUNCTION runs_untally_daily_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE agent_daily_usage SET runs = runs - 1
  WHERE agent_id = NEW.agent_id AND day = NEW.created_at / 86400000 * 86400000 AND runs > 0;
  RETURN NULL;
END $$;
CREATE TRIGGER runs_untally_daily_usage AFTER UPDATE OF status ON runs
  FOR EACH ROW WHEN (OLD.status = 'queued' AND NEW.status NOT IN ('queued', 'running')) EXECUTE FUNCTION runs_untally_daily_usage();

CREATE FUNCTION cost_tally_daily_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO agent_daily_usage (agent_id, day, runs, cost_usd) VALUES (NEW.agent_id, NEW.created_at / 86400000 * 86400000, 0, NEW.cost_usd)
  ON CONFLICT (agent_id, day) DO UPDATE SET cost_usd = agent_daily_usage.cost_usd + excluded.cost_usd;
  RETURN NULL;
END $$;
CREATE TRIGGER cost_tally_daily_usage AFTER INSERT ON cost_ledger
  FOR EACH ROW EXECUTE FUNCTION cost_tally_daily_usage();
