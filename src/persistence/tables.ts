/**
 * The tables as both backends store them: names, columns and how a row decodes (JSON kept as text,
 * booleans as 0/1, so a row reads the same from SQLite and PostgreSQL). One definition per table;
 * sqlite/table.ts and postgres/table.ts build their statements from it.
 */
import type { ActivityEntry, Agent, Approval, Budget, Comment, ContinuationSummary, InboxItem, Project, Run, Task, Wakeup, Workspace } from '../domain/types.js';
import type { Routine, RoutineRun, RoutineTrigger } from '../domain/routines.js';
import type { PendingDelivery } from '../domain/delivery.js';
import type { Session } from '../domain/sessions.js';
import type { ApiToken } from '../domain/governance.js';
import type { Quota } from '../domain/quotas.js';

export interface RowDecoding {
  /** JSON columns and the value a NULL decodes to. */
  json?: Record<string, unknown>;
  /** Columns kept in the store that a decoded row leaves out: no caller reads them but the one statement that needs each. */
  hidden?: readonly string[];
  /** Columns stored as 0/1. */
  bool?: readonly string[];
}

export interface TableSpec<T extends object, C extends readonly string[] = readonly string[]> {
  name: string;
  columns: C;
  decoding: RowDecoding;
  /** The column a row is read and patched by. */
  key: string;
  /** Only for the row type; never set. */
  readonly row?: T;
}

/** `T` is the row type; the column names keep their literal types, for maps keyed by column. */
function table<T extends object>() {
  return <const C extends readonly string[]>(name: string, columns: C, decoding: RowDecoding = {}, key = 'id'): TableSpec<T, C> =>
    ({ name, columns, decoding, key });
}

export type TaskRow = Omit<Task, 'blocked_by' | 'reviewers'>;
/** A run as stored: its token's hash never leaves the store. */
export type RunRow = Run & { run_token_hash?: string | null };

export const WORKSPACES = table<Workspace>()('workspaces',
  ['id', 'name', 'timezone', 'recovery_lookback_hours', 'default_executor', 'deleted_at', 'created_at', 'updated_at'],
  { json: { default_executor: null } });

export const PROJECTS = table<Project>()('projects',
  ['id', 'workspace_id', 'name', 'default_executor', 'created_at', 'updated_at'],
  { json: { default_executor: null } });

export const AGENTS = table<Agent>()('agent_instances', [
  'id', 'workspace_id', 'name', 'role', 'status', 'paused_reason', 'skip_idle_wakeups', 'max_concurrent_sessions',
  'cooldown_sec', 'last_wakeup_finished_at', 'executor', 'daily_run_cap', 'daily_cost_cap_usd',
  'max_concurrent_routine_runs', 'warnings', 'deleted_at', 'created_at', 'updated_at',
], { json: { executor: null, warnings: [] }, bool: ['skip_idle_wakeups'] });

export const TASKS = table<TaskRow>()('tasks', [
  'id', 'workspace_id', 'project_id', 'parent_id', 'title', 'description', 'state', 'assignee_agent_instance_id',
  'requires_approval', 'executor', 'workflow', 'origin', 'origin_id', 'checkout_agent_id', 'checkout_wakeup_id',
  'checkout_at', 'assigned_at', 'archived_at', 'completed_at', 'created_at', 'updated_at', 'unattended', 'on_behalf_of',
], { json: { executor: null }, bool: ['requires_approval', 'unattended'] });

export const COMMENTS = table<Comment>()('comments', ['id', 'workspace_id', 'task_id', 'author_type', 'author_id', 'body', 'created_at']);

export const APPROVALS = table<Approval>()('approvals',
  ['id', 'workspace_id', 'task_id', 'requested_by_agent_id', 'title', 'status', 'decision_note', 'created_at', 'resolved_at']);

export const BUDGETS = table<Budget>()('budgets',
  ['id', 'workspace_id', 'scope', 'scope_id', 'limit_usd', 'period', 'action_on_exceed', 'alert_threshold_pct', 'created_at']);

export const ACTIVITY = table<ActivityEntry>()('activity_log', [
  'workspace_id', 'code', 'agent_id', 'task_id', 'wakeup_id', 'run_id', 'routine_id', 'actor_type', 'actor_id',
  'unattended', 'on_behalf_of', 'message', 'details', 'created_at',
], { json: { details: {} }, bool: ['unattended'] });

export const INBOX = table<InboxItem>()('inbox_items',
  ['id', 'workspace_id', 'kind', 'title', 'body', 'agent_id', 'task_id', 'ref_id', 'status', 'created_at']);

export const WAKEUPS = table<Wakeup>()('agent_wakeup_requests', [
  'id', 'workspace_id', 'agent_id', 'source', 'reason', 'payload', 'task_id', 'status', 'cancel_reason', 'skip_reason',
  'coalesced_count', 'coalesced_into_id', 'idempotency_key', 'retry_count', 'scheduled_retry_at', 'available_at',
  'context_snapshot', 'run_id', 'routine_run_id', 'waiting_on_checkout', 'recovered', 'error', 'requested_at', 'claimed_at', 'finished_at',
  'unattended', 'on_behalf_of',
], { json: { payload: {}, context_snapshot: {} }, bool: ['recovered', 'unattended'],
  // Written by a traced request's enqueue, read by its claim (DispatchClaim): no other read or response carries it.
  hidden: ['trace_context'] });

export const RUNS = table<RunRow>()('runs', [
  'id', 'wakeup_id', 'workspace_id', 'agent_id', 'task_id', 'routine_id', 'attempt', 'status', 'executor_kind',
  'session_key', 'idempotency_key', 'context_snapshot', 'assembled_prompt', 'summary_injected', 'result_json', 'error',
  'cost_usd', 'run_token_hash', 'made_progress', 'unattended', 'on_behalf_of', 'created_at', 'started_at', 'finished_at',
  'session_pid', 'session_pgid', 'session_start_time', 'late_result_json',
  'usage', 'cost_note', 'cli_session_id', 'cli_session_totals', 'transcript_truncated',
], { json: { context_snapshot: {}, result_json: {}, late_result_json: null, usage: null, cli_session_totals: null },
  bool: ['unattended', 'made_progress', 'transcript_truncated'] });

export const SUMMARIES = table<ContinuationSummary>()('agent_continuation_summaries',
  ['agent_profile_id', 'scope', 'content', 'content_tokens', 'updated_at', 'updated_by_run_id']);

export const SESSIONS = table<Session>()('sessions', ['id', 'secret_hash', 'token_id', 'credential_hash', 'created_at', 'expires_at']);

export const ROUTINES = table<Routine>()('office_routines', [
  'id', 'workspace_id', 'name', 'description', 'assignee_agent_instance_id', 'owner_id', 'status', 'paused_reason',
  'concurrency_policy', 'catch_up_policy', 'catch_up_max', 'task_template', 'variables', 'priority', 'jitter_sec',
  'delivery', 'consecutive_failures', 'consecutive_failure_limit', 'carried_missed_ticks', 'created_at', 'updated_at',
], { json: { task_template: null, variables: [], delivery: null, carried_missed_ticks: null } });

export const ROUTINE_TRIGGERS = table<RoutineTrigger>()('office_routine_triggers', [
  'id', 'routine_id', 'kind', 'cron_expression', 'timezone', 'next_run_at', 'last_fired_at', 'public_id',
  'signing_mode', 'secret', 'enabled', 'created_at', 'updated_at',
], { bool: ['enabled'] });

export const ROUTINE_RUNS = table<RoutineRun>()('office_routine_runs', [
  'id', 'routine_id', 'trigger_id', 'source', 'status', 'skip_reason', 'trigger_payload', 'linked_task_id',
  'linked_wakeup_id', 'coalesced_into_run_id', 'dispatch_fingerprint', 'scheduled_for', 'delivery_id', 'outcome',
  'delivery_status', 'error', 'unattended', 'on_behalf_of', 'started_at', 'completed_at',
], { json: { trigger_payload: {} }, bool: ['unattended'] });

/** Routine result deliveries still to make; the claim columns stay in the store. */
export const ROUTINE_DELIVERIES = table<PendingDelivery>()('routine_deliveries', [
  'routine_run_id', 'url', 'body', 'attempts', 'next_attempt_at', 'last_error', 'created_at',
], { json: { body: {} } }, 'routine_run_id');

export const QUOTAS = table<Quota>()('agent_quotas', [
  'key', 'kind', 'exhausted_until', 'release_at', 'reason', 'exhausted_by_run_id', 'holds', 'sharing', 'warning', 'warned_at', 'updated_at',
  'announced_release_at',
], {}, 'key');

export const API_TOKENS = table<ApiToken>()('api_tokens', ['id', 'name', 'role', 'token_hash', 'created_at', 'revoked_at']);

/** A row as the driver returns it, decoded: JSON text parsed (NULL to its fallback), 0/1 to booleans. */
export function decodeRow<T>(decoding: RowDecoding, row: Record<string, unknown>): T {
  for (const [column, fallback] of Object.entries(decoding.json ?? {})) {
    const text = row[column] as string | null | undefined;
    row[column] = text === null || text === undefined || text === '' ? fallback : JSON.parse(text);
  }
  for (const column of decoding.bool ?? []) row[column] = row[column] === 1;
  for (const column of decoding.hidden ?? []) delete row[column];
  return row as T;
}

/** A row read as a JSON object beside another row (its JSON columns already parsed): fallbacks and booleans. */
export function decodeObject<T>(decoding: RowDecoding, row: Record<string, unknown>): T {
  for (const [column, fallback] of Object.entries(decoding.json ?? {})) row[column] ??= fallback;
  for (const column of decoding.bool ?? []) row[column] = row[column] === 1;
  return row as T;
}

/** Column names come from code, never from input; they are checked against the table anyway. */
export function checkedColumns(table: string, columns: ReadonlySet<string>, keys: string[]): string[] {
  for (const key of keys) {
    if (!columns.has(key)) throw new Error(`Unknown column '${key}' for table ${table}`);
  }
  return keys;
}
