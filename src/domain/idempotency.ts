/**
 * Idempotency-key formats. Each is one builder and one parser around a single prefix,
 * so the code that writes a key and the code that reads it cannot drift apart.
 */

export const KEY_PREFIX = {
  cron: 'routine',
  comment: 'comment',
  taskAssigned: 'task_assigned',
  blockersResolved: 'task_blockers_resolved',
  childrenCompleted: 'task_children_completed',
  approvalResolved: 'approval_resolved',
  agentError: 'agent_error',
  budgetAlert: 'budget_alert',
  recovery: 'recovery',
  selfWake: 'self',
  userWakeRequest: 'user',
  selfWakeRequest: 'self_request',
  webhookDelivery: 'webhook',
} as const;

/** Seconds, not the spec's minutes: a cron with a seconds field fires several ticks a minute. */
export function cronKey(routineId: string, triggerId: string, scheduledForMs: number): string {
  return `${KEY_PREFIX.cron}:${routineId}:${triggerId}:${Math.floor(scheduledForMs / 1000)}`;
}

export function parseCronKey(key: string): { routineId: string; triggerId: string; scheduledForSec: number } | null {
  const parts = key.split(':');
  if (parts.length !== 4 || parts[0] !== KEY_PREFIX.cron) return null;
  const seconds = Number(parts[3]);
  if (!Number.isInteger(seconds)) return null;
  return { routineId: parts[1]!, triggerId: parts[2]!, scheduledForSec: seconds };
}

export const commentKey = (commentId: string) => `${KEY_PREFIX.comment}:${commentId}`;

/**
 * The spec's `task_assigned:<task_id>:<timestamp>`, plus the event id: two assignments of one task
 * in the same millisecond (created for A, reassigned to B) must not share a key, and the event id
 * is as stable across an outbox replay as the timestamp. An assignment handled in its own
 * transaction has no outbox row, and is never replayed: a fresh id does.
 */
export const taskAssignedKey = (taskId: string, assignedAtMs: number, eventId: number | string) =>
  `${KEY_PREFIX.taskAssigned}:${taskId}:${assignedAtMs}:${eventId}`;

export const blockersResolvedKey = (taskId: string, resolvedByTaskId: string) =>
  `${KEY_PREFIX.blockersResolved}:${taskId}:${resolvedByTaskId}`;

export const childrenCompletedKey = (parentTaskId: string, completedAtMs: number) =>
  `${KEY_PREFIX.childrenCompleted}:${parentTaskId}:${completedAtMs}`;

export const approvalResolvedKey = (approvalId: string) => `${KEY_PREFIX.approvalResolved}:${approvalId}`;

export const agentErrorKey = (wakeupId: string) => `${KEY_PREFIX.agentError}:${wakeupId}`;

export const budgetAlertKey = (budgetId: string, periodKey: string, thresholdPct: number) =>
  `${KEY_PREFIX.budgetAlert}:${budgetId}:${periodKey}:${thresholdPct}`;

export const selfWakeKey = (runId: string, index: number) => `${KEY_PREFIX.selfWake}:${runId}:${index}`;

/**
 * A key a client chose for POST /agents/:id/wake. It is namespaced by who asked and for which agent,
 * so a client's key can never match one the scheduler makes (`task_assigned:…`), nor another agent's.
 */
export const clientWakeKey = (requester: 'user' | 'self', agentId: string, key: string) =>
  `${requester === 'user' ? KEY_PREFIX.userWakeRequest : KEY_PREFIX.selfWakeRequest}:${agentId}:${key}`;

export const webhookDeliveryKey = (triggerId: string, deliveryId: string) =>
  `${KEY_PREFIX.webhookDelivery}:${triggerId}:${deliveryId}`;

/** The task's own last change keys a recovery, so concurrent sweeps land on one wakeup. */
export const recoveryKey = (taskId: string, taskUpdatedAtMs: number) => `${KEY_PREFIX.recovery}:${taskId}:${taskUpdatedAtMs}`;
