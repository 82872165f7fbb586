import { SummariesSql } from '../sql/summaries.js';
import { postgresDialect } from './dialect.js';
import type { PgSql } from './sql.js';

/** The shared statements (../sql/summaries.ts) on this backend's connection. */
export class PgSummaries extends SummariesSql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}
