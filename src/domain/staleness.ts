import { TERMINAL_TASK_STATES, type Task } from './types.js';

export const STALE_REASONS = ['task_not_found', 'assignee_changed', 'task_terminal', 'review_participant_changed'] as const;
export type StaleReason = (typeof STALE_REASONS)[number];
export type RetryCancelReason = 'retry_stale_assignee' | 'retry_task_cancelled';

export interface WakeupScope {
  agent_id: string;
  payload: Record<string, unknown>;
}

/** A reviewer's wakeup is about the review, not the assignment, so it answers to the reviewer list. */
export function isReviewWakeup(wakeup: WakeupScope): boolean {
  return wakeup.payload.as === 'reviewer';
}

/**
 * Is the task this wakeup is about still the agent's to act on? Checked before the claim
 * proceeds; a stale wakeup is cancelled, never retried.
 */
export function stalenessOf(wakeup: WakeupScope, task: Task | undefined): StaleReason | null {
  if (!task) return 'task_not_found';
  if (TERMINAL_TASK_STATES.includes(task.state) || task.archived_at !== null) return 'task_terminal';
  if (isReviewWakeup(wakeup)) {
    return task.reviewers.includes(wakeup.agent_id) ? null : 'review_participant_changed';
  }
  return task.assignee_agent_instance_id === wakeup.agent_id ? null : 'assignee_changed';
}

/** At retry promotion: a retry for a task that moved on is cancelled rather than re-run. */
export function retryCancellationOf(wakeup: WakeupScope, task: Task | undefined): RetryCancelReason | null {
  if (!task) return null;
  if (task.state === 'CANCELLED') return 'retry_task_cancelled';
  if (!isReviewWakeup(wakeup) && task.assignee_agent_instance_id !== wakeup.agent_id) return 'retry_stale_assignee';
  return null;
}
