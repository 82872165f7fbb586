import { SummariesSql } from '../sql/summaries.js';
import { sqliteDialect } from './dialect.js';
import type { Sql } from './sql.js';

/** The shared statements (../sql/summaries.ts) on this backend's connection. */
export class SqliteSummaries extends SummariesSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}
