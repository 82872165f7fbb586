import { DeliveriesSql } from '../sql/deliveries.js';
import { postgresDialect } from './dialect.js';
import type { PgSql } from './sql.js';

/** The shared statements (../sql/deliveries.ts) on this backend's connection. */
export class PgDeliveries extends DeliveriesSql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}
