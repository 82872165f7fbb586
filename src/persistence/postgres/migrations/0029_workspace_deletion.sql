-- Deleting a workspace (DELETE /api/office/workspaces/:id) keeps its row, as deleting an agent
-- keeps the agent's: its tasks, runs and activity still point at it for the record. A deleted
-- workspace leaves the lists and takes no new agent, task, project or budget.
ALTER TABLE workspaces ADD COLUMN deleted_at BIGINT;
