import { approvalResolvedKey } from '../../domain/idempotency.js';
import type { EventOf } from '../../domain/events.js';
import type { SubscriberDeps } from './context.js';

/** The agent that asked for an approval hears the decision. */
export function onApprovalResolved(deps: SubscriberDeps) {
  return async (event: EventOf<'approval.resolved'>) => {
    const { approval_id, status, decision_note, task_id, requested_by_agent_id } = event.payload;
    await deps.store.transaction(async (tx) => {
      const agent = await tx.agents.get(requested_by_agent_id);
      if (!agent || agent.deleted_at !== null) return;
      await deps.wakeups.enqueue(tx, {
        agent_id: agent.id, source: 'approval_resolved', reason: `approval ${status}`,
        payload: { approval_id, status, decision_note, task_id },
        idempotency_key: approvalResolvedKey(approval_id),
      }, deps.clock.now());
    });
  };
}
