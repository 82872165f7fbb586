/**
 * Response schemas: what the API answers, as it goes on the wire (times are ISO-8601 UTC strings,
 * see http/serialize.ts). /openapi.json documents every route with them, each entity as a named
 * component (the `id` in `.meta`); the dashboard's types are generated from that document, and
 * the integration suite checks every response it receives against it.
 *
 * Objects are closed (`additionalProperties: false` in the document): a field the server sends
 * that is not declared here fails the integration suite instead of reaching clients undocumented.
 */
import { z } from 'zod';
import { ERROR_CODES } from './errorCodes.js';
import { ExecutorSpecSchema } from './executors.js';
import { DELIVERY_STATUSES } from './delivery.js';
import { CATCH_UP_POLICIES, CONCURRENCY_POLICIES } from './routines.js';
import { VariableDeclSchema } from './templates.js';
import { AGENT_ROLES, AGENT_STATUSES, RUN_STATUSES, TASK_STATES, WAKEUP_STATUSES } from './types.js';
import { WAKEUP_SOURCES } from './wakeupSources.js';

const Timestamp = z.iso.datetime().describe('ISO-8601 UTC');
const NullableTimestamp = Timestamp.nullable();
const JsonObject = z.record(z.string(), z.unknown());

/** The executor an entity names; the request schema serves both directions. */
if (!z.globalRegistry.has(ExecutorSpecSchema)) z.globalRegistry.add(ExecutorSpecSchema, { id: 'ExecutorSpec' });
const Executor = ExecutorSpecSchema.nullable();

export const ErrorEnvelope = z.object({
  error: z.object({
    code: z.string().describe(`A stable code to branch on: ${Object.keys(ERROR_CODES).join(', ')}.`),
    message: z.string(),
    details: z.array(z.unknown()).optional().describe('For validation_error: one entry per offending field.'),
  }),
}).meta({ id: 'Error', description: 'Every error status answers with this envelope.' });

export const WorkspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  timezone: z.string(),
  recovery_lookback_hours: z.number().int(),
  default_executor: Executor,
  created_at: Timestamp,
  updated_at: Timestamp,
}).meta({ id: 'Workspace' });

export const ProjectSchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  default_executor: Executor,
  created_at: Timestamp,
  updated_at: Timestamp,
}).meta({ id: 'Project' });

export const AgentActorSchema = z.object({
  state: z.string().describe('The live actor\'s state, e.g. `idle`, `cooldown`, `running`.'),
  queued: z.number().int(),
  running: z.number().int(),
  max_concurrent_sessions: z.number().int(),
  cooldown_until: NullableTimestamp,
  next_available_at: NullableTimestamp,
  quota_held_until: NullableTimestamp.optional().describe('While its program\'s shared quota is exhausted: when this agent may start again (the reset, the buffer and its share of the spread).'),
  replica: z.string().nullable().describe('The replica whose process runs the actor (it holds the agent\'s lease), or null while none holds it.'),
}).meta({ id: 'AgentActor', description: 'The live actor\'s view of an agent: from this process, or the owning replica\'s last stored snapshot.' });

export const AgentSchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  role: z.enum(AGENT_ROLES),
  status: z.enum(AGENT_STATUSES),
  paused_reason: z.string().nullable(),
  skip_idle_wakeups: z.boolean(),
  max_concurrent_sessions: z.number().int(),
  cooldown_sec: z.number().int(),
  last_wakeup_finished_at: NullableTimestamp,
  executor: Executor,
  daily_run_cap: z.number().int().nullable(),
  daily_cost_cap_usd: z.number().nullable(),
  max_concurrent_routine_runs: z.number().int().nullable(),
  warnings: z.array(z.string()),
  deleted_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
  actor: AgentActorSchema.nullable().describe('Null while no actor runs for the agent (stopped, or not restored yet).'),
}).meta({ id: 'Agent' });

export const TaskSchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  project_id: z.string().nullable(),
  parent_id: z.string().nullable(),
  title: z.string(),
  description: z.string(),
  state: z.enum(TASK_STATES),
  assignee_agent_instance_id: z.string().nullable(),
  requires_approval: z.boolean(),
  executor: Executor,
  workflow: z.enum(['office', 'routine']),
  origin: z.enum(['user', 'agent', 'routine']),
  origin_id: z.string().nullable(),
  checkout_agent_id: z.string().nullable(),
  checkout_wakeup_id: z.string().nullable(),
  checkout_at: NullableTimestamp,
  assigned_at: NullableTimestamp,
  archived_at: NullableTimestamp,
  completed_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
  unattended: z.boolean().describe('Made by unattended work: a cron or webhook fire, or the follow-on work of its runs.'),
  on_behalf_of: z.string().nullable().describe('The routine owner that unattended work was done for; null when attended.'),
  blocked_by: z.array(z.string()),
  reviewers: z.array(z.string()),
}).meta({ id: 'Task' });

export const CommentSchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  task_id: z.string(),
  author_type: z.enum(['user', 'agent']),
  author_id: z.string(),
  body: z.string(),
  created_at: Timestamp,
}).meta({ id: 'Comment' });

export const ApprovalSchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  task_id: z.string().nullable(),
  requested_by_agent_id: z.string(),
  title: z.string(),
  status: z.enum(['pending', 'approved', 'rejected']),
  decision_note: z.string().nullable(),
  created_at: Timestamp,
  resolved_at: NullableTimestamp,
}).meta({ id: 'Approval' });

export const BudgetSchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  scope: z.enum(['workspace', 'project', 'agent']),
  scope_id: z.string(),
  limit_usd: z.number(),
  period: z.enum(['daily', 'monthly', 'total']),
  action_on_exceed: z.enum(['pause_agent', 'warn']),
  alert_threshold_pct: z.number().int().nullable(),
  created_at: Timestamp,
}).meta({ id: 'Budget' });

export const BudgetWithSpendSchema = BudgetSchema.extend({
  spent_usd: z.number().describe('The cost that runs reported in the current period.'),
  period_started_at: NullableTimestamp.describe('When the current period began (UTC); null for a `total` budget.'),
}).meta({ id: 'BudgetWithSpend' });

export const ROUTINE_RUN_STATUSES = ['received', 'task_created', 'dispatched', 'skipped', 'coalesced', 'failed'] as const;
export const ROUTINE_RUN_OUTCOMES = ['succeeded', 'failed', 'interrupted', 'cancelled'] as const;

export const RoutineRunSchema = z.object({
  id: z.string(),
  routine_id: z.string(),
  trigger_id: z.string().nullable(),
  source: z.enum(['cron', 'webhook', 'manual']),
  status: z.enum(ROUTINE_RUN_STATUSES),
  skip_reason: z.string().nullable(),
  trigger_payload: JsonObject,
  linked_task_id: z.string().nullable(),
  linked_wakeup_id: z.string().nullable(),
  coalesced_into_run_id: z.string().nullable(),
  dispatch_fingerprint: z.string(),
  scheduled_for: NullableTimestamp.describe('The cron tick this run fires, or null.'),
  delivery_id: z.string().nullable(),
  outcome: z.enum(ROUTINE_RUN_OUTCOMES).nullable().describe('Null while the run\'s work has not ended.'),
  delivery_status: z.enum(DELIVERY_STATUSES).describe('The result delivery: `pending` while it is retried, then `delivered` or `failed` (gave up); `none` without one.'),
  error: z.string().nullable(),
  unattended: z.boolean(),
  on_behalf_of: z.string().nullable(),
  started_at: Timestamp,
  completed_at: NullableTimestamp,
}).meta({ id: 'RoutineRun' });

export const RoutineTriggerSchema = z.object({
  id: z.string(),
  routine_id: z.string(),
  kind: z.enum(['schedule', 'webhook', 'manual']),
  cron_expression: z.string().nullable(),
  timezone: z.string().nullable(),
  next_run_at: NullableTimestamp,
  last_fired_at: NullableTimestamp,
  public_id: z.string().nullable(),
  signing_mode: z.enum(['none', 'bearer', 'hmac_sha256']).nullable(),
  enabled: z.boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  url: z.string().optional().describe('Webhook triggers: the path to POST deliveries to.'),
  has_secret: z.boolean().optional().describe('Webhook triggers: whether a secret is set.'),
  secret: z.string().optional().describe('Shown once, in the response that created the trigger.'),
}).meta({ id: 'RoutineTrigger' });

const routineFields = {
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  description: z.string(),
  assignee_agent_instance_id: z.string(),
  owner_id: z.string(),
  status: z.enum(['active', 'paused', 'archived']),
  paused_reason: z.string().nullable(),
  concurrency_policy: z.enum(CONCURRENCY_POLICIES),
  catch_up_policy: z.enum(CATCH_UP_POLICIES),
  catch_up_max: z.number().int(),
  task_template: z.object({ title: z.string(), description: z.string().optional() }).nullable()
    .describe('Null for a lightweight routine, which wakes its agent without a task.'),
  variables: z.array(VariableDeclSchema),
  priority: z.number().int(),
  jitter_sec: z.number().int(),
  delivery: z.object({ kind: z.literal('webhook'), url: z.string() }).nullable(),
  consecutive_failures: z.number().int(),
  consecutive_failure_limit: z.number().int(),
  carried_missed_ticks: z.object({ count: z.number().int(), since: z.number().describe('epoch milliseconds') }).nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  triggers: z.array(RoutineTriggerSchema),
};

export const RoutineSchema = z.object({ ...routineFields, recent_runs: z.array(RoutineRunSchema).describe('Newest first.') })
  .meta({ id: 'Routine' });
export const RoutineListItemSchema = z.object({ ...routineFields, last_run: RoutineRunSchema.nullable() })
  .meta({ id: 'RoutineListItem' });

export const TriggerPreviewSchema = z.object({
  trigger_id: z.string(),
  timezone: z.string().nullable(),
  next_fire_times: z.array(Timestamp),
}).meta({ id: 'TriggerPreview' });

export const ActivityEntrySchema = z.object({
  id: z.number().int(),
  workspace_id: z.string(),
  code: z.string(),
  agent_id: z.string().nullable(),
  task_id: z.string().nullable(),
  wakeup_id: z.string().nullable(),
  run_id: z.string().nullable(),
  routine_id: z.string().nullable(),
  actor_type: z.enum(['system', 'user', 'agent', 'routine']),
  actor_id: z.string().nullable(),
  unattended: z.boolean().describe('Caused by a cron or webhook fire, or by the follow-on work of its runs.'),
  on_behalf_of: z.string().nullable().describe('The routine owner the work was done for (the firing person for a manual fire); null for attended work.'),
  message: z.string(),
  details: JsonObject,
  created_at: Timestamp,
}).meta({ id: 'ActivityEntry' });

const wakeupFields = {
  id: z.string(),
  workspace_id: z.string(),
  agent_id: z.string(),
  source: z.enum(WAKEUP_SOURCES as [string, ...string[]]),
  reason: z.string(),
  payload: JsonObject,
  task_id: z.string().nullable(),
  status: z.enum(WAKEUP_STATUSES),
  cancel_reason: z.string().nullable(),
  skip_reason: z.string().nullable(),
  coalesced_count: z.number().int(),
  coalesced_into_id: z.string().nullable(),
  idempotency_key: z.string().nullable(),
  retry_count: z.number().int(),
  scheduled_retry_at: NullableTimestamp,
  available_at: Timestamp,
  context_snapshot: JsonObject,
  run_id: z.string().nullable(),
  routine_run_id: z.string().nullable(),
  waiting_on_checkout: z.string().nullable().describe('While queued behind another run\'s checkout of its task: the wakeup that holds the task.'),
  recovered: z.boolean(),
  error: z.string().nullable(),
  requested_at: Timestamp,
  claimed_at: NullableTimestamp,
  finished_at: NullableTimestamp,
  unattended: z.boolean().describe('Caused by unattended work; its run inherits it.'),
  on_behalf_of: z.string().nullable(),
};

/** A wakeup as its wake request answers it. */
export const WakeupRecordSchema = z.object(wakeupFields).meta({ id: 'WakeupRecord' });
const explain = z.string().describe('Why the wakeup is where it is, in one sentence.');
export const WakeupSchema = z.object({ ...wakeupFields, explain }).meta({ id: 'Wakeup' });
export const WakeupDetailSchema = z.object({ ...wakeupFields, explain, activity: z.array(ActivityEntrySchema).describe('Its decisions, newest first.') })
  .meta({ id: 'WakeupDetail' });

export const WakeResponseSchema = z.object({
  wakeup: WakeupRecordSchema,
  outcome: z.enum(['queued', 'duplicate', 'coalesced', 'merged_into_run', 'refused'])
    .describe('`duplicate`: a repeat within the idempotency window, answered with the first wakeup (status 200). '
      + '`refused`: an agent\'s wake during an unattended run, at a routine-run cap (the wakeup is `skipped`, `cap_reached`).'),
}).meta({ id: 'WakeResponse' });

export const RoutineRunResponseSchema = z.object({ routine_run: RoutineRunSchema }).meta({ id: 'RoutineRunResponse' });

export const UsageSchema = z.object({
  input_tokens: z.number().int().describe('Every input token, the cached ones included.'),
  output_tokens: z.number().int(),
  cached_input_tokens: z.number().int().describe('The part of the input served from a cache.'),
}).meta({ id: 'Usage' });

export const RunSchema = z.object({
  id: z.string(),
  wakeup_id: z.string(),
  workspace_id: z.string(),
  agent_id: z.string(),
  task_id: z.string().nullable(),
  routine_id: z.string().nullable(),
  attempt: z.number().int(),
  status: z.enum(RUN_STATUSES),
  executor_kind: z.string().nullable(),
  session_key: z.string().nullable(),
  idempotency_key: z.string().nullable(),
  context_snapshot: JsonObject,
  assembled_prompt: z.string(),
  summary_injected: z.string(),
  result_json: JsonObject,
  error: z.string().nullable(),
  cost_usd: z.number().nullable().describe('The cost the session reported, or computed from its usage at the executor\'s `prices`; null says why in `cost_note`.'),
  usage: UsageSchema.nullable().optional(),
  cost_note: z.string().nullable().optional().describe('Why `cost_usd` is null, or how it was computed.'),
  cli_session_id: z.string().nullable().optional().describe('The agent program\'s own session or thread id; the next run of the agent on the task resumes it.'),
  cli_session_totals: z.object({ cost_usd: z.number().optional(), usage: UsageSchema.optional() }).nullable().optional()
    .describe('The running totals the program reported for its session by the end of this run; a run that resumes the session records the difference.'),
  transcript_truncated: z.boolean().optional().describe('The transcript keeps only the last OFFICE_TRANSCRIPT_MAX_BYTES.'),
  made_progress: z.boolean().nullable().optional(),
  session_pid: z.number().int().nullable().optional(),
  session_pgid: z.number().int().nullable().optional(),
  session_start_time: z.string().nullable().optional(),
  late_result_json: JsonObject.nullable().optional().describe(
    'A result that arrived after the replica running the session lost the agent (its finish was fenced out): kept for inspection, never the run\'s outcome. Null otherwise.'),
  unattended: z.boolean(),
  on_behalf_of: z.string().nullable(),
  created_at: Timestamp,
  started_at: NullableTimestamp,
  finished_at: NullableTimestamp,
}).meta({ id: 'Run' });

export const TranscriptEventSchema = z.object({
  seq: z.number().int(),
  at: Timestamp,
  stream: z.enum(['stdout', 'stderr']),
  type: z.string().describe('The program\'s event type (Claude Code\'s `assistant`, Codex\'s `item.completed`, …), or `line` for plain output.'),
  text: z.string().describe('The event\'s text where it has one (an assistant message, a tool call), the raw line otherwise.'),
}).meta({ id: 'TranscriptEvent' });

export const TranscriptSchema = z.object({
  run_id: z.string(),
  workspace_id: z.string(),
  agent_id: z.string(),
  events: z.array(TranscriptEventSchema),
  truncated: z.boolean().describe('The run keeps only its last OFFICE_TRANSCRIPT_MAX_BYTES; earlier events were dropped.'),
}).meta({ id: 'Transcript' });

export const QuotaSchema = z.object({
  key: z.string().describe('The executor kind and a hash of the credential and endpoint variables its sessions see (`claude_code:default` when none is set).'),
  kind: z.string(),
  exhausted_until: NullableTimestamp.describe('The reset the program named (before OFFICE_RATE_LIMIT_BUFFER_SEC); null when not exhausted.'),
  release_at: NullableTimestamp.describe('When the agents it holds start: the reset plus the buffer (each agent then its share of OFFICE_QUOTA_RELEASE_SPREAD_SEC).'),
  reason: z.string().nullable().describe('The limit message that exhausted it.'),
  agents: z.array(z.string()).describe('The agents whose executors have this key.'),
  warning: z.string().nullable().describe('What the program last said about a limit that is near (not a failure).'),
  warned_at: NullableTimestamp,
}).meta({ id: 'Quota' });

export const InboxItemSchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  kind: z.string().describe('e.g. `agent.error`, `approval`.'),
  title: z.string(),
  body: z.string(),
  agent_id: z.string().nullable(),
  task_id: z.string().nullable(),
  ref_id: z.string().nullable(),
  status: z.enum(['open', 'resolved']),
  created_at: Timestamp,
}).meta({ id: 'InboxItem' });

export const ContinuationSummarySchema = z.object({
  agent_profile_id: z.string(),
  scope: z.string(),
  content: z.string(),
  content_tokens: z.number().int(),
  updated_at: Timestamp,
  updated_by_run_id: z.string(),
}).meta({ id: 'ContinuationSummary' });

export const ReplicaSchema = z.object({
  id: z.string().describe('OFFICE_REPLICA_ID (default: host name and pid).'),
  started_at: Timestamp,
  heartbeat_at: Timestamp.describe('Its last heartbeat, which renewed its agent leases.'),
  expires_at: NullableTimestamp.describe('When its registration and leases run out unless it heartbeats again (it heartbeats three times a lease); null with SQLite, whose one process holds the database as long as it runs.'),
  agents_owned: z.number().int().describe('Agents whose unexpired lease it holds.'),
}).meta({ id: 'Replica', description: 'A live scheduler process on the database.' });

export const HealthSchema = z.object({ status: z.enum(['ok', 'ready']) }).meta({ id: 'Health' });
