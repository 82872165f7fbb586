import { TokensSql } from '../sql/tokens.js';
import { sqliteDialect } from './dialect.js';
import type { Sql } from './sql.js';

/** The shared statements (../sql/tokens.ts) on this backend's connection. */
export class SqliteTokens extends TokensSql {
  constructor(sql: Sql) { super(sqliteDialect(sql)); }
}
