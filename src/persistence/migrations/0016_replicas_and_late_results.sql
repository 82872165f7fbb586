-- Replicas: each scheduler process on the database registers under its replica id and renews its
-- heartbeat with its agent leases (PostgreSQL). expires_at NULL: the replica lives as long as its
-- process holds the database (SQLite, where one process owns everything and never heartbeats).
CREATE TABLE replicas (
  id TEXT PRIMARY KEY,
  started_at INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  expires_at INTEGER
);

-- A run's result that arrived after its owner lost the agent (the fenced close refused it): kept
-- for inspection, never made the run's outcome.
ALTER TABLE runs ADD COLUMN late_result_json TEXT;
