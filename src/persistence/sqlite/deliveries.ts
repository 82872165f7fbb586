import { DeliveriesSql } from '../sql/deliveries.js';
import { sqliteDialect } from './dialect.js';
import type { Sql } from './sql.js';

/** The shared statements (../sql/deliveries.ts) on this backend's connection. */
export class SqliteDeliveries extends DeliveriesSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}
