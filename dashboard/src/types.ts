/** The API's shapes as the dashboard reads them (see ../shared/API.md). Times are ISO strings. */
export interface Workspace {
  id: string;
  name: string;
  timezone: string;
  recovery_lookback_hours: number;
}

export interface ActorView {
  state: string;
  queued: number;
  running: number;
  max_concurrent_sessions: number;
  cooldown_until: string | null;
  next_available_at: string | null;
}

export interface Agent {
  id: string;
  workspace_id: string;
  name: string;
  role: string;
  status: 'idle' | 'working' | 'paused' | 'stopped';
  paused_reason: string | null;
  max_concurrent_sessions: number;
  cooldown_sec: number;
  skip_idle_wakeups: boolean;
  warnings: string[];
  actor: ActorView | null;
}

export interface VariableDecl {
  name: string;
  type: 'text' | 'number' | 'boolean' | 'select';
  default?: string | number | boolean | null;
  required?: boolean;
  options?: string[];
  description?: string;
}

export interface Trigger {
  id: string;
  kind: 'schedule' | 'webhook' | 'manual';
  cron_expression: string | null;
  timezone: string | null;
  next_run_at: string | null;
  last_fired_at: string | null;
  public_id: string | null;
  signing_mode: string | null;
  enabled: boolean;
  url?: string;
  secret?: string;
}

export interface RoutineRun {
  id: string;
  routine_id: string;
  source: 'cron' | 'webhook' | 'manual';
  status: string;
  skip_reason: string | null;
  trigger_payload: Record<string, unknown>;
  linked_task_id: string | null;
  linked_wakeup_id: string | null;
  outcome: string | null;
  error: string | null;
  scheduled_for: string | null;
  started_at: string;
  completed_at: string | null;
}

export interface Routine {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  assignee_agent_instance_id: string;
  status: 'active' | 'paused' | 'archived';
  paused_reason: string | null;
  concurrency_policy: string;
  catch_up_policy: string;
  catch_up_max: number;
  task_template: { title: string; description?: string } | null;
  variables: VariableDecl[];
  triggers: Trigger[];
  last_run?: RoutineRun | null;
  recent_runs?: RoutineRun[];
}

export interface Wakeup {
  id: string;
  workspace_id: string;
  agent_id: string;
  source: string;
  reason: string;
  status: string;
  cancel_reason: string | null;
  skip_reason: string | null;
  coalesced_count: number;
  retry_count: number;
  scheduled_retry_at: string | null;
  task_id: string | null;
  run_id: string | null;
  routine_run_id: string | null;
  recovered: boolean;
  error: string | null;
  requested_at: string;
  claimed_at: string | null;
  finished_at: string | null;
  explain: string;
}

export interface Run {
  id: string;
  wakeup_id: string;
  workspace_id: string;
  agent_id: string;
  task_id: string | null;
  routine_id: string | null;
  attempt: number;
  status: string;
  executor_kind: string | null;
  assembled_prompt: string;
  summary_injected: string;
  result_json: Record<string, unknown>;
  context_snapshot: Record<string, unknown>;
  error: string | null;
  cost_usd: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface Task {
  id: string;
  workspace_id: string;
  title: string;
  description: string;
  state: string;
  assignee_agent_instance_id: string | null;
  origin: string;
  origin_id: string | null;
  created_at: string;
  updated_at: string;
}

export type FeedItem =
  | { kind: 'actor'; agent_id: string; view: ActorView }
  | { kind: 'wakeup'; wakeup_id: string; agent_id: string; status: string }
  | { kind: 'run'; run_id: string; agent_id: string; status: string }
  | { kind: 'routine'; routine_id: string };
