import { LeasesSql } from '../sql/leases.js';
import { postgresDialect } from './dialect.js';
import type { PgSql } from './sql.js';

/** The shared statements (../sql/leases.ts) on this backend's connection. */
export class PgLeases extends LeasesSql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}

