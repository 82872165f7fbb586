import { TokensSql } from '../sql/tokens.js';
import { postgresDialect } from './dialect.js';
import type { PgSql } from './sql.js';

/** The shared statements (../sql/tokens.ts) on this backend's connection. */
export class PgTokens extends TokensSql {
  constructor(sql: PgSql) { super(postgresDialect(sql)); }
}
