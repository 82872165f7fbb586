import { periodKey, type BudgetStanding } from '../../domain/budgets.js';
import { budgetAlertKey } from '../../domain/idempotency.js';
import { ATTENDED, type Provenance } from '../../domain/provenance.js';
import { recordDecision } from '../../services/activity.js';
import { budgetStandings } from '../../services/budgetStanding.js';
import type { Tx } from '../../persistence/store.js';
import type { EventOf } from '../../domain/events.js';
import type { SubscriberDeps } from './context.js';

/**
 * Crossing a budget's alert threshold wakes the coordinator, once per threshold per period. It runs
 * in the finishing run's own transaction (EventBus.within): the spend and its alert commit together.
 */
export function onRunFinishedCheckBudgets(deps: SubscriberDeps) {
  return async (tx: Tx, event: EventOf<'run.finished'>) => {
    if (!event.payload.cost_usd) return;
    const agent = await tx.agents.get(event.payload.agent_id);
    if (!agent) return;
    const task = event.payload.task_id ? await tx.tasks.get(event.payload.task_id) : undefined;
    for (const standing of await budgetStandings(tx, agent, task?.project_id ?? null, deps.clock.now())) {
      await alertIfCrossed(deps, tx, standing, agent.id, event.payload.provenance ?? ATTENDED);
    }
  };
}

/** The alert is the spending run's follow-on work: unattended spend raises an unattended alert, for the same person. */
async function alertIfCrossed(deps: SubscriberDeps, tx: Tx, standing: BudgetStanding, agentId: string, provenance: Provenance) {
  const { budget } = standing;
  if (budget.alert_threshold_pct === null || standing.pct < budget.alert_threshold_pct) return;
  const now = deps.clock.now();
  const period = periodKey(budget.period, now);
  if (!(await tx.budgets.markAlertSent(budget.id, period, budget.alert_threshold_pct, now))) return;
  const coordinator = await tx.agents.coordinatorOf(budget.workspace_id);
  await recordDecision(tx, deps.log, {
    workspace_id: budget.workspace_id, code: 'budget_alert', agent_id: agentId, ...provenance,
    message: `${budget.scope} budget ${budget.id} at ${Math.round(standing.pct)}% (threshold ${budget.alert_threshold_pct}%)`,
    details: { budget_id: budget.id, budget_pct: standing.pct, coordinator_id: coordinator?.id ?? null },
  }, now, 'warn');
  if (!coordinator) return;
  await deps.wakeups.enqueue(tx, {
    agent_id: coordinator.id, source: 'budget_alert', reason: `budget at ${Math.round(standing.pct)}%`,
    payload: { agent_instance_id: agentId, budget_pct: Math.round(standing.pct * 100) / 100, budget_id: budget.id },
    idempotency_key: budgetAlertKey(budget.id, period, budget.alert_threshold_pct), provenance,
  }, now);
}
