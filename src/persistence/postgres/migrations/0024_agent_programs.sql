-- Agent programs (API.md, "Agent CLIs"): what a run records of its session, what it printed, and
-- the quotas that several agents on one credential share.

-- usage: {input_tokens, output_tokens, cached_input_tokens} as JSON; cost_note: why cost_usd is
-- null, or how it was computed; cli_session_id: the program's own session or thread id, which the
-- next run on the task resumes; cli_session_totals: the running totals the program reported for
-- that session, which the resumed run subtracts.
ALTER TABLE runs ADD COLUMN usage TEXT;
ALTER TABLE runs ADD COLUMN cost_note TEXT;
ALTER TABLE runs ADD COLUMN cli_session_id TEXT;
ALTER TABLE runs ADD COLUMN cli_session_totals TEXT;
ALTER TABLE runs ADD COLUMN transcript_truncated INTEGER NOT NULL DEFAULT 0;

-- What a session printed, parsed into events, in order; at most OFFICE_TRANSCRIPT_MAX_BYTES of
-- `bytes` per run, the oldest dropped first.
CREATE TABLE run_transcript_events (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  at BIGINT NOT NULL,
  stream TEXT NOT NULL CHECK (stream IN ('stdout', 'stderr')),
  type TEXT NOT NULL,
  text TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
);

-- A quota shared by the agents whose executors have the same key (kind and credential). While
-- release_at is ahead, no session is launched for them: exhausted_until is the reset the program
-- named, release_at that reset plus OFFICE_RATE_LIMIT_BUFFER_SEC. Each agent held gets a slot
-- (holds counts them) that spreads the starts after the reset over OFFICE_QUOTA_RELEASE_SPREAD_SEC,
-- in `sharing` steps: the agents that shared the key when it was exhausted.
CREATE TABLE agent_quotas (
  key TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  exhausted_until BIGINT,
  release_at BIGINT,
  reason TEXT,
  exhausted_by_run_id TEXT,
  holds INTEGER NOT NULL DEFAULT 0,
  sharing INTEGER NOT NULL DEFAULT 1,
  warning TEXT,
  warned_at BIGINT,
  updated_at BIGINT NOT NULL
);
CREATE INDEX agent_quotas_by_release ON agent_quotas(release_at) WHERE release_at IS NOT NULL;
