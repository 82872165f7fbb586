import { BudgetsSql } from '../sql/budgets.js';
import { BUDGETS } from '../tables.js';
import { sqliteDialect } from './dialect.js';
import type { Sql } from './sql.js';
import { Table } from './table.js';

export const budgetTable = (sql: Sql) => new Table(sql, BUDGETS);

/** The shared statements (../sql/budgets.ts) on this backend's connection. */
export class SqliteBudgets extends BudgetsSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}
