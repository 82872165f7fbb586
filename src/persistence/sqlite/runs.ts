import { RunsSql } from '../sql/runs.js';
import { sqliteDialect } from './dialect.js';
import type { Sql } from './sql.js';

/** The shared statements (../sql/runs.ts) on this backend's connection. */
export class SqliteRuns extends RunsSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}
