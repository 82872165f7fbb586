/** Routine entities. Behaviour (firing, policies, catch-up) lives in the routine modules. */
import type { DeliveryStatus } from './delivery.js';
import type { VariableDecl } from './templates.js';

export const CONCURRENCY_POLICIES = ['coalesce_if_active', 'skip_if_active', 'always_enqueue'] as const;
export type ConcurrencyPolicy = (typeof CONCURRENCY_POLICIES)[number];
export const CATCH_UP_POLICIES = ['enqueue_missed_with_cap', 'skip_missed'] as const;
export type CatchUpPolicy = (typeof CATCH_UP_POLICIES)[number];

/** What each policy does, in one line for the person choosing it ("active": its last task or wakeup has not ended). */
export const CONCURRENCY_POLICY_SENTENCES: Record<ConcurrencyPolicy, string> = {
  coalesce_if_active: 'While the last fire is still active, a new fire joins it instead of adding more work.',
  skip_if_active: 'While the last fire is still active, a new fire is skipped.',
  always_enqueue: 'Every fire adds its own task or wakeup, even while an earlier one is active.',
};
export const CATCH_UP_POLICY_SENTENCES: Record<CatchUpPolicy, string> = {
  enqueue_missed_with_cap: 'After the scheduler was down, each missed time fires, oldest first, up to the catch-up max.',
  skip_missed: 'After the scheduler was down, only the latest missed time fires; the others are skipped.',
};
/** The spec's cap on replayed ticks after downtime; 0 on input means this default. */
export const DEFAULT_CATCH_UP_MAX = 25;
/** Consecutive failed runs before a routine pauses itself: a bill nobody reads is worse than a stop. */
export const DEFAULT_CONSECUTIVE_FAILURE_LIMIT = 5;

export interface TaskTemplate {
  title: string;
  description?: string | undefined;
}

export interface Routine {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  assignee_agent_instance_id: string;
  owner_id: string;
  status: 'active' | 'paused' | 'archived';
  paused_reason: string | null;
  concurrency_policy: ConcurrencyPolicy;
  catch_up_policy: CatchUpPolicy;
  catch_up_max: number;
  task_template: TaskTemplate | null;
  variables: VariableDecl[];
  priority: number;
  jitter_sec: number;
  delivery: { kind: 'webhook'; url: string } | null;
  consecutive_failures: number;
  consecutive_failure_limit: number;
  /** A skipped catch-up tick's missed-ticks note, waiting for the next fire that reaches the agent. */
  carried_missed_ticks: MissedTicks | null;
  created_at: number;
  updated_at: number;
}

/** "You missed `count` ticks since `since`": what a catch-up could not replay (epoch ms). */
export interface MissedTicks {
  count: number;
  since: number;
}

export interface RoutineTrigger {
  id: string;
  routine_id: string;
  kind: 'schedule' | 'webhook' | 'manual';
  cron_expression: string | null;
  timezone: string | null;
  next_run_at: number | null;
  last_fired_at: number | null;
  public_id: string | null;
  signing_mode: 'none' | 'bearer' | 'hmac_sha256' | null;
  secret: string | null;
  enabled: boolean;
  created_at: number;
  updated_at: number;
}

/** How a routine run's work ended; `cancelled` when its wakeup was cancelled before it could run. */
export type RoutineRunOutcome = 'succeeded' | 'failed' | 'interrupted' | 'cancelled';

export type RoutineRunStatus = 'received' | 'task_created' | 'dispatched' | 'skipped' | 'coalesced' | 'failed';

export interface RoutineRun {
  id: string;
  routine_id: string;
  trigger_id: string | null;
  source: 'cron' | 'webhook' | 'manual';
  status: RoutineRunStatus;
  skip_reason: string | null;
  trigger_payload: Record<string, unknown>;
  linked_task_id: string | null;
  linked_wakeup_id: string | null;
  coalesced_into_run_id: string | null;
  dispatch_fingerprint: string;
  scheduled_for: number | null;
  delivery_id: string | null;
  outcome: RoutineRunOutcome | null;
  /** The result delivery's state (domain/delivery.ts): `none` when the routine has no delivery. */
  delivery_status: DeliveryStatus;
  error: string | null;
  unattended: boolean;
  on_behalf_of: string | null;
  started_at: number;
  completed_at: number | null;
}
