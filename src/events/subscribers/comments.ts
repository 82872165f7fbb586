import { commentKey } from '../../domain/idempotency.js';
import type { EventOf } from '../../domain/events.js';
import { enqueueAll, type SubscriberDeps } from './context.js';

/**
 * A comment wakes the task's assignee, except the assignee's own comment: an agent that
 * comments while it works must not wake itself again (a loop seen in another implementation).
 */
export function onCommentCreated(deps: SubscriberDeps) {
  return async (event: EventOf<'comment.created'>) => {
    await deps.store.transaction(async (tx) => {
      const task = await tx.tasks.get(event.payload.task_id);
      const assignee = task?.assignee_agent_instance_id;
      if (!task || !assignee) return;
      if (event.payload.author_type === 'agent' && event.payload.author_id === assignee) {
        deps.log.debug({ task_id: task.id, agent_id: assignee }, 'own comment does not wake its author');
        return;
      }
      await enqueueAll(deps, tx, [{
        agent_id: assignee,
        source: 'comment',
        reason: 'new comment',
        payload: { task_id: task.id, comment_id: event.payload.comment_id },
        idempotency_key: commentKey(event.payload.comment_id),
        provenance: event.payload.provenance,
      }]);
    });
  };
}
