/**
 * Request schemas: the one definition of what the API accepts. The HTTP layer validates with
 * them, /openapi.json is generated from them, and the dashboard validates its forms with them.
 */
import { pageQuery } from './pagination.js';
import { z } from 'zod';
import { ExecutorSpecSchema } from './executors.js';
import { CATCH_UP_POLICIES, CONCURRENCY_POLICIES } from './routines.js';
import { VariableDeclsSchema } from './templates.js';
import { AGENT_ROLES, TASK_STATES, WAKEUP_STATUSES } from './types.js';
import { WAKEUP_SOURCES } from './wakeupSources.js';
import { MAX_WAKE_DELAY_SEC } from './wakeDelay.js';
import { isValidTimeZone } from './cron.js';

export const Id = z.string().min(1).max(200);
const Name = z.string().trim().min(1).max(200);
const Text = z.string().max(100_000);
const JsonObject = z.record(z.string(), z.unknown());

export const TimeZone = z.string().max(100).refine(isValidTimeZone, { message: 'expected an IANA time zone such as Europe/London' });

/** Clamped to 1..720 on every write rather than rejected: the spec's rule for this setting. */
export const RecoveryLookbackHours = z.number().finite().transform((hours) => Math.min(720, Math.max(1, Math.round(hours))));

export const CreateWorkspaceBody = z.strictObject({
  name: Name,
  timezone: TimeZone.optional(),
  recovery_lookback_hours: RecoveryLookbackHours.optional(),
  default_executor: ExecutorSpecSchema.nullable().optional(),
});
export const PatchWorkspaceBody = CreateWorkspaceBody.partial();

export const CreateProjectBody = z.strictObject({
  workspace_id: Id,
  name: Name,
  default_executor: ExecutorSpecSchema.nullable().optional(),
});
export const PatchProjectBody = CreateProjectBody.omit({ workspace_id: true }).partial();

export const CreateAgentBody = z.strictObject({
  workspace_id: Id,
  name: Name,
  role: z.enum(AGENT_ROLES),
  executor: ExecutorSpecSchema.nullable().optional(),
  skip_idle_wakeups: z.boolean().optional(),
  max_concurrent_sessions: z.number().int().min(1).max(1000).optional(),
  cooldown_sec: z.number().int().min(0).max(86_400).optional(),
  daily_run_cap: z.number().int().min(0).max(1_000_000).nullable().optional(),
  daily_cost_cap_usd: z.number().min(0).max(1_000_000).nullable().optional(),
  max_concurrent_routine_runs: z.number().int().min(1).max(10_000).nullable().optional(),
});
export const PatchAgentBody = CreateAgentBody.omit({ workspace_id: true })
  .partial()
  .extend({ status: z.enum(['idle', 'paused', 'stopped']).optional() });

export const IdempotencyKey = z.string().min(1).max(200);

export const WakeDelaySec = z.number().min(0).max(MAX_WAKE_DELAY_SEC);

export const WakeAgentBody = z.strictObject({
  reason: z.string().max(2000).optional(),
  context: JsonObject.optional(),
  /** A repeat within the idempotency window answers with the first wakeup (also as the Idempotency-Key header). */
  idempotency_key: IdempotencyKey.optional(),
  /** A wake for later (wakeDelay.ts): seconds from now, or a time; not both. */
  delay_sec: WakeDelaySec.optional(),
  at: z.iso.datetime({ offset: true }).optional(),
});

const TaskIds = z.array(Id).max(500);

export const CreateTaskBody = z.strictObject({
  workspace_id: Id,
  title: Name.max(1000),
  description: Text.optional(),
  assignee_agent_instance_id: Id.nullable().optional(),
  parent_id: Id.nullable().optional(),
  blocked_by: TaskIds.optional(),
  requires_approval: z.boolean().optional(),
  reviewers: TaskIds.optional(),
  project_id: Id.nullable().optional(),
  executor: ExecutorSpecSchema.nullable().optional(),
});
export const PatchTaskBody = z.strictObject({
  title: Name.max(1000).optional(),
  description: Text.optional(),
  assignee_agent_instance_id: Id.nullable().optional(),
  blocked_by: TaskIds.optional(),
  reviewers: TaskIds.optional(),
  requires_approval: z.boolean().optional(),
  /** The task's own executor, over the agent's: an admin's choice (domain/access.ts). */
  executor: ExecutorSpecSchema.nullable().optional(),
});
export const MoveTaskBody = z.strictObject({ state: z.enum(TASK_STATES), note: z.string().max(10_000).optional() });
export const TaskListQuery = z.strictObject({
  workspace_id: Id.optional(),
  assignee: Id.optional(),
  state: z.enum(TASK_STATES).optional(),
  parent_id: Id.optional(),
  include_routine: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
  ...pageQuery('tasks'),
});

/** The author comes from the credential; a body may name it (and only the bootstrap admin another one: governance.ts). */
export const CreateCommentBody = z.strictObject({
  body: z.string().trim().min(1).max(100_000),
  author_type: z.enum(['user', 'agent']).optional(),
  author_id: Id.optional(),
});

export const CreateApprovalBody = z.strictObject({
  task_id: Id.nullable().optional(),
  requested_by_agent_id: Id,
  title: Name.max(1000),
});
export const ResolveApprovalBody = z.strictObject({
  status: z.enum(['approved', 'rejected']),
  decision_note: z.string().max(10_000).nullable().optional(),
});

export const CreateBudgetBody = z.strictObject({
  scope: z.enum(['workspace', 'project', 'agent']),
  scope_id: Id,
  limit_usd: z.number().finite().min(0).max(1e9),
  period: z.enum(['daily', 'monthly', 'total']),
  action_on_exceed: z.enum(['pause_agent', 'warn']),
  alert_threshold_pct: z.number().int().min(1).max(100).nullable().optional(),
});
/** What a budget's PATCH may change: its terms. Its scope is what it is a budget of. */
export const PatchBudgetBody = CreateBudgetBody.omit({ scope: true, scope_id: true }).partial();

export const WakeupListQuery = z.strictObject({
  agent_id: Id.optional(),
  status: z.enum(WAKEUP_STATUSES).optional(),
  source: z.enum(WAKEUP_SOURCES as [string, ...string[]]).optional(),
  task_id: Id.optional(),
  workspace_id: Id.optional(),
  ...pageQuery('wakeups'),
});
export const RunListQuery = z.strictObject({
  workspace_id: Id.optional(),
  agent_id: Id.optional(),
  task_id: Id.optional(),
  wakeup_id: Id.optional(),
  status: z.enum(['queued', 'running', 'succeeded', 'failed', 'interrupted', 'cancelled']).optional(),
  ...pageQuery('runs'),
});
export const ActivityQuery = z.strictObject({
  workspace_id: Id.optional(),
  code: z.string().max(100).optional(),
  wakeup_id: Id.optional(),
  agent_id: Id.optional(),
  unattended: z.enum(['true', 'false']).transform((value) => value === 'true').optional()
    .describe('`true`: only entries caused by a cron or webhook fire (and its follow-on work); `false`: only attended ones.'),
  ...pageQuery('activity'),
});
export const WorkspaceQuery = z.strictObject({ workspace_id: Id.optional() });
export const WorkspaceListQuery = z.strictObject(pageQuery('workspaces'));
export const ProjectListQuery = WorkspaceQuery.extend(pageQuery('projects'));
export const AgentListQuery = WorkspaceQuery.extend(pageQuery('agents'));
export const RoutineListQuery = WorkspaceQuery.extend(pageQuery('routines'));
export const CommentListQuery = z.strictObject(pageQuery('comments'));
export const InboxQuery = WorkspaceQuery.extend({
  status: z.enum(['open', 'resolved']).optional()
    .describe('`open`: every open item, however many resolved ones there are; `resolved`: the newest resolved ones. Absent: both.'),
});

// Routines -------------------------------------------------------------------------------------

export const CronExpression = z.string().trim().min(1).max(256);

export const ScheduleTriggerBody = z.strictObject({
  kind: z.literal('schedule'),
  cron_expression: CronExpression,
  timezone: TimeZone.optional(),
  enabled: z.boolean().optional(),
});
export const WebhookTriggerBody = z.strictObject({
  kind: z.literal('webhook'),
  signing_mode: z.enum(['none', 'bearer', 'hmac_sha256']),
  secret: z.string().min(1).max(500).optional(),
  enabled: z.boolean().optional(),
});
export const ManualTriggerBody = z.strictObject({ kind: z.literal('manual'), enabled: z.boolean().optional() });
export const TriggerBody = z.discriminatedUnion('kind', [ScheduleTriggerBody, WebhookTriggerBody, ManualTriggerBody]);
export const PatchTriggerBody = z.strictObject({
  cron_expression: CronExpression.optional(),
  timezone: TimeZone.optional(),
  enabled: z.boolean().optional(),
  signing_mode: z.enum(['none', 'bearer', 'hmac_sha256']).optional(),
  secret: z.string().min(1).max(500).optional(),
});

export const TaskTemplateBody = z.strictObject({ title: z.string().trim().min(1).max(1000), description: z.string().max(100_000).optional() });

export const CreateRoutineBody = z.strictObject({
  workspace_id: Id,
  name: Name,
  description: z.string().max(10_000).optional(),
  assignee_agent_instance_id: Id,
  owner_id: Id.optional(),
  status: z.enum(['active', 'paused']).optional(),
  concurrency_policy: z.enum(CONCURRENCY_POLICIES).optional(),
  catch_up_policy: z.enum(CATCH_UP_POLICIES).optional(),
  catch_up_max: z.number().int().min(0).max(1000).optional(),
  task_template: TaskTemplateBody.nullable().optional(),
  variables: VariableDeclsSchema.optional(),
  priority: z.number().int().min(-1000).max(1000).optional(),
  jitter_sec: z.number().int().min(0).max(3600).optional(),
  delivery: z.strictObject({ kind: z.literal('webhook'), url: z.url({ protocol: /^https?$/ }).max(4096) }).nullable().optional(),
  consecutive_failure_limit: z.number().int().min(1).max(1000).optional(),
  triggers: z.array(TriggerBody).max(20).optional(),
});
export const PatchRoutineBody = CreateRoutineBody.omit({ workspace_id: true, triggers: true })
  .partial()
  .extend({ status: z.enum(['active', 'paused', 'archived']).optional() });
export const FireRoutineBody = z.strictObject({ variables: z.record(z.string(), z.unknown()).optional() });
export const PreviewQuery = z.strictObject({ count: z.coerce.number().int().min(1).max(100).optional() });
export const RoutineRunListQuery = z.strictObject(pageQuery('routine_runs'));
