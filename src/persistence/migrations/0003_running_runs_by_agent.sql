-- "Does this agent still have a session running?" after every run: one seek, not a scan of its history.
CREATE INDEX runs_running_by_agent ON runs(agent_id) WHERE status = 'running';
CREATE INDEX budgets_by_scope_id ON budgets(scope_id);
