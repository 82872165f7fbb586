import { taskAssignedKey } from '../../domain/idempotency.js';
import type { EventOf } from '../../domain/events.js';
import { enqueueAll, type SubscriberDeps } from './context.js';

/** Setting or changing a task's assignee wakes the new assignee: the spec's first scenario. */
export function onTaskAssigned(deps: SubscriberDeps) {
  return async (event: EventOf<'task.assigned'>) => {
    const agentId = event.payload.agent_id;
    if (!agentId) return;
    // The agent may have been deleted since: a replayed assignment is then skipped, not an error.
    await deps.store.transaction((tx) => enqueueAll(deps, tx, [{
      agent_id: agentId,
      source: 'task_assigned',
      reason: event.payload.previous_agent_id ? 'task reassigned' : 'task assigned',
      payload: { task_id: event.payload.task_id },
      idempotency_key: taskAssignedKey(event.payload.task_id, event.at, event.id),
    }]));
  };
}
