-- A workspace's runs by when they ended, for the stats' run spans, holds ended runs only. Every run
-- was entered with a NULL finished_at at its insert and moved at its close: two writes, the second
-- far from the first (0.52 WAL pages per wakeup in the bench's P2). Now it is written once, at the
-- close. The spans of runs still going are read from runs_active (queued or running), which holds
-- few rows (StatsSql names its condition, as SQLite requires of a partial index).
DROP INDEX IF EXISTS runs_by_workspace_finished;
CREATE INDEX runs_by_workspace_finished ON runs(workspace_id, finished_at) WHERE finished_at IS NOT NULL;
