-- Whether a run changed anything (task state, a comment, an action): the loop detector's input.
ALTER TABLE runs ADD COLUMN made_progress INTEGER;
CREATE INDEX runs_by_agent_task_recent ON runs(agent_id, task_id, created_at) WHERE task_id IS NOT NULL;
