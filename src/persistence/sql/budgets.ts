import type { Budget } from '../../domain/types.js';
import type { BudgetRepo } from '../store.js';
import type { Dialect, RowTable, SqlRunner } from './dialect.js';
import { BUDGETS } from '../tables.js';

/** The ledger's column that a budget's scope sums its spend by; each has an index with created_at. */
export const SPEND_COLUMN: Record<Budget['scope'], string> = {
  workspace: 'workspace_id',
  project: 'project_id',
  agent: 'agent_id',
};

/** Budgets and the cost ledger, on both backends. */
export class BudgetsSql implements BudgetRepo {
  private readonly table: RowTable<Budget>;
  private readonly sql: SqlRunner;
  constructor(private readonly dialect: Dialect) {
    this.sql = dialect.sql;
    this.table = dialect.table(BUDGETS);
  }
  async insert(budget: Budget) { await this.table.insert(budget); }
  async get(id: string) { return this.table.get(id); }
  async edit(id: string, fields: Partial<Pick<Budget, 'limit_usd' | 'period' | 'action_on_exceed' | 'alert_threshold_pct'>>) {
    // A budget has no state a person's edit must expect: any row may take it. An empty edit changes nothing.
    if (Object.values(fields).every((value) => value === undefined)) return this.table.get(id);
    return this.table.transition(id, { patch: fields }, 'TRUE');
  }
  async delete(id: string) {
    // Its alerts reference it: they go first, and with it (an alert's record means nothing without its budget).
    await this.sql.run('DELETE FROM budget_alerts_sent WHERE budget_id = ?', [id]);
    return (await this.sql.run('DELETE FROM budgets WHERE id = ?', [id])).changes > 0;
  }
  async list(workspaceId: string | undefined) {
    return workspaceId
      ? this.table.many('SELECT * FROM budgets WHERE workspace_id = ? ORDER BY created_at, id', [workspaceId])
      : this.table.many('SELECT * FROM budgets ORDER BY created_at, id LIMIT 1000');
  }
  async forScopes(scopes: { scope: Budget['scope']; scope_id: string }[]) {
    if (scopes.length === 0) return [];
    // scope_id alone is selective (ids are unique across kinds); one statement for every scope.
    const ids = this.dialect.inList('scope_id', scopes.map((s) => s.scope_id));
    const rows = await this.table.many(`SELECT * FROM budgets WHERE ${ids.sql} ORDER BY created_at, id`, ids.params);
    return rows.filter((budget) => scopes.some((s) => s.scope === budget.scope && s.scope_id === budget.scope_id));
  }
  async spend(scope: Budget['scope'], scopeId: string, since: number) {
    const column = SPEND_COLUMN[scope];
    return (await this.sql.get<{ total: number | null }>(
      `SELECT SUM(cost_usd) AS total FROM cost_ledger WHERE ${column} = ? AND created_at >= ?`, [scopeId, since]))!.total ?? 0;
  }
  async recordCost(entry: { workspace_id: string; project_id: string | null; agent_id: string; run_id: string; cost_usd: number; created_at: number }) {
    await this.sql.run(
      `INSERT INTO cost_ledger (workspace_id, project_id, agent_id, run_id, cost_usd, created_at)
       VALUES (@workspace_id, @project_id, @agent_id, @run_id, @cost_usd, @created_at) ON CONFLICT (run_id) DO NOTHING`, entry);
  }
  async markAlertSent(budgetId: string, periodKey: string, thresholdPct: number, at: number) {
    return (await this.sql.run(
      'INSERT INTO budget_alerts_sent (budget_id, period_key, threshold_pct, sent_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
      [budgetId, periodKey, thresholdPct, at])).changes === 1;
  }
}
