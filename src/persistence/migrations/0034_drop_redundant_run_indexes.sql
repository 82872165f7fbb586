-- Two indexes on runs that another one already serves, written by every run's insert and status
-- change for no reader: runs_running_by_agent (agent_id, running only) is covered by
-- runs_open_by_agent (agent_id, queued or running), which the triggers' "any open run" check reads;
-- runs_by_agent_task_recent (agent_id, task_id, created_at) holds the columns of runs_by_task_agent
-- (task_id, agent_id, created_at) in another order, and every query that reads it names both.
DROP INDEX IF EXISTS runs_running_by_agent;
DROP INDEX IF EXISTS runs_by_agent_task_recent;
