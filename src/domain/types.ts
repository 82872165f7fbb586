/**
 * The entities the scheduler reads and writes, as the domain sees them:
 * times are epoch milliseconds, JSON columns are parsed, flags are booleans.
 */
import type { ActivityCode } from './activityCodes.js';
import type { SessionTotals, Usage } from './agentPrograms.js';
import type { ExecutorSpec } from './executors.js';
import type { WakeupSource } from './wakeupSources.js';

export const AGENT_ROLES = ['ceo', 'coordinator', 'worker', 'specialist', 'assistant'] as const;
export type AgentRole = (typeof AGENT_ROLES)[number];

export const AGENT_STATUSES = ['idle', 'working', 'paused', 'stopped'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

export const TASK_STATES = ['TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELLED', 'BLOCKED', 'ARCHIVED'] as const;
export type TaskState = (typeof TASK_STATES)[number];

export const TERMINAL_TASK_STATES: readonly TaskState[] = ['DONE', 'CANCELLED', 'ARCHIVED'];
/** A blocker stops blocking once it reaches one of these (the spec's kanban rule: "Done or Cancelled"). */
export const RESOLVED_BLOCKER_STATES: readonly TaskState[] = ['DONE', 'CANCELLED'];
/** The states that count as work for the idle-skip check; review-gated work waits on a person. */
export const ACTIONABLE_TASK_STATES: readonly TaskState[] = ['TODO', 'IN_PROGRESS'];

export const WAKEUP_STATUSES = [
  'queued',
  'claimed',
  'coalesced',
  'skipped',
  'finished',
  'failed',
  'cancelled',
  'scheduled_retry',
] as const;
export type WakeupStatus = (typeof WAKEUP_STATUSES)[number];
export const OPEN_WAKEUP_STATUSES: readonly WakeupStatus[] = ['queued', 'claimed', 'scheduled_retry'];

export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'interrupted', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const OPEN_RUN_STATUSES: readonly RunStatus[] = ['queued', 'running'];

export interface Workspace {
  id: string;
  name: string;
  timezone: string;
  recovery_lookback_hours: number;
  default_executor: ExecutorSpec | null;
  /** Set when the workspace is deleted; the row stays for its history (DELETE /workspaces/:id). */
  deleted_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface Project {
  id: string;
  workspace_id: string;
  name: string;
  default_executor: ExecutorSpec | null;
  created_at: number;
  updated_at: number;
}

export interface Agent {
  id: string;
  workspace_id: string;
  name: string;
  role: AgentRole;
  status: AgentStatus;
  paused_reason: string | null;
  skip_idle_wakeups: boolean;
  max_concurrent_sessions: number;
  cooldown_sec: number;
  last_wakeup_finished_at: number | null;
  executor: ExecutorSpec | null;
  daily_run_cap: number | null;
  daily_cost_cap_usd: number | null;
  max_concurrent_routine_runs: number | null;
  warnings: string[];
  deleted_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface Task {
  id: string;
  workspace_id: string;
  project_id: string | null;
  parent_id: string | null;
  title: string;
  description: string;
  state: TaskState;
  assignee_agent_instance_id: string | null;
  requires_approval: boolean;
  executor: ExecutorSpec | null;
  workflow: 'office' | 'routine';
  origin: 'user' | 'agent' | 'routine';
  origin_id: string | null;
  checkout_agent_id: string | null;
  checkout_wakeup_id: string | null;
  checkout_at: number | null;
  /** When the current assignee was set (null while unassigned). */
  assigned_at: number | null;
  archived_at: number | null;
  completed_at: number | null;
  created_at: number;
  updated_at: number;
  /** Made by unattended work (a cron or webhook fire, or what its runs did): see Provenance. */
  unattended: boolean;
  on_behalf_of: string | null;
  blocked_by: string[];
  reviewers: string[];
}

export interface Comment {
  id: string;
  workspace_id: string;
  task_id: string;
  author_type: 'user' | 'agent';
  author_id: string;
  body: string;
  created_at: number;
}

export interface Approval {
  id: string;
  workspace_id: string;
  task_id: string | null;
  requested_by_agent_id: string;
  title: string;
  status: 'pending' | 'approved' | 'rejected';
  decision_note: string | null;
  created_at: number;
  resolved_at: number | null;
}

export interface Budget {
  id: string;
  workspace_id: string;
  scope: 'workspace' | 'project' | 'agent';
  scope_id: string;
  limit_usd: number;
  period: 'daily' | 'monthly' | 'total';
  action_on_exceed: 'pause_agent' | 'warn';
  alert_threshold_pct: number | null;
  created_at: number;
}

export interface Wakeup {
  id: string;
  workspace_id: string;
  agent_id: string;
  source: WakeupSource;
  reason: string;
  payload: Record<string, unknown>;
  task_id: string | null;
  status: WakeupStatus;
  cancel_reason: string | null;
  skip_reason: string | null;
  coalesced_count: number;
  coalesced_into_id: string | null;
  idempotency_key: string | null;
  retry_count: number;
  scheduled_retry_at: number | null;
  available_at: number;
  context_snapshot: Record<string, unknown>;
  run_id: string | null;
  routine_run_id: string | null;
  /** While queued behind another run's checkout of its task: the wakeup that held the task. */
  waiting_on_checkout: string | null;
  recovered: boolean;
  error: string | null;
  requested_at: number;
  claimed_at: number | null;
  finished_at: number | null;
  /** Caused by unattended work, and on whose behalf: its run inherits them (see Provenance). */
  unattended: boolean;
  on_behalf_of: string | null;
  /**
   * The W3C traceparent of its enqueue span, with tracing on: the claim, the run and the finish
   * continue that trace, on whichever replica. Absent or null with tracing off (never written then).
   */
  trace_context?: string | null;
}

export interface Run {
  id: string;
  wakeup_id: string;
  workspace_id: string;
  agent_id: string;
  task_id: string | null;
  routine_id: string | null;
  attempt: number;
  status: RunStatus;
  executor_kind: string | null;
  session_key: string | null;
  idempotency_key: string | null;
  context_snapshot: Record<string, unknown>;
  assembled_prompt: string;
  summary_injected: string;
  result_json: Record<string, unknown>;
  error: string | null;
  cost_usd: number | null;
  /** Token counts of this run's session (API.md, "What a run records"); null when it reported none. */
  usage?: Usage | null;
  /** Why cost_usd is null, or how it was computed from the usage. */
  cost_note?: string | null;
  /** The agent program's own session or thread id, which the next run on the task resumes. */
  cli_session_id?: string | null;
  /** The session's running totals as the program reported them, which a resumed run subtracts. */
  cli_session_totals?: SessionTotals | null;
  /** The transcript kept only its last OFFICE_TRANSCRIPT_MAX_BYTES. */
  transcript_truncated?: boolean;
  made_progress?: boolean | null;
  /** The command session's process: pid, process group and start time (see migration 0004). */
  session_pid?: number | null;
  session_pgid?: number | null;
  session_start_time?: string | null;
  /** A result fenced out after its owner lost the agent: the ending it brought, and its owner and epoch (migration 0016). */
  late_result_json?: Record<string, unknown> | null;
  unattended: boolean;
  on_behalf_of: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export interface ActivityEntry {
  id: number;
  workspace_id: string;
  code: string;
  agent_id: string | null;
  task_id: string | null;
  wakeup_id: string | null;
  run_id: string | null;
  routine_id: string | null;
  actor_type: 'system' | 'user' | 'agent' | 'routine';
  actor_id: string | null;
  unattended: boolean;
  /** The routine owner the entry's work was done for (API.md, "Audit"); null for attended work. */
  on_behalf_of: string | null;
  message: string;
  details: Record<string, unknown>;
  created_at: number;
}

/** An entry to write: its code is one of the catalogue's (activityCodes.ts); entries read back may carry older ones. */
export type NewActivity = Omit<ActivityEntry, 'id' | 'created_at' | 'unattended' | 'on_behalf_of' | 'actor_type' | 'actor_id' | 'details' | 'message' | 'agent_id' | 'task_id' | 'wakeup_id' | 'run_id' | 'routine_id' | 'code'> &
  { code: ActivityCode } & Partial<Pick<ActivityEntry, 'unattended' | 'on_behalf_of' | 'actor_type' | 'actor_id' | 'details' | 'message' | 'agent_id' | 'task_id' | 'wakeup_id' | 'run_id' | 'routine_id'>>;

export interface InboxItem {
  id: string;
  workspace_id: string;
  kind: string;
  title: string;
  body: string;
  agent_id: string | null;
  task_id: string | null;
  ref_id: string | null;
  status: 'open' | 'resolved';
  created_at: number;
}

export interface ContinuationSummary {
  agent_profile_id: string;
  scope: string;
  content: string;
  content_tokens: number;
  updated_at: number;
  updated_by_run_id: string;
}
