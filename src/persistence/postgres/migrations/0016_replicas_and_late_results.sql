-- Replicas: each scheduler process on the database registers under its replica id and renews its
-- heartbeat together with its agent leases, in one statement. A replica whose expires_at has passed
-- is dead to the others: its leases expired with it, and the survivors take its agents.
CREATE TABLE replicas (
  id TEXT PRIMARY KEY,
  started_at BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL,
  expires_at BIGINT
);

-- A run's result that arrived after its owner lost the agent (the fenced close refused it): kept
-- for inspection, never made the run's outcome.
ALTER TABLE runs ADD COLUMN late_result_json TEXT;
