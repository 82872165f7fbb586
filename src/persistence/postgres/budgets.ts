import { BudgetsSql } from '../sql/budgets.js';
import { postgresDialect } from './dialect.js';
import type { PgSql } from './sql.js';

/** The shared statements (../sql/budgets.ts) on this backend's connection. */
export class PgBudgets extends BudgetsSql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}
