import { periodKey, periodStart, standingOf } from '../../domain/budgets.js';
import { budgetAlertKey } from '../../domain/idempotency.js';
import type { Budget } from '../../domain/types.js';
import type { Tx } from '../../persistence/store.js';
import type { EventOf } from '../types.js';
import type { SubscriberDeps } from './context.js';

/** Crossing a budget's alert threshold wakes the coordinator, once per threshold per period. */
export function onRunFinishedCheckBudgets(deps: SubscriberDeps) {
  return async (event: EventOf<'run.finished'>) => {
    if (!event.payload.cost_usd) return;
    await deps.store.transaction(async (tx) => {
      const agent = await tx.agents.get(event.payload.agent_id);
      if (!agent) return;
      const task = event.payload.task_id ? await tx.tasks.get(event.payload.task_id) : undefined;
      const budgets = await tx.budgets.forScopes([
        { scope: 'workspace', scope_id: agent.workspace_id },
        ...(task?.project_id ? [{ scope: 'project' as const, scope_id: task.project_id }] : []),
        { scope: 'agent', scope_id: agent.id },
      ]);
      for (const budget of budgets) await alertIfCrossed(deps, tx, budget, agent.id);
    });
  };
}

async function alertIfCrossed(deps: SubscriberDeps, tx: Tx, budget: Budget, agentId: string) {
  if (budget.alert_threshold_pct === null) return;
  const now = deps.clock.now();
  const standing = standingOf(budget, await tx.budgets.spend(budget.scope, budget.scope_id, periodStart(budget.period, now)));
  if (standing.pct < budget.alert_threshold_pct) return;
  const period = periodKey(budget.period, now);
  if (!(await tx.budgets.markAlertSent(budget.id, period, budget.alert_threshold_pct, now))) return;
  const coordinator = await tx.agents.coordinatorOf(budget.workspace_id);
  await tx.activity.insert({
    workspace_id: budget.workspace_id, code: 'budget_alert', agent_id: agentId,
    message: `${budget.scope} budget ${budget.id} at ${Math.round(standing.pct)}% (threshold ${budget.alert_threshold_pct}%)`,
    details: { budget_id: budget.id, budget_pct: standing.pct, coordinator_id: coordinator?.id ?? null },
  }, now);
  deps.log.warn({ budget_id: budget.id, budget_pct: standing.pct, agent_id: agentId }, 'budget alert threshold crossed');
  if (!coordinator) return;
  await deps.wakeups.enqueue(tx, {
    agent_id: coordinator.id, source: 'budget_alert', reason: `budget at ${Math.round(standing.pct)}%`,
    payload: { agent_instance_id: agentId, budget_pct: Math.round(standing.pct * 100) / 100, budget_id: budget.id },
    idempotency_key: budgetAlertKey(budget.id, period, budget.alert_threshold_pct),
  }, now);
}
