-- Indexes that every wakeup writes, some more than once, for readers that another index serves
-- as well or better. The bench's page profile (`npm run bench -- --sql`) counts what each costs.

-- Two indexes on runs that another one already serves: runs_running_by_agent (agent_id, running
-- only) is covered by runs_open_by_agent (agent_id, queued or running), which the triggers' "any open
-- run" check reads; runs_by_agent_task_recent (agent_id, task_id, created_at) holds the columns of
-- runs_by_task_agent (task_id, agent_id, created_at) in another order, and every query that reads
-- it names both.
DROP INDEX IF EXISTS runs_running_by_agent;
DROP INDEX IF EXISTS runs_by_agent_task_recent;

-- Wakeups by (workspace, finished_at) served the stats' wakeup series, which reads
-- wakeup_outcome_counts now. Each wakeup wrote it twice, the second time far from the first when the
-- queue is deep (its NULL entry sat among the queued ones). A workspace's list of wakeups, newest
-- first, sorted the whole workspace by it; by (workspace, requested_at, id) a page is a seek, and
-- the entry is written once, at the insert.
DROP INDEX IF EXISTS wakeups_by_workspace_finished;
CREATE INDEX wakeups_by_workspace ON agent_wakeup_requests(workspace_id, requested_at, id);
