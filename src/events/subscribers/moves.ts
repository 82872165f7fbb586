import { blockersResolvedKey, childrenCompletedKey, commentKey, taskAssignedKey } from '../../domain/idempotency.js';
import { RESOLVED_BLOCKER_STATES, TERMINAL_TASK_STATES, type Task } from '../../domain/types.js';
import type { Tx } from '../../persistence/store.js';
import type { EnqueueRequest } from '../../services/wakeups.js';
import type { EventOf } from '../../domain/events.js';
import { enqueueAll, type SubscriberDeps } from './context.js';

/**
 * The kanban rules for `task.moved`, for tasks with an assigned agent:
 * - into IN_PROGRESS: the assignee gets task_assigned;
 * - IN_REVIEW back to IN_PROGRESS: the assignee gets a comment wakeup with the rejection;
 * - into DONE or CANCELLED: blockers and parents resolve (task_blockers_resolved, task_children_completed);
 * - into IN_REVIEW: the reviewers are woken.
 */
export function onTaskMoved(deps: SubscriberDeps) {
  return async (event: EventOf<'task.moved'>) => {
    await deps.store.transaction(async (tx) => {
      const task = await tx.tasks.get(event.payload.task_id);
      if (!task) return;
      const requests = [
        ...(await wakesForAssignee(deps, tx, task, event)),
        ...(await wakesForDependents(tx, task, event)),
        ...(await wakesForParent(tx, task, event)),
        ...wakesForReviewers(task, event),
      ];
      // Every wake a move leads to is the move's follow-on work: done for whomever the move was.
      await enqueueAll(deps, tx, requests.map((request) => ({ ...request, provenance: event.payload.provenance })));
    });
  };
}

async function wakesForAssignee(deps: SubscriberDeps, tx: Tx, task: Task, event: EventOf<'task.moved'>): Promise<EnqueueRequest[]> {
  const assignee = task.assignee_agent_instance_id;
  if (!assignee || event.payload.to !== 'IN_PROGRESS') return [];
  if (event.payload.from !== 'IN_REVIEW') {
    return [{ agent_id: assignee, source: 'task_assigned', reason: 'moved to In Progress', payload: { task_id: task.id }, idempotency_key: taskAssignedKey(task.id, event.at, event.id) }];
  }
  const note = event.payload.note ?? 'Sent back from review.';
  // Named by the event, so a replayed event finds the same comment and the same idempotency key.
  const commentId = `cmt_rejection_${event.id}`;
  if (await tx.comments.get(commentId)) return [];
  // The rejection becomes a comment on the task, so the agent (and people) can read it later too.
  await tx.comments.insert({ id: commentId, workspace_id: task.workspace_id, task_id: task.id, author_type: 'user', author_id: event.payload.by.id ?? 'reviewer', body: `Rejected: ${note}`, created_at: deps.clock.now() });
  return [{
    agent_id: assignee, source: 'comment', reason: 'sent back from review',
    payload: { task_id: task.id, comment_id: commentId, rejection: true, note },
    idempotency_key: commentKey(commentId),
  }];
}

async function wakesForDependents(tx: Tx, task: Task, event: EventOf<'task.moved'>): Promise<EnqueueRequest[]> {
  // DONE to CANCELLED (or back) resolves nothing new: the dependents heard the first time.
  if (!RESOLVED_BLOCKER_STATES.includes(event.payload.to) || RESOLVED_BLOCKER_STATES.includes(event.payload.from)) return [];
  const requests: EnqueueRequest[] = [];
  for (const dependent of await tx.tasks.dependentsOf(task.id)) {
    if (!dependent.assignee_agent_instance_id || TERMINAL_TASK_STATES.includes(dependent.state)) continue;
    if ((await tx.tasks.openBlockers(dependent.id)).length > 0) continue;
    requests.push({
      agent_id: dependent.assignee_agent_instance_id, source: 'task_blockers_resolved', reason: 'blockers resolved',
      payload: { task_id: dependent.id, resolved_blocker_ids: dependent.blocked_by },
      idempotency_key: blockersResolvedKey(dependent.id, await lastToFinish(tx, dependent.blocked_by, task)),
    });
  }
  return requests;
}

/**
 * The blocker that finished last. Blockers finishing together each see none open, so the key must
 * name the same one from every event, not the blocker whose event this is.
 */
async function lastToFinish(tx: Tx, blockerIds: string[], fallback: Task): Promise<string> {
  let last = fallback;
  for (const id of blockerIds) {
    const blocker = await tx.tasks.get(id);
    if (blocker && (blocker.completed_at ?? 0) > (last.completed_at ?? 0)) last = blocker;
    else if (blocker && blocker.completed_at === last.completed_at && blocker.id > last.id) last = blocker;
  }
  return last.id;
}

/** One wakeup, when the last child of a parent reaches a terminal state. */
async function wakesForParent(tx: Tx, task: Task, event: EventOf<'task.moved'>): Promise<EnqueueRequest[]> {
  if (!task.parent_id || !TERMINAL_TASK_STATES.includes(event.payload.to) || TERMINAL_TASK_STATES.includes(event.payload.from)) return [];
  const parent = await tx.tasks.get(task.parent_id);
  if (!parent?.assignee_agent_instance_id || TERMINAL_TASK_STATES.includes(parent.state)) return [];
  const children = await tx.tasks.children(parent.id);
  if (!children.every((child) => TERMINAL_TASK_STATES.includes(child.state))) return [];
  // Keyed by when the last child got there, not by this event: children finishing together each see
  // all of them terminal, and must land on the same wakeup.
  const completedAt = Math.max(...children.map((child) => Math.max(child.completed_at ?? 0, child.archived_at ?? 0) || child.updated_at));
  return [{
    agent_id: parent.assignee_agent_instance_id, source: 'task_children_completed', reason: 'all subtasks finished',
    payload: { task_id: parent.id }, idempotency_key: childrenCompletedKey(parent.id, completedAt),
  }];
}

function wakesForReviewers(task: Task, event: EventOf<'task.moved'>): EnqueueRequest[] {
  if (event.payload.to !== 'IN_REVIEW' || !task.assignee_agent_instance_id) return [];
  return task.reviewers.map((reviewer) => ({
    agent_id: reviewer, source: 'task_assigned' as const, reason: 'review requested',
    payload: { task_id: task.id, as: 'reviewer' }, idempotency_key: `review:${task.id}:${reviewer}:${event.id}`,
  }));
}
