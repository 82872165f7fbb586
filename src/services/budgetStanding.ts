/**
 * Where an agent stands against its budgets and daily caps, read once here for the pipeline's
 * pre-check, the recovery sweep's guard and the budget-alert subscriber alike.
 */
import { periodStart, standingOf, type BudgetStanding } from '../domain/budgets.js';
import { hasDailyCap, startOfUtcDay, type DailyCap } from '../domain/dailyCaps.js';
import type { Agent, Budget } from '../domain/types.js';
import type { Tx } from '../persistence/store.js';

/** Every budget that applies to work by this agent (on a task of this project, if any), with its spend. */
export async function budgetStandings(tx: Tx, agent: Agent, projectId: string | null, now: number): Promise<BudgetStanding[]> {
  const budgets = await tx.budgets.forScopes([
    { scope: 'workspace', scope_id: agent.workspace_id },
    ...(projectId ? [{ scope: 'project' as const, scope_id: projectId }] : []),
    { scope: 'agent', scope_id: agent.id },
  ]);
  const standings: BudgetStanding[] = [];
  for (const budget of budgets) {
    standings.push(standingOf(budget, await tx.budgets.spend(budget.scope, budget.scope_id, periodStart(budget.period, now))));
  }
  return standings;
}

/**
 * The daily cap the agent has reached today, from its usage row as committed: a filter for the
 * recovery sweep. A dispatch decides on the row itself, held until it commits (prepare.ts).
 */
export async function dailyCapOf(tx: Tx, agent: Agent, now: number): Promise<DailyCap | null> {
  return hasDailyCap(agent) ? tx.runs.dailyCapReached(agent.id, startOfUtcDay(now), agent) : null;
}

/** A workspace's budgets (or every budget), each with what runs spent in its current period. */
export async function budgetsWithSpend(tx: Tx, workspaceId: string | undefined, now: number): Promise<Array<Budget & { spent_usd: number; period_started_at: number | null }>> {
  const budgets = await tx.budgets.list(workspaceId);
  return Promise.all(budgets.map(async (budget) => {
    const since = periodStart(budget.period, now);
    return { ...budget, spent_usd: await tx.budgets.spend(budget.scope, budget.scope_id, since), period_started_at: budget.period === 'total' ? null : since };
  }));
}
