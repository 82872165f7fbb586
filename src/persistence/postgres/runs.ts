import { RunsSql } from '../sql/runs.js';
import { postgresDialect } from './dialect.js';
import type { PgSql } from './sql.js';

/** The shared statements (../sql/runs.ts) on this backend's connection. */
export class PgRuns extends RunsSql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}
