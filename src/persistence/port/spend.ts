/**
 * What agents may spend: budgets and the shared quotas of the agent programs (the port's rules:
 * persistence/store.ts).
 *
 * Isolation: spend is the sum of the cost ledger, which holds one row per run (`UNIQUE run_id`), so
 * a run's cost counts once however it ends; an alert is marked sent by compare-and-set
 * (`markAlertSent`), so it is raised once. A quota's hold, release slot and announcement are each one statement on the
 * quota's row, so every replica honours the same reset and one of them announces it.
 */
import type { Agent, Budget } from '../../domain/types.js';
import type { Quota } from '../../domain/quotas.js';

export interface BudgetRepo {
  insert(budget: Budget): Promise<void>;
  get(id: string): Promise<Budget | undefined>;
  /** Changes a budget's limit, period, action or threshold; the budget as changed, undefined when there is none. */
  edit(id: string, fields: Partial<Pick<Budget, 'limit_usd' | 'period' | 'action_on_exceed' | 'alert_threshold_pct'>>): Promise<Budget | undefined>;
  /** Deletes a budget and the record of its alerts; false when there was none. Its costs stay in the ledger. */
  delete(id: string): Promise<boolean>;
  list(workspaceId: string | undefined): Promise<Budget[]>;
  forScopes(scopes: { scope: Budget['scope']; scope_id: string }[]): Promise<Budget[]>;
  /** Sum of reported costs inside the scope since `since` (ms). */
  spend(scope: Budget['scope'], scopeId: string, since: number): Promise<number>;
  /** Records a run's reported cost; a run's cost is recorded once (UNIQUE run_id), a second record of it changes nothing. */
  recordCost(entry: { workspace_id: string; project_id: string | null; agent_id: string; run_id: string; cost_usd: number; created_at: number }): Promise<void>;
  /** True the first time a threshold is crossed in a period: the primary key is the guard. */
  markAlertSent(budgetId: string, periodKey: string, thresholdPct: number, at: number): Promise<boolean>;
}

/** A reset to record on a quota (QuotaRepo.exhaust). */
export interface QuotaExhaustion {
  key: string;
  kind: string;
  exhausted_until: number;
  release_at: number;
  reason: string;
  run_id: string;
  /** Agents sharing the key now: the spread's divisor. */
  sharing: number;
  at: number;
}

/** Shared quotas (API.md, "Agent CLIs"; domain/quotas.ts), which every replica honours. */
export interface QuotaRepo {
  /** Records that the quota is exhausted until a reset; a later reset already recorded stands. */
  exhaust(exhaustion: QuotaExhaustion): Promise<void>;
  /**
   * Takes the next release slot of a quota that is still exhausted at `at` (release_at ahead), in
   * one statement; undefined when it is not (released, or never exhausted).
   */
  holdSlot(key: string, at: number): Promise<{ slot: number; release_at: number; sharing: number; exhausted_until: number; kind: string } | undefined>;
  /**
   * Whether this exhaustion is news: true once per exhaustion (its first call while the quota is
   * exhausted, or the first after an earlier release passed), in one guarded statement.
   */
  announce(key: string, at: number): Promise<boolean>;
  /** Records that a limit is near (not a failure). */
  warn(key: string, kind: string, warning: string, at: number): Promise<void>;
  get(key: string): Promise<Quota | undefined>;
  /** Every quota, or those still exhausted at `exhaustedAt` (release_at ahead), the soonest first. */
  list(filter: { exhaustedAt?: number }): Promise<Quota[]>;
}
