import { BudgetsSql } from '../sql/budgets.js';
import { BUDGETS } from '../tables.js';
import { postgresDialect } from './dialect.js';
import type { PgSql } from './sql.js';
import { PgTable } from './table.js';

export const budgetTable = (sql: PgSql) => new PgTable(sql, BUDGETS);

/** The shared statements (../sql/budgets.ts) on this backend's connection. */
export class PgBudgets extends BudgetsSql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}
