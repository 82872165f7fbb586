import { taskAssignedKey } from '../../domain/idempotency.js';
import { NO_OUTBOX_ROW, type EventOf } from '../../domain/events.js';
import { newId } from '../../services/ids.js';
import type { Tx } from '../../persistence/store.js';
import { enqueueAll, type SubscriberDeps } from './context.js';

/**
 * Setting or changing a task's assignee wakes the new assignee: the spec's first scenario. It runs
 * in the assignment's own transaction (EventBus.within), so the wakeup commits with the assignment.
 */
export function onTaskAssigned(deps: SubscriberDeps) {
  return async (tx: Tx, event: EventOf<'task.assigned'>) => {
    const agentId = event.payload.agent_id;
    if (!agentId) return;
    // The agent may have been deleted since: a replayed assignment is then skipped, not an error.
    await enqueueAll(deps, tx, [{
      agent_id: agentId,
      source: 'task_assigned',
      reason: event.payload.previous_agent_id ? 'task reassigned' : 'task assigned',
      payload: { task_id: event.payload.task_id },
      // An event handled in its own transaction is never replayed, so it needs no outbox row to be stable on.
      idempotency_key: taskAssignedKey(event.payload.task_id, event.at, event.id === NO_OUTBOX_ROW ? newId('evt') : event.id),
      provenance: event.payload.provenance,
    }]);
  };
}
