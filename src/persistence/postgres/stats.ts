import { StatsSql } from '../sql/stats.js';
import { postgresDialect } from './dialect.js';
import type { PgSql } from './sql.js';

/** The shared statements (../sql/stats.ts) on this backend's connection. */
export class PgStats extends StatsSql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}
