import type { EventBus } from '../bus.js';
import { onApprovalResolved } from './approvals.js';
import { onTaskAssigned } from './assignment.js';
import { onRunFinishedCheckBudgets } from './budgets.js';
import { onCommentCreated } from './comments.js';
import type { SubscriberDeps } from './context.js';
import { onTaskMoved } from './moves.js';

/** The one place subscribers are registered. */
export function registerSubscribers(bus: EventBus, deps: SubscriberDeps): void {
  bus.within('task.assigned', onTaskAssigned(deps));
  bus.on('comment.created', onCommentCreated(deps));
  bus.on('task.moved', onTaskMoved(deps));
  bus.on('approval.resolved', onApprovalResolved(deps));
  bus.within('run.finished', onRunFinishedCheckBudgets(deps));
}
