-- The dashboard's charts (GET /api/office/stats and /stats/timeline) read a workspace's range by
-- when things ended: wakeups by finished_at, runs by finished_at (NULL while running).
CREATE INDEX wakeups_by_workspace_finished ON agent_wakeup_requests(workspace_id, finished_at);
CREATE INDEX runs_by_workspace_finished ON runs(workspace_id, finished_at);
