-- The schema of SQLite's migrations 0001-0015 (src/persistence/migrations), as PostgreSQL writes it:
-- the same tables, columns, keys and indexes, so the repositories share their SQL where the
-- dialects agree and the Inspector returns the same rows on both backends.
-- Types: times are BIGINT milliseconds since the epoch (UTC); booleans stay INTEGER 0/1 and JSON
-- stays TEXT, as SQLite stores them, so that a row reads the same on both backends and the
-- repositories encode and decode it one way (the few statements that edit JSON in SQL cast to
-- jsonb); money is DOUBLE PRECISION (SQLite's REAL is 8 bytes, PostgreSQL's 4); AUTOINCREMENT ids
-- are identities. A later SQLite migration gets its PostgreSQL counterpart here, numbered on.

CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  timezone TEXT NOT NULL DEFAULT 'UTC',
  recovery_lookback_hours INTEGER NOT NULL DEFAULT 24 CHECK (recovery_lookback_hours BETWEEN 1 AND 720),
  default_executor TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  name TEXT NOT NULL,
  default_executor TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX projects_by_workspace ON projects(workspace_id);

CREATE TABLE agent_instances (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('ceo', 'coordinator', 'worker', 'specialist', 'assistant')),
  status TEXT NOT NULL DEFAULT 'idle' CHECK (status IN ('idle', 'working', 'paused', 'stopped')),
  paused_reason TEXT,
  skip_idle_wakeups INTEGER NOT NULL,
  max_concurrent_sessions INTEGER NOT NULL DEFAULT 1 CHECK (max_concurrent_sessions >= 1),
  cooldown_sec INTEGER NOT NULL DEFAULT 10 CHECK (cooldown_sec >= 0),
  last_wakeup_finished_at BIGINT,
  executor TEXT,
  daily_run_cap INTEGER,
  daily_cost_cap_usd DOUBLE PRECISION,
  max_concurrent_routine_runs INTEGER,
  warnings TEXT NOT NULL DEFAULT '[]',
  deleted_at BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX agents_by_workspace ON agent_instances(workspace_id, role);

CREATE TABLE tasks (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  project_id TEXT REFERENCES projects(id),
  parent_id TEXT REFERENCES tasks(id),
  title TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  state TEXT NOT NULL DEFAULT 'TODO'
    CHECK (state IN ('TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELLED', 'BLOCKED', 'ARCHIVED')),
  assignee_agent_instance_id TEXT REFERENCES agent_instances(id),
  requires_approval INTEGER NOT NULL DEFAULT 0,
  executor TEXT,
  workflow TEXT NOT NULL DEFAULT 'office' CHECK (workflow IN ('office', 'routine')),
  origin TEXT NOT NULL DEFAULT 'user' CHECK (origin IN ('user', 'agent', 'routine')),
  origin_id TEXT,
  checkout_agent_id TEXT,
  checkout_wakeup_id TEXT,
  checkout_at BIGINT,
  assigned_at BIGINT,
  archived_at BIGINT,
  completed_at BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX tasks_actionable ON tasks(assignee_agent_instance_id, state) WHERE archived_at IS NULL;
CREATE INDEX tasks_recovery ON tasks(state, created_at) WHERE assignee_agent_instance_id IS NOT NULL AND archived_at IS NULL;
CREATE INDEX tasks_by_parent ON tasks(parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX tasks_by_workspace ON tasks(workspace_id, state);
CREATE INDEX tasks_open_by_routine ON tasks(origin_id)
  WHERE workflow = 'routine' AND state NOT IN ('DONE', 'CANCELLED', 'ARCHIVED');

CREATE TABLE task_blockers (
  task_id TEXT NOT NULL REFERENCES tasks(id),
  blocker_task_id TEXT NOT NULL REFERENCES tasks(id),
  position INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (task_id, blocker_task_id)
);
CREATE INDEX task_blockers_by_blocker ON task_blockers(blocker_task_id);

CREATE TABLE task_reviewers (
  task_id TEXT NOT NULL REFERENCES tasks(id),
  agent_id TEXT NOT NULL REFERENCES agent_instances(id),
  position INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (task_id, agent_id)
);

CREATE TABLE comments (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  task_id TEXT NOT NULL REFERENCES tasks(id),
  author_type TEXT NOT NULL CHECK (author_type IN ('user', 'agent')),
  author_id TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX comments_by_task ON comments(task_id, created_at);

CREATE TABLE approvals (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  task_id TEXT REFERENCES tasks(id),
  requested_by_agent_id TEXT NOT NULL REFERENCES agent_instances(id),
  title TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  decision_note TEXT,
  created_at BIGINT NOT NULL,
  resolved_at BIGINT
);
CREATE INDEX approvals_by_task ON approvals(task_id, status);

CREATE TABLE budgets (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  scope TEXT NOT NULL CHECK (scope IN ('workspace', 'project', 'agent')),
  scope_id TEXT NOT NULL,
  limit_usd DOUBLE PRECISION NOT NULL CHECK (limit_usd >= 0),
  period TEXT NOT NULL CHECK (period IN ('daily', 'monthly', 'total')),
  action_on_exceed TEXT NOT NULL CHECK (action_on_exceed IN ('pause_agent', 'warn')),
  alert_threshold_pct INTEGER CHECK (alert_threshold_pct BETWEEN 1 AND 100),
  created_at BIGINT NOT NULL
);
CREATE INDEX budgets_by_scope ON budgets(scope, scope_id);
CREATE INDEX budgets_by_scope_id ON budgets(scope_id);

CREATE TABLE budget_alerts_sent (
  budget_id TEXT NOT NULL REFERENCES budgets(id),
  period_key TEXT NOT NULL,
  threshold_pct INTEGER NOT NULL,
  sent_at BIGINT NOT NULL,
  PRIMARY KEY (budget_id, period_key, threshold_pct)
);

CREATE TABLE cost_ledger (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  project_id TEXT,
  agent_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX cost_by_agent ON cost_ledger(agent_id, created_at);
CREATE INDEX cost_by_workspace ON cost_ledger(workspace_id, created_at);
CREATE INDEX cost_by_project ON cost_ledger(project_id, created_at) WHERE project_id IS NOT NULL;

CREATE TABLE activity_log (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  code TEXT NOT NULL,
  agent_id TEXT,
  task_id TEXT,
  wakeup_id TEXT,
  run_id TEXT,
  routine_id TEXT,
  actor_type TEXT NOT NULL DEFAULT 'system',
  actor_id TEXT,
  unattended INTEGER NOT NULL DEFAULT 0,
  message TEXT NOT NULL DEFAULT '',
  details TEXT NOT NULL DEFAULT '{}',
  created_at BIGINT NOT NULL
);
CREATE INDEX activity_by_workspace ON activity_log(workspace_id, id);
CREATE INDEX activity_by_code ON activity_log(workspace_id, code, id);
CREATE INDEX activity_by_wakeup ON activity_log(wakeup_id) WHERE wakeup_id IS NOT NULL;

CREATE TABLE inbox_items (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL DEFAULT '',
  agent_id TEXT,
  task_id TEXT,
  ref_id TEXT,
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  created_at BIGINT NOT NULL
);
CREATE INDEX inbox_by_workspace ON inbox_items(workspace_id, status, created_at);

CREATE TABLE agent_wakeup_requests (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  agent_id TEXT NOT NULL REFERENCES agent_instances(id),
  source TEXT NOT NULL,
  reason TEXT NOT NULL,
  payload TEXT NOT NULL DEFAULT '{}',
  task_id TEXT,
  status TEXT NOT NULL CHECK (status IN
    ('queued', 'claimed', 'coalesced', 'skipped', 'finished', 'failed', 'cancelled', 'scheduled_retry')),
  cancel_reason TEXT,
  skip_reason TEXT,
  coalesced_count INTEGER NOT NULL DEFAULT 1,
  coalesced_into_id TEXT,
  idempotency_key TEXT UNIQUE,
  retry_count INTEGER NOT NULL DEFAULT 0,
  scheduled_retry_at BIGINT,
  available_at BIGINT NOT NULL,
  context_snapshot TEXT NOT NULL DEFAULT '{}',
  run_id TEXT,
  routine_run_id TEXT,
  recovered INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  requested_at BIGINT NOT NULL,
  claimed_at BIGINT,
  finished_at BIGINT,
  waiting_on_checkout TEXT
);
CREATE INDEX wakeups_by_agent_status ON agent_wakeup_requests(agent_id, status, requested_at);
CREATE INDEX wakeups_by_task ON agent_wakeup_requests(task_id, status) WHERE task_id IS NOT NULL;
CREATE INDEX wakeups_open ON agent_wakeup_requests(status) WHERE status IN ('queued', 'claimed', 'scheduled_retry');
CREATE INDEX wakeups_by_requested ON agent_wakeup_requests(requested_at);
CREATE INDEX wakeups_waiting_on_checkout ON agent_wakeup_requests(task_id) WHERE status = 'queued' AND waiting_on_checkout IS NOT NULL;

CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  wakeup_id TEXT NOT NULL REFERENCES agent_wakeup_requests(id),
  workspace_id TEXT NOT NULL,
  agent_id TEXT NOT NULL REFERENCES agent_instances(id),
  task_id TEXT,
  routine_id TEXT,
  attempt INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'interrupted', 'cancelled')),
  executor_kind TEXT,
  session_key TEXT,
  idempotency_key TEXT UNIQUE,
  context_snapshot TEXT NOT NULL DEFAULT '{}',
  assembled_prompt TEXT NOT NULL DEFAULT '',
  summary_injected TEXT NOT NULL DEFAULT '',
  result_json TEXT NOT NULL DEFAULT '{}',
  error TEXT,
  cost_usd DOUBLE PRECISION,
  run_token_hash TEXT,
  unattended INTEGER NOT NULL DEFAULT 0,
  on_behalf_of TEXT,
  created_at BIGINT NOT NULL,
  started_at BIGINT,
  finished_at BIGINT,
  made_progress INTEGER,
  session_pid INTEGER,
  session_pgid INTEGER,
  session_start_time TEXT,
  UNIQUE (wakeup_id, attempt)
);
CREATE INDEX runs_by_agent ON runs(agent_id, created_at);
CREATE INDEX runs_active ON runs(status) WHERE status IN ('queued', 'running');
CREATE INDEX runs_by_task_agent ON runs(task_id, agent_id, created_at) WHERE task_id IS NOT NULL;
CREATE INDEX runs_by_token ON runs(run_token_hash) WHERE run_token_hash IS NOT NULL;
CREATE INDEX runs_by_agent_task_recent ON runs(agent_id, task_id, created_at) WHERE task_id IS NOT NULL;
CREATE INDEX runs_running_by_agent ON runs(agent_id) WHERE status = 'running';

CREATE TABLE office_routines (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  assignee_agent_instance_id TEXT NOT NULL REFERENCES agent_instances(id),
  owner_id TEXT NOT NULL DEFAULT 'workspace',
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'archived')),
  paused_reason TEXT,
  concurrency_policy TEXT NOT NULL DEFAULT 'coalesce_if_active'
    CHECK (concurrency_policy IN ('coalesce_if_active', 'skip_if_active', 'always_enqueue')),
  catch_up_policy TEXT NOT NULL DEFAULT 'enqueue_missed_with_cap'
    CHECK (catch_up_policy IN ('enqueue_missed_with_cap', 'skip_missed')),
  catch_up_max INTEGER NOT NULL DEFAULT 25,
  task_template TEXT,
  variables TEXT NOT NULL DEFAULT '[]',
  priority INTEGER NOT NULL DEFAULT 0,
  jitter_sec INTEGER NOT NULL DEFAULT 0,
  delivery TEXT,
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  consecutive_failure_limit INTEGER NOT NULL DEFAULT 5,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  carried_missed_ticks TEXT
);
CREATE INDEX routines_by_workspace ON office_routines(workspace_id);
CREATE INDEX routines_by_assignee ON office_routines(assignee_agent_instance_id);

CREATE TABLE office_routine_triggers (
  id TEXT PRIMARY KEY,
  routine_id TEXT NOT NULL REFERENCES office_routines(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('schedule', 'webhook', 'manual')),
  cron_expression TEXT,
  timezone TEXT,
  next_run_at BIGINT,
  last_fired_at BIGINT,
  public_id TEXT UNIQUE,
  signing_mode TEXT CHECK (signing_mode IN ('none', 'bearer', 'hmac_sha256')),
  secret TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX triggers_by_routine ON office_routine_triggers(routine_id);

CREATE TABLE office_routine_runs (
  id TEXT PRIMARY KEY,
  routine_id TEXT NOT NULL REFERENCES office_routines(id) ON DELETE CASCADE,
  trigger_id TEXT,
  source TEXT NOT NULL CHECK (source IN ('cron', 'webhook', 'manual')),
  status TEXT NOT NULL CHECK (status IN ('received', 'task_created', 'dispatched', 'skipped', 'coalesced', 'failed')),
  skip_reason TEXT,
  trigger_payload TEXT NOT NULL DEFAULT '{}',
  linked_task_id TEXT,
  linked_wakeup_id TEXT,
  coalesced_into_run_id TEXT,
  dispatch_fingerprint TEXT NOT NULL,
  scheduled_for BIGINT,
  delivery_id TEXT,
  outcome TEXT CHECK (outcome IN ('succeeded', 'failed', 'interrupted', 'cancelled')),
  delivery_status TEXT NOT NULL DEFAULT 'none' CHECK (delivery_status IN ('none', 'delivered', 'failed')),
  error TEXT,
  unattended INTEGER NOT NULL DEFAULT 1,
  on_behalf_of TEXT,
  started_at BIGINT NOT NULL,
  completed_at BIGINT,
  -- A cron tick fires once, whatever restarts or replicas do.
  UNIQUE (trigger_id, scheduled_for),
  -- A delivery id past the idempotency window is retired (suffixed '#expired:<run id>'), so it can fire again.
  UNIQUE (trigger_id, delivery_id)
);
CREATE INDEX routine_runs_by_routine ON office_routine_runs(routine_id, started_at);
CREATE INDEX routine_runs_active ON office_routine_runs(routine_id, dispatch_fingerprint) WHERE outcome IS NULL;
CREATE INDEX routine_runs_by_wakeup ON office_routine_runs(linked_wakeup_id) WHERE linked_wakeup_id IS NOT NULL;
CREATE INDEX routine_runs_by_task ON office_routine_runs(linked_task_id) WHERE linked_task_id IS NOT NULL;

CREATE TABLE office_routine_run_slots (
  scope TEXT PRIMARY KEY,
  active INTEGER NOT NULL DEFAULT 0 CHECK (active >= 0)
);

CREATE TABLE office_routine_run_slot_holders (
  routine_run_id TEXT PRIMARY KEY REFERENCES office_routine_runs(id),
  agent_id TEXT NOT NULL
);

CREATE TABLE agent_continuation_summaries (
  agent_profile_id TEXT NOT NULL,
  scope TEXT NOT NULL,
  content TEXT NOT NULL DEFAULT '',
  content_tokens INTEGER NOT NULL DEFAULT 0,
  updated_at BIGINT NOT NULL,
  updated_by_run_id TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (agent_profile_id, scope)
);

CREATE TABLE actor_snapshots (
  actor_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  snapshot TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE agent_leases (
  agent_id TEXT PRIMARY KEY REFERENCES agent_instances(id),
  owner_id TEXT NOT NULL,
  epoch INTEGER NOT NULL CHECK (epoch >= 1),
  expires_at BIGINT
);
CREATE INDEX agent_leases_by_owner ON agent_leases(owner_id);

CREATE TABLE event_outbox (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  parked_at BIGINT,
  parked_error TEXT,
  claimed_by TEXT,
  claimed_until BIGINT
);
