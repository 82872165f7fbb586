import { BudgetsSql } from '../sql/budgets.js';
import { sqliteDialect } from './dialect.js';
import type { Sql } from './sql.js';

/** The shared statements (../sql/budgets.ts) on this backend's connection. */
export class SqliteBudgets extends BudgetsSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}
