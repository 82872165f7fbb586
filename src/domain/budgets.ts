import type { Budget } from './types.js';

/** Start of the budget's current period, in UTC. `total` budgets never reset. */
export function periodStart(period: Budget['period'], now: number): number {
  const date = new Date(now);
  if (period === 'daily') return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  if (period === 'monthly') return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  return 0;
}

/** Names the period, so an alert fires once per threshold per period. */
export function periodKey(period: Budget['period'], now: number): string {
  const iso = new Date(now).toISOString();
  if (period === 'daily') return iso.slice(0, 10);
  if (period === 'monthly') return iso.slice(0, 7);
  return 'total';
}

/** Workspace first, then project, then agent: the widest budget speaks first. */
export const BUDGET_SCOPE_ORDER: readonly Budget['scope'][] = ['workspace', 'project', 'agent'];

export interface BudgetStanding {
  budget: Budget;
  spent: number;
  pct: number;
  exceeded: boolean;
}

export type BudgetVerdict =
  | { kind: 'proceed'; warnings: BudgetStanding[] }
  | { kind: 'block'; standing: BudgetStanding; warnings: BudgetStanding[] };

export function standingOf(budget: Budget, spent: number): BudgetStanding {
  const pct = budget.limit_usd > 0 ? (spent / budget.limit_usd) * 100 : spent > 0 ? Infinity : 0;
  return { budget, spent, pct, exceeded: spent >= budget.limit_usd };
}

/** The first exceeded `pause_agent` budget blocks; exceeded `warn` budgets only warn. */
export function budgetVerdict(standings: BudgetStanding[]): BudgetVerdict {
  const ordered = [...standings].sort(
    (a, b) => BUDGET_SCOPE_ORDER.indexOf(a.budget.scope) - BUDGET_SCOPE_ORDER.indexOf(b.budget.scope),
  );
  const warnings = ordered.filter((s) => s.exceeded && s.budget.action_on_exceed === 'warn');
  const blocking = ordered.find((s) => s.exceeded && s.budget.action_on_exceed === 'pause_agent');
  return blocking ? { kind: 'block', standing: blocking, warnings } : { kind: 'proceed', warnings };
}
