import { StatsSql } from '../sql/stats.js';
import { sqliteDialect } from './dialect.js';
import type { Sql } from './sql.js';

/** The shared statements (../sql/stats.ts) on this backend's connection. */
export class SqliteStats extends StatsSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}
